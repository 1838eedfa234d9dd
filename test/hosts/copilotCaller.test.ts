import { expect } from "chai";
import { join } from "node:path";
import { answeringHost, callerHostOf, callerToolNames } from "../../src/hosts/callerHost.js";
import { Sandbox } from "../support/sandbox.js";

/**
 * Copilot CLI runs the hooks of the repository's `.claude/settings.json`, a `qhooks run --dialect claude` entry among
 * them, with its VS Code-compatible payload (its hooks reference: `hook_event_name`, `session_id`, an ISO `timestamp`,
 * `tool_name` as Claude Code's name, `tool_input`) or, from its own camelCase entries, `sessionId`, epoch `timestamp`
 * and its own tool names. Through the real CLI: judged by Claude Code's hooks, answered in Copilot CLI's fields.
 */
describe("an entry pinned to Claude Code, called by Copilot CLI", function () {
  this.timeout(20_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const vsCodePreToolUse = (command: string) =>
    JSON.stringify({
      hook_event_name: "PreToolUse",
      session_id: "cp-1",
      timestamp: "2026-05-01T10:00:00.000Z",
      cwd: sb.project,
      tool_name: "Bash",
      tool_input: { command },
    });
  const camelPreToolUse = (command: string) =>
    JSON.stringify({ sessionId: "cp-2", timestamp: 1767225600000, cwd: sb.project, toolName: "bash", toolArgs: JSON.stringify({ command }) });
  const guard = `grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0`;
  const claudeGuard = () =>
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } });
  const run = (event: string, input: string) =>
    sb.run(["run", event, "--format", "hook", "--dialect", "claude"], { input, cwd: sb.project, env: { CLAUDE_PROJECT_DIR: sb.project } });

  it("tells Copilot CLI's payloads from Claude Code's, for an entry pinned to Claude Code only", () => {
    expect(callerHostOf(vsCodePreToolUse("ls"), "claude")).to.equal("copilot");
    expect(callerHostOf(camelPreToolUse("ls"), "claude")).to.equal("copilot");
    expect(callerHostOf(JSON.stringify({ session_id: "s", cwd: "/p", hook_event_name: "PreToolUse", tool_name: "Bash" }), "claude")).to.equal(null);
    // Gemini CLI's payloads carry an ISO timestamp too, but Copilot CLI calls no other host's entries.
    expect(callerHostOf(vsCodePreToolUse("ls"), "gemini")).to.equal(null);
    expect(callerHostOf(vsCodePreToolUse("ls"), "copilot")).to.equal(null);
    expect(answeringHost("claude", "copilot")).to.equal("copilot");
    expect(answeringHost("claude", "cursor")).to.equal("claude");
    expect(answeringHost("claude", null)).to.equal("claude");
    expect(callerToolNames("copilot", "claude")).to.include({ bash: "Bash", view: "Read", edit: "Edit", task: "Agent" });
  });

  it("a Claude Code guard on Bash blocks Copilot CLI's command, in Copilot CLI's answer; its own tool names are matched as Claude Code's", async () => {
    claudeGuard();
    const blocked = await run("PreToolUse", vsCodePreToolUse("rm -rf /"));
    expect(blocked.code, blocked.stderr).to.equal(0);
    expect(JSON.parse(blocked.stdout)).to.deep.equal({ permissionDecision: "deny", permissionDecisionReason: "no rm -rf" });
    const camel = await run("PreToolUse", camelPreToolUse("rm -rf /"));
    expect(JSON.parse(camel.stdout), camel.stderr).to.deep.equal({ permissionDecision: "deny", permissionDecisionReason: "no rm -rf" });
    const allowed = await run("PreToolUse", vsCodePreToolUse("ls"));
    expect([allowed.code, allowed.stdout], allowed.stderr).to.deep.equal([0, ""]);
    expect(allowed.stderr).to.include(
      "Copilot CLI called this entry for Claude Code (--dialect claude); judged by Claude Code's hooks, answered in Copilot CLI's format",
    );
  });

  it("a blocked stop is Copilot CLI's decision block (its exit 2 there would let the agent stop)", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "echo 'tests are red' >&2; exit 2" }] }] },
    });
    const input = JSON.stringify({
      hook_event_name: "Stop",
      session_id: "cp-3",
      timestamp: "2026-05-01T10:00:00.000Z",
      cwd: sb.project,
      transcript_path: "/tmp/t.jsonl",
      stop_reason: "end_turn",
      stop_hook_active: false,
    });
    const r = await run("Stop", input);
    expect([r.code, JSON.parse(r.stdout)], r.stderr).to.deep.equal([0, { decision: "block", reason: "tests are red" }]);
  });

  it("log, show and explain name Copilot CLI as the caller", async () => {
    claudeGuard();
    await run("PreToolUse", vsCodePreToolUse("rm -rf /"));
    const rows = JSON.parse((await sb.run(["log", "--json"])).stdout) as { seq: number; decision: string; caller: string | null }[];
    expect(rows.map((r) => [r.decision, r.caller])).to.deep.equal([["deny", "copilot"]]);
    const shown = await sb.run(["show", String(rows[0]!.seq)]);
    expect(shown.stdout).to.match(/caller +Copilot CLI, through the entry pinned to Claude Code/);
    const explained = JSON.parse((await sb.run(["explain", String(rows[0]!.seq), "--json"])).stdout) as { caller: unknown };
    expect(explained.caller).to.deep.equal({ host: "copilot", entry: "claude" });
    const file = sb.file("copilot.json", camelPreToolUse("rm -rf /"));
    const unlogged = await sb.run(["explain", "PreToolUse", "--payload", file, "--dialect", "claude", "--json"], { env: { CLAUDE_PROJECT_DIR: sb.project } });
    const x = JSON.parse(unlogged.stdout) as { caller: unknown; matchValue: string; hooks: { verdict: { kind: string } }[] };
    expect([x.caller, x.matchValue, x.hooks.map((h) => h.verdict.kind)], unlogged.stderr).to.deep.equal([
      { host: "copilot", entry: "claude" },
      "Bash",
      ["would-run"],
    ]);
  });
});
