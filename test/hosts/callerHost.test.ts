import { expect } from "chai";
import { join } from "node:path";
import {
  asPinnedTools,
  callerHostOf,
  callerHostOfFields,
  callerToolNames,
  callerToolsText,
  loggedCallerOf,
  payloadReading,
} from "../../src/hosts/callerHost.js";
import { Sandbox } from "../support/sandbox.js";

/**
 * Cursor runs the hooks of Claude Code's files itself, qhooks' installed entry among them, with Cursor's payload
 * (fields as in Cursor-run Claude Code hooks reported publicly: `cursor_version`, `conversation_id`, `generation_id`,
 * `workspace_roots`, Cursor's camelCase event name). Through the real CLI: the entry still judges by Claude Code's
 * hooks, so a block stays a block, and says who called; the recorder logs the event as Cursor's.
 */
describe("an entry pinned to Claude Code, called by Cursor", function () {
  this.timeout(20_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const cursorPreToolUse = (command: string) =>
    JSON.stringify({
      conversation_id: "c-51d0",
      generation_id: "g-77aa",
      model: "claude-sonnet",
      is_background_agent: false,
      session_id: "c-51d0",
      hook_event_name: "preToolUse",
      cursor_version: "2.1.7",
      workspace_roots: [sb.project],
      transcript_path: null,
      tool_name: "Shell",
      tool_input: { command },
    });
  const claudeGuard = () =>
    sb.file(join(sb.home, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0` }] }] },
    });
  const run = (input: string) =>
    sb.run(["run", "PreToolUse", "--format", "hook", "--dialect", "claude"], { input, cwd: sb.project, env: { CLAUDE_PROJECT_DIR: sb.project } });
  const logged = async () => JSON.parse((await sb.run(["log", "--json"])).stdout) as { seq: number; decision: string; origin: { host: string | null } }[];

  it("tells a Cursor payload from a Claude Code one", () => {
    expect(callerHostOf(cursorPreToolUse("ls"), "claude")).to.equal("cursor");
    expect(callerHostOf(JSON.stringify({ conversation_id: "c", workspace_roots: ["/p"], hook_event_name: "stop" }), "claude")).to.equal("cursor");
    expect(callerHostOf(JSON.stringify({ session_id: "s", cwd: "/p", hook_event_name: "PreToolUse", tool_name: "Bash" }), "claude")).to.equal(null);
    expect(callerHostOf(cursorPreToolUse("ls"), "cursor")).to.equal(null);
    expect(callerHostOf("not json", "claude")).to.equal(null);
  });

  it("a guard's block stays a block, and the log names the caller", async () => {
    claudeGuard();
    const r = await run(cursorPreToolUse("rm -rf /"));
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.include("no rm -rf");
    const [row] = await logged();
    expect(row!.decision).to.equal("deny");
    // The caller is named with the event's settings warnings (stderr carries the block's reason alone).
    const shown = await sb.run(["show", String(row!.seq)]);
    expect(shown.stdout).to.include("Cursor called this entry for Claude Code (--dialect claude)");
  });

  it("an allowed call: one stderr line names the caller, the answer is Claude Code's", async () => {
    claudeGuard();
    const r = await run(cursorPreToolUse("ls"));
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stderr.split("\n").filter((l) => l.includes("Cursor called this entry"));
    expect(lines, r.stderr).to.have.length(1);
  });

  it("a Claude Code payload says nothing about a caller", async () => {
    claudeGuard();
    const input = JSON.stringify({ session_id: "s1", cwd: sb.project, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    const r = await run(input);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.not.include("called this entry");
  });

  it("the recorder `install claude` wrote logs Cursor's event as Cursor's", async () => {
    const r = await sb.run(["record", "PreToolUse", "--dialect", "claude"], { input: cursorPreToolUse("ls"), cwd: sb.project });
    expect(r.code, r.stderr).to.equal(0);
    const [row] = await logged();
    expect(row!.decision).to.equal("recorded");
    expect(row!.origin.host).to.equal("cursor");
    const claude = await sb.run(["record", "PreToolUse", "--dialect", "claude"], {
      input: JSON.stringify({ session_id: "s1", cwd: sb.project, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }),
      cwd: sb.project,
    });
    expect(claude.code, claude.stderr).to.equal(0);
    expect((await logged()).map((e) => e.origin.host).sort()).to.deep.equal(["claude", "cursor"]);
  });

  it("Cursor's Shell is matched as Claude Code's Bash: tools renamed for a caller of Claude Code's entry only", () => {
    expect(callerToolNames("cursor", "claude")).to.deep.equal({ Shell: "Bash" });
    expect(callerToolNames("cursor", "qoder")).to.deep.equal({});
    expect(callerToolsText("cursor", "claude")).to.equal("Shell as Bash");
    expect(callerToolsText("claude", "claude")).to.equal("");
    expect(asPinnedTools("cursor", "claude", { tool_name: "Shell", tool_input: { command: "ls" } })).to.deep.equal({
      tool_name: "Bash",
      tool_input: { command: "ls" },
    });
    expect(asPinnedTools("cursor", "claude", { tool_name: "Read" })).to.deep.equal({ tool_name: "Read" });
    expect(asPinnedTools("cursor", "claude", { tool_name: "toString" })).to.deep.equal({ tool_name: "toString" });
    // The caller's reading (conversation_id is the session), then its tools as the entry's host names them.
    const cursorRead = payloadReading("claude", "cursor").readPayload!({ conversation_id: "c", tool_name: "Shell", hook_event_name: "preToolUse" });
    expect(cursorRead).to.include({ session_id: "c", tool_name: "Bash" });
    expect(payloadReading("claude").readPayload).to.equal(undefined);
    expect(payloadReading("cursor").readPayload!({ tool_name: "Shell" })).to.include({ tool_name: "Shell" });
    expect(payloadReading(undefined).hostEvents).to.equal(undefined);
  });

  it("the caller of a logged event, from its payload and the host that judged it", () => {
    const cursor = { cursor_version: "2.1.7", session_id: "s" };
    expect(callerHostOfFields(cursor, "claude")).to.equal("cursor");
    expect(callerHostOfFields("text", "claude")).to.equal(null);
    expect(loggedCallerOf(cursor, "claude")).to.equal("cursor");
    expect(loggedCallerOf(cursor, "cursor")).to.equal(null);
    expect(loggedCallerOf(cursor, null)).to.equal(null);
    expect(loggedCallerOf(cursor, "windsurf")).to.equal(null);
    expect(loggedCallerOf({ session_id: "s" }, "claude")).to.equal(null);
  });

  it("a Claude Code guard on Bash blocks Cursor's Shell command; log, show and explain name the caller", async () => {
    sb.file(join(sb.home, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0` }] }] },
    });
    const blocked = await run(cursorPreToolUse("rm -rf /"));
    expect(blocked.code, blocked.stderr).to.equal(2);
    expect(blocked.stderr).to.include("no rm -rf");
    const allowed = await run(cursorPreToolUse("ls"));
    expect(allowed.code, allowed.stderr).to.equal(0);
    expect(allowed.stderr).to.include("its tools matched as Claude Code's: Shell as Bash");
    const claude = await run(
      JSON.stringify({ session_id: "s1", cwd: sb.project, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }),
    );
    expect(claude.code, claude.stderr).to.equal(0);

    const rows = JSON.parse((await sb.run(["log", "--json"])).stdout) as { seq: number; decision: string; matchValue: string; caller: string | null }[];
    expect(rows.map((r) => [r.decision, r.matchValue, r.caller])).to.deep.equal([
      ["none", "Bash", null],
      ["none", "Bash", "cursor"],
      ["deny", "Bash", "cursor"],
    ]);
    const table = await sb.run(["log", "--format", "table"], { env: { COLUMNS: "200" } });
    const [header, ...lines] = table.stdout.trimEnd().split("\n");
    expect(header).to.match(/ CALLER /);
    expect(lines.map((l) => (/ cursor /.test(l) ? "cursor" : "-"))).to.deep.equal(["-", "cursor", "cursor"]);
    expect((await sb.run(["log"])).stdout).to.not.include("CALLER");

    const shown = await sb.run(["show", String(rows[2]!.seq)]);
    expect(shown.stdout).to.match(/caller +Cursor, through the entry pinned to Claude Code/);
    expect((await sb.run(["show", String(rows[0]!.seq)])).stdout).to.not.match(/^ +caller/m);

    const explained = await sb.run(["explain", String(rows[2]!.seq)]);
    expect(explained.stdout).to.include(
      "caller: Cursor, through the entry pinned to Claude Code (--dialect claude); judged by Claude Code's hooks, its tools matched as Claude Code's: Shell as Bash",
    );
    const json = JSON.parse((await sb.run(["explain", String(rows[2]!.seq), "--json"])).stdout) as { caller: unknown };
    expect(json.caller).to.deep.equal({ host: "cursor", entry: "claude" });
    expect((JSON.parse((await sb.run(["explain", String(rows[0]!.seq), "--json"])).stdout) as { caller: unknown }).caller).to.equal(null);

    // An unlogged Cursor payload, explained for Claude Code's entry: read as run reads it, the Bash guard would run.
    const file = sb.file("cursor.json", cursorPreToolUse("rm -rf /"));
    const unlogged = await sb.run(["explain", "PreToolUse", "--payload", file, "--dialect", "claude", "--json"], { env: { CLAUDE_PROJECT_DIR: sb.project } });
    const x = JSON.parse(unlogged.stdout) as { caller: unknown; matchValue: string; hooks: { verdict: { kind: string } }[] };
    expect(x.caller, unlogged.stderr).to.deep.equal({ host: "cursor", entry: "claude" });
    expect(x.matchValue).to.equal("Bash");
    expect(x.hooks.map((h) => h.verdict.kind)).to.deep.equal(["would-run"]);
  });
});
