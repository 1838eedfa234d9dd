import { expect } from "chai";
import { toHookProtocol } from "../../src/output/hookProtocol.js";
import { HOOK_OUTPUT_SCHEMAS } from "../../src/schema/hookOutput.js";
import type { EventName } from "../../src/schema/events.js";
import { hookCommand, jsonHook, settingsFor, withoutWarnings, type Json } from "../decisions/helpers.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/**
 * `--format hook` loses nothing: when the outcome carries more than exit 2 and stderr can say, qhooks answers in
 * Claude Code's JSON form (exit 0, the decision inside), so that the user sees the message and the model the reason.
 */
describe("--format hook: everything the hooks said reaches the agent", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /** `qhooks run <event> --format hook` with these hooks in a --settings file; the reply, parsed when it is JSON. */
  async function run(event: string, commands: (string | Json)[], payload: Json = payloadFor(event)) {
    const settings = sb.file(`s-${event}-${Math.random().toString(36).slice(2)}.json`, settingsFor(event, ...commands));
    const r = await sb.runEvent(event, payload, ["--format", "hook", "--settings", settings, "--no-log"]);
    const reply = r.stdout.trim().startsWith("{") ? (JSON.parse(r.stdout) as Json) : null;
    if (reply !== null) {
      const check = HOOK_OUTPUT_SCHEMAS[event as EventName].safeParse(reply);
      expect(check.success, `the reply is valid ${event} hook output: ${r.stdout}`).to.equal(true);
    }
    return { ...r, reply };
  }
  /** The same through the library and the protocol writer: cheaper, for the many-events cases. */
  async function reply(event: string, commands: (string | Json)[]) {
    const settings = sb.file(`b-${event}-${Math.random().toString(36).slice(2)}.json`, settingsFor(event, ...commands));
    const outcome = await sb.bus({ watch: false, settingsFiles: [settings] }).dispatch({ ...payloadFor(event), hook_event_name: event });
    return toHookProtocol(outcome);
  }

  it("a loop Stop hook (ralph-wiggum's output form): block, its prompt as the reason and its iteration line for the user", async () => {
    // Prints what Anthropic's ralph-wiggum stop hook prints: the prompt back as the reason, an iteration notice.
    const hook = sb.script(
      "ralph-stop.sh",
      `cat > /dev/null
printf '%s' '{"decision":"block","reason":"Build the parser. Output <promise>DONE</promise> when the tests pass.","systemMessage":"🔄 Ralph iteration 4 | To stop: output <promise>DONE</promise>"}'`,
    );
    const r = await run("Stop", [hook]);
    expect(r.code, r.stderr).to.equal(0);
    expect(withoutWarnings(r.stderr)).to.equal("");
    expect(r.reply).to.deep.equal({
      decision: "block",
      reason: "Build the parser. Output <promise>DONE</promise> when the tests pass.",
      systemMessage: "🔄 Ralph iteration 4 | To stop: output <promise>DONE</promise>",
    });
  });

  it("a rule engine's deny with its explanation as a systemMessage (hookify's output form) keeps the explanation", async () => {
    const explanation = "**[no-rm-rf]**\nDeleting directories recursively is not allowed here; use trash-cli.";
    const hookify = jsonHook(sb, { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" }, systemMessage: explanation });
    const r = await run("PreToolUse", [{ command: hookify, name: "hookify" }], payloadFor("PreToolUse", { tool_input: { command: "rm -rf build" } }));
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({
      systemMessage: explanation,
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "blocked by hook hookify (no reason given)" },
    });
  });

  it("an exit-2 block beside another hook's system message or context is answered in JSON with the reason inside", async () => {
    const r = await run("PostToolUse", [
      hookCommand(sb, { stderr: "lint failed: 3 errors\n", exit: 2 }),
      jsonHook(sb, { systemMessage: "formatter ran", hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "the file is generated" } }),
    ]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({
      systemMessage: "formatter ran",
      decision: "block",
      reason: "lint failed: 3 errors",
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "the file is generated" },
    });
  });

  it("a plain block (a reason and nothing else) stays exit 2 with the reason on stderr", async () => {
    const r = await run("UserPromptSubmit", [jsonHook(sb, { decision: "block", reason: "the prompt holds a key" })]);
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal("");
    expect(withoutWarnings(r.stderr)).to.equal("the prompt holds a key\n");
  });

  it("a PermissionRequest denial is always JSON (Claude Code ignores exit 2 there), with its message", async () => {
    const r = await run("PermissionRequest", [hookCommand(sb, { stderr: "no network tools\n", exit: 2 })]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no network tools" } } });
  });

  it("PermissionRequest allow passes on the updatedPermissions of the hook that allowed", async () => {
    const rule = [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "session" }];
    const r = await run("PermissionRequest", [
      jsonHook(sb, { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: rule } } }),
    ]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.reply).to.deep.equal({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: rule } } });
  });

  it("event-specific fields qhooks does not interpret are passed on, the later hook winning", async () => {
    const cases: ReadonlyArray<readonly [string, Json, Json]> = [
      ["SessionStart", { sessionTitle: "first", watchPaths: ["/p/.envrc"] }, { sessionTitle: "auth-refactor", reloadSkills: true }],
      ["MessageDisplay", { displayContent: "plain text one" }, { displayContent: "plain text two" }],
      ["PermissionDenied", { retry: false }, { retry: true }],
      ["Elicitation", { action: "decline" }, { action: "accept", content: { username: "alice" } }],
      ["UserPromptSubmit", { sessionTitle: "from the prompt" }, { suppressOriginalPrompt: true }],
      ["PostToolUse", { updatedToolOutput: { stdout: "[redacted]", stderr: "" } }, { classifierContext: "staging database" }],
      ["CwdChanged", { watchPaths: [] }, { watchPaths: ["/p/src/.envrc"] }],
    ];
    for (const [event, first, second] of cases) {
      const got = await reply(event, [
        jsonHook(sb, { hookSpecificOutput: { hookEventName: event, ...first } }),
        jsonHook(sb, { hookSpecificOutput: { hookEventName: event, ...second } }),
      ]);
      expect(got.exitCode, event).to.equal(0);
      expect(JSON.parse(got.stdout), event).to.deep.equal({ hookSpecificOutput: { hookEventName: event, ...first, ...second } });
    }
  });

  it("terminalSequence is passed on; output of a hook whose JSON was invalid is not", async () => {
    const got = await reply("Notification", [
      jsonHook(sb, { terminalSequence: "\u001b]777;notify;Claude Code;needs you\u0007" }),
      jsonHook(sb, { terminalSequence: 5, systemMessage: "ignored: the JSON breaks the schema" }),
    ]);
    expect(JSON.parse(got.stdout)).to.deep.equal({ terminalSequence: "\u001b]777;notify;Claude Code;needs you\u0007" });
  });

  it("a block whose agent takes no JSON decision stays exit 2 whatever else was said (TaskCompleted, TeammateIdle, elicitations)", async () => {
    for (const event of ["TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult"]) {
      const got = await reply(event, [hookCommand(sb, { stderr: `tests failing (${event})\n`, exit: 2 }), jsonHook(sb, { systemMessage: "note" })]);
      expect(got, event).to.deep.equal({ exitCode: 2, stdout: "", stderr: `tests failing (${event})` });
    }
  });

  it("WorktreeCreate: the path a hook printed is the reply; a block fails the creation with exit 2", async () => {
    const made = await run("WorktreeCreate", [
      hookCommand(sb, { stdout: "Cloning...\n/home/u/wt/bold-oak-a3f2\n" }),
      jsonHook(sb, { systemMessage: "not a path" }),
    ]);
    expect(made.code, made.stderr).to.equal(0);
    expect(made.stdout).to.equal("/home/u/wt/bold-oak-a3f2\n");
    const refused = await run("WorktreeCreate", [hookCommand(sb, { stderr: "no worktrees in CI\n", exit: 2 }), hookCommand(sb, { stdout: "/tmp/x\n" })]);
    expect(refused.code).to.equal(2);
    expect(refused.stdout).to.equal("");
    expect(withoutWarnings(refused.stderr)).to.equal("no worktrees in CI\n");
  });

  it("PreModelSwitch: deny, ask and allow go out as permissionDecision, a plain deny as exit 2", async () => {
    const pre = (fields: Json) => jsonHook(sb, { hookSpecificOutput: { hookEventName: "PreModelSwitch", ...fields } });
    const asked = await run("PreModelSwitch", [pre({ permissionDecision: "ask", permissionDecisionReason: "re-sends 180k tokens" })]);
    expect(asked.code).to.equal(0);
    expect(asked.reply).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PreModelSwitch", permissionDecision: "ask", permissionDecisionReason: "re-sends 180k tokens" },
    });
    const denied = await run("PreModelSwitch", [hookCommand(sb, { stderr: "Opus 4.6 is retired here\n", exit: 2 })]);
    expect(denied.code).to.equal(2);
    expect(withoutWarnings(denied.stderr)).to.equal("Opus 4.6 is retired here\n");
    const costed = await run("PreModelSwitch", [
      pre({ permissionDecision: "deny", permissionDecisionReason: "too expensive" }),
      jsonHook(sb, { systemMessage: "switch would cost $1.14" }),
    ]);
    expect(costed.code).to.equal(0);
    expect(costed.reply).to.deep.equal({
      systemMessage: "switch would cost $1.14",
      hookSpecificOutput: { hookEventName: "PreModelSwitch", permissionDecision: "deny", permissionDecisionReason: "too expensive" },
    });
  });
});
