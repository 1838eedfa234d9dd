import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COPILOT_EVENT_NAMES } from "../../src/hosts/copilotNames.js";
import {
  COPILOT_UNKNOWN_SESSION,
  copilotAnswer,
  copilotDocumentWarnings,
  copilotHookEntry,
  copilotHookOutput,
  copilotPayload,
} from "../../src/hosts/copilotProtocol.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { outcomeOf } from "../support/outcomes.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "hosts", "copilot");
const fixture = (event: string): string => readFileSync(join(FIXTURES, `${event}.json`), "utf8");

/** Each fixture's event, the qhooks event it is, and the tool it names (none for the others). */
const KINDS: ReadonlyArray<readonly [string, string, string | null]> = [
  ["preToolUse", "PreToolUse", "bash"],
  ["permissionRequest", "PermissionRequest", "bash"],
  ["postToolUse", "PostToolUse", "edit"],
  ["postToolUseFailure", "PostToolUseFailure", "bash"],
  ["userPromptSubmitted", "UserPromptSubmit", null],
  ["sessionStart", "SessionStart", null],
  ["sessionEnd", "SessionEnd", null],
  ["agentStop", "Stop", null],
  ["subagentStart", "SubagentStart", null],
  ["subagentStop", "SubagentStop", null],
  ["preCompact", "PreCompact", null],
  ["notification", "Notification", null],
];

