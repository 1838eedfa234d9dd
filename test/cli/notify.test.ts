import { expect } from "chai";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EventName } from "../../src/schema/events.js";
import { HOOK_OUTPUT_SCHEMAS } from "../../src/schema/hookOutput.js";
import { hookCommand } from "../decisions/helpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/**
 * Failures reach the person: with `--format hook`, a hook that failed, timed out, printed invalid output or did not
 * run for a reason to act on adds one notice line in the host's answer (Claude Code: `systemMessage`), the decision
 * unchanged; once per session. Real `qhooks` processes, a temporary HOME, Claude Code's own settings files.
 */
describe("--format hook: failures reach the person", function () {
  this.timeout(20_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const userFile = (settings: Json) => sb.file(join(sb.home, ".claude", "settings.json"), settings);
  const projectFile = (settings: Json) => sb.file(join(sb.project, ".claude", "settings.json"), settings);
  const hooksOn = (event: string, ...commands: (string | Json)[]): Json => ({ hooks: { [event]: [group(undefined, ...commands)] } });

  /** One event through `qhooks run --format hook --dialect claude`, with the log on (the session's notice file beside it). */
  async function run(event: string, payload: Json = payloadFor(event), args: string[] = ["--dialect", "claude"]) {
    const r = await sb.run(["run", event, "--format", "hook", ...args], { input: JSON.stringify(payload), env: { CLAUDE_PROJECT_DIR: sb.project } });
    const reply = r.stdout.trim().startsWith("{") ? (JSON.parse(r.stdout) as Json) : null;
    if (reply !== null) {
      const check = HOOK_OUTPUT_SCHEMAS[event as EventName].safeParse(reply);
      expect(check.success, `the reply is valid ${event} hook output: ${r.stdout}`).to.equal(true);
    }
    return { ...r, reply };
  }

  const failures: ReadonlyArray<readonly [string, () => Json, RegExp]> = [
    [
      "exit 1",
      () => ({ name: "lint.sh", command: hookCommand(sb, { stderr: "boom: config missing\nsecond line\n", exit: 1 }) }),
      /^qhooks: hook "lint\.sh" failed \(exit 1: boom: config missing\)$/,
    ],
    [
      "exit 127 (a missing script)",
      () => ({ command: "./guard.sh" }),
      /^qhooks: hook "guard\.sh" failed \(exit 127: command not found \(.*guard\.sh.*not found\)\)$/,
    ],
    [
      "invalid JSON",
      () => ({ name: "fmt", command: "echo '{\"decision\": '" }),
      /^qhooks: hook "fmt" failed \(stdout starts with \{ but is not valid JSON \(.*\)\)$/,
    ],
    ["a timeout", () => ({ name: "slow", command: "sleep 5", timeout: 1 }), /^qhooks: hook "slow" failed \(timed out after 1 s\)$/],
  ];
  for (const [what, hook, says] of failures) {
    it(`a hook with ${what}: one systemMessage line naming it, the allow of its sibling unchanged`, async () => {
      const allow = hookCommand(sb, {
        stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "ok" } }),
      });
      userFile(hooksOn("PreToolUse", allow, hook()));
      const r = await run("PreToolUse");
      expect(r.code, r.stderr).to.equal(0);
      expect(r.reply, r.stdout).to.not.equal(null);
      expect(r.reply!.systemMessage).to.match(says);
      expect(r.reply!.hookSpecificOutput).to.deep.equal({ hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "ok" });
    });
  }

  it("a failing hook alone: the answer is the notice and no decision (the tool call goes ahead, as before)", async () => {
    userFile(hooksOn("PostToolUse", { command: "exit 3" }));
    const r = await run("PostToolUse");
    expect(r.code).to.equal(0);
    expect(r.reply).to.deep.equal({ systemMessage: 'qhooks: hook "exit 3" failed (exit 3)' });
  });

  it("a project hook skipped as untrusted under requireTrust: the notice says it did not run and how to trust it", async () => {
    userFile({ qhooks: { requireTrust: true } });
    projectFile(hooksOn("PreToolUse", { name: "guard", command: "exit 2" }));
    const r = await run("PreToolUse");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply!.systemMessage).to.match(/^qhooks: hook "guard" did not run \(new, not trusted yet; review it, then run: qhooks trust/);
    expect(r.reply).to.not.have.property("hookSpecificOutput");
  });

  it("a blocking guard beside a failing sibling still blocks: the JSON form with the deny and its reason inside, and the notice", async () => {
    userFile(hooksOn("PreToolUse", hookCommand(sb, { stderr: "rm -rf is not allowed", exit: 2 }), { name: "audit", command: "exit 1" }));
    const r = await run("PreToolUse");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({
      systemMessage: 'qhooks: hook "audit" failed (exit 1)',
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "rm -rf is not allowed" },
    });
  });

  it("a Stop block beside a failing sibling: decision block with its reason, and the notice", async () => {
    userFile(hooksOn("Stop", hookCommand(sb, { stderr: "tests fail", exit: 2 }), { name: "notify.sh", command: "exit 1" }));
    const r = await run("Stop");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({ systemMessage: 'qhooks: hook "notify.sh" failed (exit 1)', decision: "block", reason: "tests fail" });
  });

  it("on an event that takes a block from exit 2 alone (TaskCompleted), the block stays exit 2 with only its reason", async () => {
    userFile(hooksOn("TaskCompleted", hookCommand(sb, { stderr: "not done", exit: 2 }), { command: "exit 1" }));
    const r = await run("TaskCompleted");
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal("");
    expect(r.stderr).to.equal("not done\n");
  });

  it("onFailure: block: the failure blocks, and the notice says why", async () => {
    userFile(hooksOn("PreToolUse", { name: "guard", command: "./missing-guard.sh", onFailure: "block" }));
    const r = await run("PreToolUse");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply!.systemMessage).to.match(/^qhooks: hook "guard" failed \(exit 127: .*\), and blocks \(onFailure: "block"\)$/);
    expect((r.reply!.hookSpecificOutput as Json).permissionDecision).to.equal("deny");
  });

  it("a plugin enabled but not installed: one notice that its hooks do not run", async () => {
    userFile({ enabledPlugins: { "guard-kit@team": true } });
    const r = await run("UserPromptSubmit");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({ systemMessage: 'qhooks: plugin "guard-kit@team" not loaded (enabled, but not installed); its hooks do not run' });
  });

  it("once per session: the second event of the session says nothing, another session is told again", async () => {
    userFile(hooksOn("PreToolUse", { name: "guard", command: "exit 1" }));
    const first = await run("PreToolUse");
    expect(first.reply).to.deep.equal({ systemMessage: 'qhooks: hook "guard" failed (exit 1)' });
    const second = await run("PreToolUse");
    expect(second.code).to.equal(0);
    expect(second.stdout).to.equal("");
    const other = await run("PreToolUse", payloadFor("PreToolUse", { session_id: "s2" }));
    expect(other.reply).to.deep.equal({ systemMessage: 'qhooks: hook "guard" failed (exit 1)' });
    // The count lives in one private file per session, beside the log (never in the project).
    const dir = join(sb.root, "notices");
    const files = readdirSync(dir);
    expect(files).to.have.length(2);
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).to.equal(0o600);
    expect(readdirSync(sb.project)).to.deep.equal([]);
  });

  it("an event whose systemMessage Claude Code discards (Notification) says nothing and does not count the notice as said", async () => {
    userFile({
      hooks: { Notification: [group(undefined, { name: "guard", command: "exit 1" })], PreToolUse: [group(undefined, { name: "guard", command: "exit 1" })] },
    });
    const notification = await run("Notification");
    expect(notification.code).to.equal(0);
    expect(notification.stdout).to.equal("");
    const next = await run("PreToolUse");
    expect(next.reply).to.deep.equal({ systemMessage: 'qhooks: hook "guard" failed (exit 1)' });
  });

  it("qhooks.notify: false in the user's file turns the notices off", async () => {
    userFile({ qhooks: { notify: false }, ...hooksOn("PreToolUse", { command: "exit 1" }) });
    const r = await run("PreToolUse");
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal("");
  });

  it("a project's qhooks.notify: false does not silence the user's notices (one warning says it is ignored)", async () => {
    userFile(hooksOn("PreToolUse", { name: "guard", command: "exit 1" }));
    projectFile({ qhooks: { notify: false } });
    const r = await run("PreToolUse");
    expect(r.reply).to.deep.equal({ systemMessage: 'qhooks: hook "guard" failed (exit 1)' });
    expect(r.stderr).to.contain(".claude/settings.json: qhooks.notify: read only from your own settings");
  });

  it("the user's notify: true stands against a project's false, and a --settings file of the user's own decides", async () => {
    userFile({ qhooks: { notify: true }, ...hooksOn("PreToolUse", { name: "guard", command: "exit 1" }) });
    projectFile({ qhooks: { notify: false } });
    expect((await run("PreToolUse")).reply).to.deep.equal({ systemMessage: 'qhooks: hook "guard" failed (exit 1)' });
    const own = sb.file("guards.json", { qhooks: { notify: false }, ...hooksOn("PreToolUse", { command: "exit 1" }) });
    const quiet = await run("PreToolUse", payloadFor("PreToolUse", { session_id: "s9" }), ["--dialect", "claude", "--settings", own]);
    expect(quiet.code).to.equal(0);
    expect(quiet.stdout).to.equal("");
  });

  it("a qhooks.notify that is not true or false is one warning, and the notices stay on", async () => {
    userFile({ qhooks: { notify: "no" }, ...hooksOn("PreToolUse", { name: "guard", command: "exit 1" }) });
    const r = await run("PreToolUse");
    expect(r.reply).to.deep.equal({ systemMessage: 'qhooks: hook "guard" failed (exit 1)' });
    expect(r.stderr).to.contain("qhooks.notify: expected true or false; ignored");
  });

  it("a hook over qhooks.budget.msPerTurn: one systemMessage line once per session, the decision unchanged; notify: false silences it", async () => {
    const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "ok" } });
    userFile({ qhooks: { budget: { msPerTurn: 50 } }, ...hooksOn("PreToolUse", { name: "slow", command: `sleep 0.3; echo '${allow}'` }) });
    const first = await run("PreToolUse");
    expect(first.code, first.stderr).to.equal(0);
    expect(first.reply!.systemMessage).to.match(
      /^qhooks: hook slow \(user\) added \d+(\.\d+)? ms to a turn, over its budget of 50 ms \(qhooks\.budget\.msPerTurn\)$/,
    );
    expect(first.reply!.hookSpecificOutput).to.deep.equal({ hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "ok" });
    const second = await run("PreToolUse");
    expect(second.reply).to.not.have.property("systemMessage");
    expect(second.reply!.hookSpecificOutput).to.deep.include({ permissionDecision: "allow" });
    userFile({ qhooks: { notify: false, budget: { msPerTurn: 50 } }, ...hooksOn("PreToolUse", { name: "slow", command: "sleep 0.3" }) });
    const quiet = await run("PreToolUse", payloadFor("PreToolUse", { session_id: "s9" }));
    expect(quiet.stdout).to.equal("");
  });

  it("a project cannot loosen your hook's qhooks.budget: its own budget is ignored, and a hook it adds that takes your hook's short name leaves your limit on it", async () => {
    const yours = sb.file(join(sb.home, "hooks", "check.sh"), "sleep 0.3\n", 0o755);
    userFile({ qhooks: { budget: { hooks: { "check.sh": { msPerTurn: 50 } } } }, ...hooksOn("PreToolUse", { command: `bash ${yours}` }) });
    // The project's own check.sh: two hooks of that short name, so each is named by its command; and a budget of its own.
    sb.file(join(sb.project, ".claude", "check.sh"), "exit 0\n", 0o755);
    projectFile({
      qhooks: { budget: { hooks: { "check.sh": { msPerTurn: 600_000 } }, msPerTurn: 600_000 } },
      ...hooksOn("PreToolUse", { command: "bash .claude/check.sh" }),
    });
    const r = await run("PreToolUse");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.contain(".claude/settings.json: qhooks.budget: read only from your own settings");
    // Your limit applies to both hooks of that short name now (the project's may cross it too on a slow machine).
    const lines = String(r.reply!.systemMessage).split("\n");
    expect(lines.filter((l) => l.includes("(user)"))).to.have.length(1);
    expect(lines.find((l) => l.includes("(user)"))).to.match(
      new RegExp(
        `^qhooks: hook bash ${yours.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\(user\\) added \\d+(\\.\\d+)? ms to a turn, over its budget of 50 ms \\(qhooks\\.budget\\.msPerTurn\\)$`,
      ),
    );
  });

  it("a hook within its budget says nothing", async () => {
    userFile({ qhooks: { budget: { msPerTurn: 60_000 } }, ...hooksOn("PreToolUse", { name: "quick", command: "true" }) });
    const r = await run("PreToolUse");
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal("");
  });

  describe("the qoder dialect (Qoder CN CLI shows the person only the stderr of a block)", () => {
    it("a block: exit 2, the reason, then the notice on stderr", async () => {
      const file = sb.file("guards.json", hooksOn("PreToolUse", hookCommand(sb, { stderr: "no rm", exit: 2 }), { name: "audit", command: "exit 1" }));
      const r = await run("PreToolUse", payloadFor("PreToolUse"), ["--settings", file]);
      expect(r.code).to.equal(2);
      expect(r.stdout).to.equal("");
      expect(r.stderr).to.equal('no rm\nqhooks: hook "audit" failed (exit 1)\n');
    });

    it("no block: the answer stays an empty exit 0, as Qoder has no line to show it in (the log has the failure)", async () => {
      const file = sb.file("guards.json", hooksOn("PreToolUse", { name: "audit", command: "exit 1" }));
      const r = await run("PreToolUse", payloadFor("PreToolUse"), ["--settings", file]);
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal("");
    });
  });
});