describe("Copilot CLI host", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const repoFile = (name = "guards.json") => join(sb.project, ".github", "hooks", name);
  const run = (event: string, format: "json" | "hook", input = fixture(event)) =>
    sb.run(["run", event, "--format", format, "--dialect", "copilot", "--no-log"], { input, cwd: sb.project });

  it("has a fixture for each event kind tested here, each a Copilot CLI event qhooks maps", () => {
    const files = readdirSync(FIXTURES).map((f) => f.replace(/\.json$/, ""));
    expect(files.sort()).to.deep.equal(KINDS.map(([name]) => name).sort());
    for (const [name, event] of KINDS) expect(COPILOT_EVENT_NAMES.toQhooks.get(name), name).to.equal(event);
  });

  for (const [name, event, tool] of KINDS) {
    it(`${name}: judged as ${event} by the repository's .github/hooks/*.json; the hook gets Copilot CLI's payload`, async () => {
      sb.file(repoFile(), { version: 1, hooks: { [name]: [{ type: "command", bash: "cat > got.json", timeoutSec: 10 }] } });
      const r = await run(name, "json");
      const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
      expect([outcome.event, outcome.hooks.map((h) => h.outcome)], r.stderr).to.deep.equal([event, ["success"]]);
      expect(r.stderr).to.equal("");
      // Copilot CLI's own fields as sent (qhooks adds the event's name, as for every host).
      const got = JSON.parse(readFileSync(join(sb.project, "got.json"), "utf8")) as Record<string, unknown>;
      expect(got).to.deep.include(JSON.parse(fixture(name)) as Record<string, unknown>);
      // Copilot CLI names the event in the notification payload itself (`Notification`); qhooks adds it elsewhere.
      expect(got.hook_event_name).to.equal((JSON.parse(fixture(name)) as { hook_event_name?: string }).hook_event_name ?? name);
      if (tool) expect(copilotPayload(JSON.parse(fixture(name)) as Record<string, unknown>).tool_name).to.equal(tool);
    });
  }

  it("preToolUse end to end: a guard's permissionDecision deny is Copilot CLI's answer; every *.json of the folder loads, in name order", async () => {
    sb.file(repoFile("a-log.json"), { version: 1, hooks: { preToolUse: [{ type: "command", bash: "cat >/dev/null" }] } });
    sb.file(repoFile("b-guard.json"), {
      version: 1,
      hooks: {
        preToolUse: [
          {
            type: "command",
            bash: `grep -q -- '--force' && echo '{"permissionDecision":"deny","permissionDecisionReason":"no force pushes"}'; exit 0`,
            timeoutSec: 15,
          },
        ],
      },
    });
    const r = await run("preToolUse", "hook");
    expect([r.code, r.stderr]).to.deep.equal([0, ""]);
    expect(JSON.parse(r.stdout)).to.deep.equal({ permissionDecision: "deny", permissionDecisionReason: "no force pushes" });
    const listed = JSON.parse((await sb.run(["hooks", "--dialect", "copilot", "--json"], { cwd: sb.project })).stdout) as {
      hooks: { file: string; timeoutSeconds: number }[];
    };
    expect(listed.hooks.map((h) => [h.file, h.timeoutSeconds])).to.deep.equal([
      [".github/hooks/a-log.json", 30],
      [".github/hooks/b-guard.json", 15],
    ]);
  });

  it("cwd and env of an entry apply to its command; another event's answer is empty (Copilot CLI reads only preToolUse's)", async () => {
    sb.file(join(sb.project, "scripts", "x"), "");
    sb.file(repoFile(), {
      version: 1,
      hooks: { agentStop: [{ type: "command", bash: 'cat >/dev/null; pwd > ../where; echo "$STAGE" >> ../where', cwd: "scripts", env: { STAGE: "ci" } }] },
    });
    const r = await run("agentStop", "hook");
    expect([r.code, r.stdout, r.stderr]).to.deep.equal([0, "", ""]);
    expect(readFileSync(join(sb.project, "where"), "utf8").split("\n").slice(-2)[0]).to.equal("ci");
  });

  it("an unknown version is one warning naming the file, and its hooks load; errorOccurred one warning naming file and event", async () => {
    sb.file(join(sb.home, ".copilot", "hooks", "mine.json"), {
      version: 2,
      hooks: { agentStop: [{ type: "command", bash: "echo user" }], errorOccurred: [{ type: "command", bash: "echo err" }] },
    });
    const r = await sb.run(["hooks", "--dialect", "copilot", "--json"], { cwd: sb.project });
    const listed = JSON.parse(r.stdout) as { hooks: { command: string; event: string }[]; warnings: string[] };
    expect(listed.hooks.map((h) => [h.event, h.command])).to.deep.equal([["Stop", "echo user"]]);
    expect(listed.warnings).to.deep.equal([
      "~/.copilot/hooks/mine.json: version: 2 is not a Copilot CLI hooks version qhooks knows (1); its hooks are read as version 1's",
      "~/.copilot/hooks/mine.json: hooks.errorOccurred: Copilot CLI event with no qhooks equivalent; its hooks are skipped",
    ]);
  });

  it("a repository's disableAllHooks switches off the repository's hooks, never the user's own", () => {
    sb.file(join(sb.home, ".copilot", "hooks", "guard.json"), { version: 1, hooks: { preToolUse: [{ type: "command", bash: "guard.sh" }] } });
    sb.file(repoFile(), { version: 1, disableAllHooks: true, hooks: { preToolUse: [{ type: "command", bash: "repo.sh" }] } });
    const snapshot = loadSettings(discoverSettings(sb.home, sb.project, "copilot"));
    expect(snapshot.hooks.map((h) => h.command)).to.deep.equal(["guard.sh"]);
    expect(snapshot.disabled.map((d) => d.hook.command)).to.deep.equal(["repo.sh"]);
  });

  it("qhooks hooks with no --dialect finds Copilot CLI by its .github/hooks folder, whatever the file's name", async () => {
    sb.file(repoFile("guards.json"), { version: 1, hooks: { agentStop: [{ type: "command", bash: "true" }] } });
    const r = await sb.run(["hooks", "--json"], { cwd: sb.project });
    expect((JSON.parse(r.stdout) as { dialect: string }).dialect, r.stderr).to.equal("copilot");
  });

  it("copilotHookEntry: an entry is a group of one command hook; timeoutSec is its timeout; a group passes as it is", () => {
    const warned: string[] = [];
    const warn = (key: string, message: string) => warned.push(`${key}: ${message}`);
    expect(copilotHookEntry("preToolUse", { type: "command", bash: "g.sh", powershell: "g.ps1", timeoutSec: 5, colour: "red" }, warn)).to.deep.equal({
      hooks: [{ type: "command", command: "g.sh", timeout: 5 }],
    });
    expect(warned).to.deep.equal(["colour: unknown key, ignored"]);
    expect(copilotHookEntry("preToolUse", { type: "command", bash: "g.sh", cwd: "it's", env: { A: "1", "bad name": "x" } }, warn)).to.deep.equal({
      hooks: [{ type: "command", command: `cd 'it'\\''s' && export A='1'; g.sh` }],
    });
    const group = { hooks: [{ type: "command", command: "x" }] };
    expect(copilotHookEntry("preToolUse", group, warn)).to.equal(group);
  });

  it("copilotHookEntry: command and exec with args stand in for bash, timeout for timeoutSec; http posts; a prompt entry is warned of", () => {
    const warned: string[] = [];
    const warn = (key: string, message: string) => warned.push(`${key}: ${message}`);
    expect(copilotHookEntry("postToolUse", { command: "log.sh", timeout: 9 }, warn)).to.deep.equal({
      hooks: [{ type: "command", command: "log.sh", timeout: 9 }],
    });
    expect(copilotHookEntry("postToolUse", { type: "command", exec: "/usr/bin/guard", args: ["--mode", "it's strict"] }, warn)).to.deep.equal({
      hooks: [{ type: "command", command: `'/usr/bin/guard' '--mode' 'it'\\''s strict'` }],
    });
    expect(
      copilotHookEntry("postToolUse", { type: "http", url: "https://hooks.example/c", headers: { "X-Source": "cli" }, timeoutSec: 4 }, warn),
    ).to.deep.equal({ hooks: [{ type: "http", url: "https://hooks.example/c", headers: { "X-Source": "cli" }, timeout: 4 }] });
    expect(warned).to.deep.equal([]);
    expect(copilotHookEntry("sessionStart", { type: "prompt", prompt: "/plan" }, warn)).to.deep.equal({ hooks: [] });
    expect(warned).to.have.length(1);
    expect(warned[0]).to.match(/^type: a prompt entry .* skipped$/);
  });

  it("reads administrators' policy folder first, then the user's, then the repository's", () => {
    const levels = discoverSettings(sb.home, sb.project, "copilot");
    expect(levels.map((l) => [l.level, l.display])).to.deep.equal([
      ["system-defaults", "/etc/github-copilot/policy.d/policy.json"],
      ["user", "~/.copilot/hooks/hooks.json"],
      ["user", "~/.copilot/settings.json"],
      ["project", ".github/hooks/hooks.json"],
      ["project", ".github/copilot/settings.json"],
      ["project", ".claude/settings.json"],
      ["local", ".github/copilot/settings.local.json"],
      ["local", ".claude/settings.local.json"],
    ]);
  });

  it("copilotDocumentWarnings: only a version other than 1", () => {
    expect(copilotDocumentWarnings({ version: 1 })).to.deep.equal([]);
    expect(copilotDocumentWarnings({})).to.deep.equal([]);
    expect(copilotDocumentWarnings({ version: "1" }).map((w) => w.key)).to.deep.equal(["version"]);
  });

  it("copilotAnswer: allow and ask carry their reason; a block without one names qhooks; a prompt's answer is empty", () => {
    expect(JSON.parse(copilotAnswer(outcomeOf("PreToolUse", { decision: "ask", reason: "prod host" })).stdout)).to.deep.equal({
      permissionDecision: "ask",
      permissionDecisionReason: "prod host",
    });
    expect(JSON.parse(copilotAnswer(outcomeOf("PreToolUse", { decision: "deny", blocked: true })).stdout)).to.deep.equal({
      permissionDecision: "deny",
      permissionDecisionReason: "blocked by qhooks (preToolUse)",
    });
    expect(copilotAnswer(outcomeOf("UserPromptSubmit", { decision: "block", blocked: true, reason: "no" }))).to.deep.equal({
      exitCode: 0,
      stdout: "",
      stderr: "",
    });
    expect(copilotAnswer(outcomeOf("SessionEnd", {}))).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("copilotAnswer: a stop blocked is decision block with the reason as the next prompt; a permission request is behavior; a rewrite is modifiedArgs", () => {
    for (const event of ["Stop", "SubagentStop"] as const)
      expect(JSON.parse(copilotAnswer(outcomeOf(event, { decision: "block", blocked: true, reason: "tests fail" })).stdout)).to.deep.equal({
        decision: "block",
        reason: "tests fail",
      });
    expect(JSON.parse(copilotAnswer(outcomeOf("PermissionRequest", { decision: "deny", blocked: true, reason: "not here" })).stdout)).to.deep.equal({
      behavior: "deny",
      message: "not here",
    });
    expect(
      JSON.parse(copilotAnswer(outcomeOf("PermissionRequest", { decision: "deny", blocked: true, reason: "stop", continue: false })).stdout),
    ).to.deep.equal({ behavior: "deny", message: "stop", interrupt: true });
    expect(JSON.parse(copilotAnswer(outcomeOf("PermissionRequest", { decision: "allow" })).stdout)).to.deep.equal({ behavior: "allow" });
    expect(JSON.parse(copilotAnswer(outcomeOf("PreToolUse", { decision: "allow", updatedInput: { command: "ls -la" } })).stdout)).to.deep.equal({
      permissionDecision: "allow",
      modifiedArgs: { command: "ls -la" },
    });
    expect(JSON.parse(copilotAnswer(outcomeOf("PostToolUse", { additionalContext: ["lint: 2 warnings"] })).stdout)).to.deep.equal({
      additionalContext: "lint: 2 warnings",
    });
  });

  it("copilotHookOutput: permissionDecision is the PreToolUse decision; other output passes", () => {
    expect(copilotHookOutput("PreToolUse", { permissionDecision: "deny", permissionDecisionReason: "no" })).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" },
    });
    expect(copilotHookOutput("PostToolUse", { permissionDecision: "deny" })).to.deep.equal({ permissionDecision: "deny" });
    expect(copilotHookOutput("PreToolUse", "text")).to.equal("text");
  });

  it("copilotHookOutput: modifiedArgs, a permission request's behavior, additionalContext and a stop's allow read in Claude Code's shape", () => {
    expect(copilotHookOutput("PreToolUse", { permissionDecision: "allow", modifiedArgs: { command: "ls" } })).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "ls" } },
    });
    expect(copilotHookOutput("PermissionRequest", { behavior: "deny", message: "no", interrupt: true })).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no", interrupt: true } },
    });
    expect(copilotHookOutput("SessionStart", { additionalContext: "on branch main" })).to.deep.equal({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "on branch main" },
    });
    expect(copilotHookOutput("Stop", { decision: "allow" })).to.deep.equal({});
    expect(copilotHookOutput("SubagentStop", { decision: "block", reason: "again" })).to.deep.equal({ decision: "block", reason: "again" });
  });

  it("permissionRequest end to end: a guard's behavior deny (or exit 2) is Copilot CLI's deny, with the message", async () => {
    sb.file(repoFile(), {
      version: 1,
      hooks: { permissionRequest: [{ type: "command", matcher: "bash", bash: `cat >/dev/null; echo '{"behavior":"deny","message":"no publishing"}'` }] },
    });
    const r = await run("permissionRequest", "hook");
    expect([r.code, r.stderr]).to.deep.equal([0, ""]);
    expect(JSON.parse(r.stdout)).to.deep.equal({ behavior: "deny", message: "no publishing" });
  });

  it("agentStop end to end: a guard's decision block keeps the agent going with its reason", async () => {
    sb.file(repoFile(), {
      version: 1,
      hooks: { agentStop: [{ type: "command", bash: `cat >/dev/null; echo '{"decision":"block","reason":"run the tests first"}'` }] },
    });
    // With the log, whose Stop-loop guard lets a block through (without it qhooks warns that the guard is off).
    const r = await sb.run(["run", "agentStop", "--format", "hook", "--dialect", "copilot"], { input: fixture("agentStop"), cwd: sb.project });
    expect([r.code, r.stderr]).to.deep.equal([0, ""]);
    expect(JSON.parse(r.stdout)).to.deep.equal({ decision: "block", reason: "run the tests first" });
  });

  it("matcher: read as a whole-name regex on the events Copilot CLI reads it on; elsewhere one warning", async () => {
    sb.file(repoFile(), {
      version: 1,
      hooks: {
        preToolUse: [
          { type: "command", matcher: "edit|create", bash: "echo edits" },
          { type: "command", matcher: "ba.*", bash: "echo shells" },
        ],
        sessionEnd: [{ type: "command", matcher: "x", bash: "echo end" }],
      },
    });
    const listed = JSON.parse((await sb.run(["hooks", "--dialect", "copilot", "--json"], { cwd: sb.project })).stdout) as {
      hooks: { command: string; matcher: string | null }[];
      warnings: string[];
    };
    expect(listed.hooks.map((h) => [h.command, h.matcher])).to.deep.equal([
      ["echo edits", "edit|create"],
      ["echo shells", "^(?:ba.*)$"],
      ["echo end", null],
    ]);
    expect(listed.warnings).to.deep.equal([
      ".github/hooks/guards.json: hooks.sessionEnd[0].matcher: not read on sessionEnd: Copilot CLI runs its hooks for every sessionEnd event",
    ]);
    const r = await run("preToolUse", "json");
    const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
    expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["echo shells"]);
  });

  it("copilotPayload: toolArgs text is the tool input, sessionId the session (a fixed one when absent); a Claude-shaped payload passes", () => {
    const pre = copilotPayload(JSON.parse(fixture("preToolUse")) as Record<string, unknown>);
    expect([pre.session_id, pre.tool_name, pre.tool_input]).to.deep.equal([
      "cp-51e2",
      "bash",
      { command: "git push --force origin main", description: "Push the branch" },
    ]);
    expect(copilotPayload({ cwd: "/x", toolName: "view", toolArgs: { path: "a" } })).to.include({ session_id: COPILOT_UNKNOWN_SESSION });
    expect(copilotPayload({ toolArgs: "not json" }).tool_input).to.deep.equal({});
    const claude = { session_id: "s", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/x" };
    expect(copilotPayload(claude)).to.deep.equal(claude);
  });
});
