import { expect } from "chai";
import { toHookProtocol } from "../../src/output/hookProtocol.js";
import { HOOK_OUTPUT_SCHEMAS } from "../../src/schema/hookOutput.js";
import type { EventName } from "../../src/schema/events.js";
import { EVENTS, EXIT2_DECISION, STDOUT_IS_CONTEXT, hookCommand, jsonHook, markerHook, settingsFor, withoutWarnings, type Json } from "../decisions/helpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

const DECISIONS = ["allow", "deny", "ask", "block", "none"];
const HOOK_OUTCOMES = ["success", "block", "error", "invalid-output", "timeout"];

/** Contract 4, 5 and 8 (`--format hook`): `qhooks run` as a process. */
describe("cli: qhooks run", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const nullable = (value: unknown, type: string) => value === null || typeof value === type;

  describe("the outcome JSON", () => {
    it("has every field of contract 4, with the right types, and hooks[] entries in full", async () => {
      sb.userSettings({
        hooks: {
          PreToolUse: [
            group("Bash", { command: hookCommand(sb, { stdout: "out\n", stderr: "Dangerous\n", exit: 2 }), name: "guard" }),
            group("Bash|Write", jsonHook(sb, { systemMessage: "hello", hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "ctx" } })),
            group("Edit", "echo never"),
          ],
        },
      });
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
      expect(r.code).to.equal(2);
      const o = r.outcome!;
      expect(o).to.be.an("object");
      expect(o.event).to.equal("PreToolUse");
      expect(o.sessionId).to.equal("s1");
      expect(o.seq).to.equal(null); // --no-log
      expect(o.decision).to.equal("deny");
      expect(o.blocked).to.equal(true);
      expect(o.reason).to.equal("Dangerous");
      expect(o.continue).to.equal(true);
      expect(o.stopReason).to.equal(null);
      expect(o.systemMessages).to.deep.equal(["hello"]);
      expect(o.additionalContext).to.deep.equal(["ctx"]);
      expect(o.updatedInput).to.equal(null);
      expect(o.configHash).to.be.a("string").and.not.equal("");
      expect(o.durationMs).to.be.a("number").and.at.least(0);
      const hooks = o.hooks as Json[];
      expect(hooks).to.have.length(2);
      for (const h of hooks) {
        expect(h.name).to.be.a("string");
        expect(nullable(h.command, "string")).to.equal(true);
        expect(h.level).to.equal("user");
        expect(nullable(h.matcher, "string")).to.equal(true);
        expect(HOOK_OUTCOMES).to.include(h.outcome);
        expect(DECISIONS).to.include(h.decision);
        expect(nullable(h.reason, "string")).to.equal(true);
        expect(Number.isInteger(h.exitCode)).to.equal(true);
        expect(h.signal).to.equal(null);
        expect(h.timedOut).to.equal(false);
        expect(h.durationMs).to.be.a("number").and.at.least(0);
        expect(h.stdout).to.be.a("string");
        expect(h.stderr).to.be.a("string");
        expect(h.truncated).to.equal(false);
      }
      expect(hooks[0]).to.include({
        name: "guard",
        matcher: "Bash",
        outcome: "block",
        decision: "deny",
        reason: "Dangerous",
        exitCode: 2,
        stdout: "out\n",
        stderr: "Dangerous\n",
      });
      expect(hooks[1]).to.include({ matcher: "Bash|Write", outcome: "success", decision: "none", reason: null, exitCode: 0, stderr: "" });
      expect(hooks[1]!.name).to.equal(hooks[1]!.command);
    });

    it("prints one JSON document, and seq is a number or null with the log on", async () => {
      sb.userSettings(settingsFor("SessionEnd", hookCommand(sb)));
      const r = await sb.runEvent("SessionEnd", payloadFor("SessionEnd"));
      expect(r.code, r.stderr).to.equal(0);
      expect(() => JSON.parse(r.stdout)).not.to.throw();
      expect(nullable(r.outcome!.seq, "number")).to.equal(true);
    });

    it("an event without matching hooks has an empty hooks[] and decision none", async () => {
      const r = await sb.runEvent("PreCompact", payloadFor("PreCompact"), ["--no-log"]);
      expect(r.code).to.equal(0);
      expect(r.outcome).to.deep.include({ event: "PreCompact", decision: "none", blocked: false, hooks: [], reason: null });
    });

    it("blocked: exit 2, the reason on stderr, the outcome still on stdout", async () => {
      sb.userSettings(settingsFor("UserPromptSubmit", hookCommand(sb, { stderr: "prompt contains a secret\n", exit: 2 })));
      const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: "my key is sk-123" }), ["--no-log"]);
      expect(r.code).to.equal(2);
      expect(withoutWarnings(r.stderr)).to.equal("prompt contains a secret\n");
      expect(r.outcome).to.include({ decision: "block", blocked: true, reason: "prompt contains a secret" });
    });
  });

  describe("a malformed deny (issue 25 item 4)", () => {
    it("a guard script printing a deny with a numeric reason blocks: exit 2, the default reason, the defect a warning", async () => {
      // The guard's decision is clear; only its reason has the wrong type. It must not let the command through.
      const guard = sb.script(
        "guard.sh",
        `cat >/dev/null\nprintf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":42}}'`,
      );
      sb.userSettings(settingsFor("PreToolUse", guard));
      for (const format of [[], ["--format", "hook", "--settings", sb.file("guard.json", settingsFor("PreToolUse", guard))]]) {
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }), ["--no-log", ...format]);
        expect(r.code, format.join(" ")).to.equal(2);
        expect(withoutWarnings(r.stderr).trim()).to.equal("blocked by hook guard.sh (no reason given)");
        if (format.length === 0) {
          expect(r.stderr).to.include("permissionDecisionReason: expected a string; read as its deny all the same");
          expect(r.outcome).to.include({ decision: "deny", blocked: true });
          const hook = (r.outcome!.hooks as Json[])[0]!;
          expect(hook).to.include({ outcome: "block", decision: "deny" });
          expect(hook.warnings).to.deep.equal([
            { kind: "malformed-output", message: "stdout JSON: hookSpecificOutput.permissionDecisionReason: expected a string" },
          ]);
        } else {
          // The hook protocol's stderr is the reason the model reads: no warning mixed in (run.ts).
          expect(r.stdout).to.equal("");
          expect(r.stderr.trim()).to.equal("blocked by hook guard.sh (no reason given)");
        }
      }
    });
  });

  describe("--format hook", () => {
    /** Runs `event` with these hooks under `--format hook`; parses stdout when it is not empty. */
    async function hookFormat(event: string, commands: (string | Json)[], payload: Json = payloadFor(event)) {
      const settings = sb.file(`hook-${event}-${Math.random().toString(36).slice(2)}.json`, settingsFor(event, ...commands));
      const r = await sb.runEvent(event, payload, ["--format", "hook", "--settings", settings, "--no-log"]);
      const lines = r.stdout.split("\n").filter((l) => l !== "");
      const reply = lines.length ? (JSON.parse(r.stdout) as Json) : null;
      if (reply !== null) {
        expect(lines, "one JSON object on one line").to.have.length(1);
        // What qhooks answers must be valid hook output for the same event: an agent (or qhooks) can read it.
        const check = HOOK_OUTPUT_SCHEMAS[event as EventName].safeParse(reply);
        expect(check.success, JSON.stringify(check.error?.issues)).to.equal(true);
      }
      return { ...r, reply };
    }
    const pre = (fields: Json) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } });
    /** The same reply computed in-process: a bus outcome from real hooks, through the protocol writer the CLI uses. */
    async function protocolFor(event: string, commands: (string | Json)[]) {
      const settings = sb.file(`bus-${event}-${Math.random().toString(36).slice(2)}.json`, settingsFor(event, ...commands));
      const outcome = await sb.bus({ watch: false, settingsFiles: [settings] }).dispatch({ ...payloadFor(event), hook_event_name: event });
      return toHookProtocol(outcome);
    }

    it("blocked: exit 2, the reason on stderr, nothing on stdout", async () => {
      const r = await hookFormat("PreToolUse", [
        hookCommand(sb, { stderr: "rm -rf is not allowed\n", exit: 2 }),
        jsonHook(sb, pre({ permissionDecision: "allow" })),
      ]);
      expect(r.code).to.equal(2);
      expect(r.stdout).to.equal("");
      expect(withoutWarnings(r.stderr).trim()).to.equal("rm -rf is not allowed");
    });

    it("a plain block on every blockable event but PermissionRequest: exit 2, reason on stderr, empty stdout", async () => {
      const blockable = EXIT2_DECISION.filter(([e, d]) => d !== null && e !== "PermissionRequest").map(([e]) => e);
      const commands = (e: string) => [jsonHook(sb, { decision: "block", reason: `no (${e})` }), hookCommand(sb, { stderr: `also no (${e})\n`, exit: 2 })];
      // Every event through the library and the protocol writer; two of them through the CLI as well.
      for (const e of blockable) {
        const reply = await protocolFor(e, commands(e));
        expect(reply, e).to.deep.equal({ exitCode: 2, stdout: "", stderr: `no (${e})\nalso no (${e})` });
      }
      const results = await Promise.all(["Stop", "PostToolUseFailure"].map(async (e) => ({ e, r: await hookFormat(e, commands(e)) })));
      for (const { e, r } of results) {
        expect(r.code, e).to.equal(2);
        expect(r.stdout, e).to.equal("");
        expect(withoutWarnings(r.stderr).trim(), e).to.equal(`no (${e})\nalso no (${e})`);
      }
    });

    it("continue:false: exit 0 with JSON carrying continue, stopReason and the block", async () => {
      const r = await hookFormat("PreToolUse", [
        jsonHook(sb, { continue: false, stopReason: "session budget spent" }),
        hookCommand(sb, { stderr: "and denied\n", exit: 2 }),
      ]);
      expect(r.code).to.equal(0);
      expect(r.reply).to.deep.include({ continue: false, stopReason: "session budget spent" });
      expect(r.reply!.hookSpecificOutput).to.deep.include({ hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "and denied" });
    });

    it("continue:false on Stop carries decision block and its reason", async () => {
      const r = await hookFormat("Stop", [jsonHook(sb, { continue: false, stopReason: "halt" }), jsonHook(sb, { decision: "block", reason: "keep working" })]);
      expect(r.code).to.equal(0);
      expect(r.reply).to.deep.include({ continue: false, stopReason: "halt", decision: "block", reason: "keep working" });
    });

    it("allow: one JSON object with hookSpecificOutput.permissionDecision and its reason", async () => {
      const r = await hookFormat("PreToolUse", [jsonHook(sb, pre({ permissionDecision: "allow", permissionDecisionReason: "read-only" }))]);
      expect(r.code).to.equal(0);
      expect(r.stderr).to.equal("");
      expect(r.reply).to.deep.equal({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "read-only" },
      });
    });

    it("ask wins over allow and is answered as ask", async () => {
      const r = await hookFormat("PreToolUse", [
        jsonHook(sb, pre({ permissionDecision: "allow" })),
        jsonHook(sb, pre({ permissionDecision: "ask", permissionDecisionReason: "confirm" })),
      ]);
      expect(r.code).to.equal(0);
      expect(r.reply!.hookSpecificOutput).to.deep.equal({ hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "confirm" });
    });

    it("updatedInput and additionalContext are passed on for PreToolUse", async () => {
      const r = await hookFormat("PreToolUse", [jsonHook(sb, pre({ updatedInput: { command: "ls -1" } })), jsonHook(sb, pre({ additionalContext: "note" }))]);
      expect(r.code).to.equal(0);
      expect(r.reply!.hookSpecificOutput).to.deep.include({ hookEventName: "PreToolUse", updatedInput: { command: "ls -1" }, additionalContext: "note" });
      expect(r.reply!.hookSpecificOutput).not.to.have.property("permissionDecision");
    });

    it("PermissionRequest allow is answered with decision.behavior and updatedInput", async () => {
      const r = await hookFormat("PermissionRequest", [
        jsonHook(sb, { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "git status" } } } }),
      ]);
      expect(r.code).to.equal(0);
      expect(r.reply).to.deep.equal({
        hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "git status" } } },
      });
    });

    it("context for UserPromptSubmit and SessionStart, from plain stdout and JSON", async () => {
      const [ups, start] = await Promise.all([
        hookFormat("UserPromptSubmit", [
          hookCommand(sb, { stdout: "today is Friday\n" }),
          jsonHook(sb, { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "branch main" } }),
        ]),
        hookFormat("SessionStart", [hookCommand(sb, { stdout: "welcome back\n" })]),
      ]);
      expect(ups.code).to.equal(0);
      const upsContext = (ups.reply!.hookSpecificOutput as Json).additionalContext as string;
      expect(ups.reply!.hookSpecificOutput).to.include({ hookEventName: "UserPromptSubmit" });
      expect(upsContext).to.include("today is Friday").and.include("branch main");
      expect(upsContext.indexOf("today is Friday")).to.be.lessThan(upsContext.indexOf("branch main"));
      expect(start.code).to.equal(0);
      expect(start.reply).to.deep.equal({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "welcome back" } });
    });

    it("system messages are passed on", async () => {
      const r = await hookFormat("Notification", [jsonHook(sb, { systemMessage: "low disk" })]);
      expect(r.code).to.equal(0);
      expect(r.reply).to.deep.equal({ systemMessage: "low disk" });
    });

    it("nothing to say: exit 0 and empty stdout, on every event", async () => {
      const quiet = () => [hookCommand(sb, { stdout: "just a log line\n" }), hookCommand(sb, { exit: 1 }), jsonHook(sb, { futureKey: 1 })];
      for (const e of EVENTS) {
        const reply = await protocolFor(e, quiet());
        if (STDOUT_IS_CONTEXT.includes(e)) {
          // Plain stdout is context on these: that is something to say.
          expect(JSON.parse(reply.stdout), e).to.deep.equal({ hookSpecificOutput: { hookEventName: e, additionalContext: "just a log line" } });
        } else if (e === "WorktreeCreate") {
          // A WorktreeCreate hook's plain stdout is the worktree's path, which the agent reads.
          expect(reply, e).to.deep.equal({ exitCode: 0, stdout: "just a log line", stderr: "" });
        } else {
          expect(reply, e).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
        }
      }
      const results = await Promise.all(["PreToolUse", "Stop", "SessionEnd"].map(async (e) => ({ e, r: await hookFormat(e, quiet()) })));
      for (const { e, r } of results) {
        expect(r.code, e).to.equal(0);
        expect(r.stdout, e).to.equal("");
      }
    });

    it("on every event, the reply reads back (as hook output of that event) to the same decision, continue and messages", async () => {
      // Claude Code discards `continue` on the elicitations, whose JSON has no block either, and WorktreeCreate
      // answers with a path: a block stays an exit 2 there.
      const exit2 = ["Elicitation", "ElicitationResult", "WorktreeCreate"];
      for (const e of EVENTS) {
        const specific = e === "PermissionRequest" ? {} : { hookSpecificOutput: { hookEventName: e, additionalContext: `ctx ${e}` } };
        const carries = [
          ...["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SubagentStart", "SessionStart"],
          ...["Stop", "SubagentStop", "Setup", "UserPromptExpansion", "PostToolBatch", "PostModelSwitch"],
        ].includes(e);
        const commands = [
          jsonHook(sb, { continue: false, stopReason: `stop ${e}` }),
          jsonHook(sb, { systemMessage: `msg ${e}`, ...(carries ? specific : {}) }),
          hookCommand(sb, { stderr: `blocked ${e}\n`, exit: 2 }),
        ];
        const settings = sb.file(`rt-${e}.json`, settingsFor(e, ...commands));
        const outcome = await sb.bus({ watch: false, settingsFiles: [settings] }).dispatch({ ...payloadFor(e), hook_event_name: e });
        const reply = toHookProtocol(outcome);
        if (exit2.includes(e)) {
          expect(reply, e).to.deep.equal({ exitCode: 2, stdout: "", stderr: `blocked ${e}` });
          continue;
        }
        expect(reply.exitCode, e).to.equal(0);
        const back = HOOK_OUTPUT_SCHEMAS[e as EventName].safeParse(JSON.parse(reply.stdout));
        expect(back.success, `${e}: ${reply.stdout}`).to.equal(true);
        const verdict = back.data!;
        expect(verdict.continue, e).to.equal(false);
        expect(verdict.stopReason, e).to.equal(`stop ${e}`);
        expect(verdict.systemMessage, e).to.equal(`msg ${e}`);
        expect(verdict.decision, e).to.equal(outcome.decision);
        if (outcome.blocked) expect(verdict.reason, e).to.equal(`blocked ${e}`);
        expect(verdict.additionalContext, e).to.equal(carries ? `ctx ${e}` : null);
      }
    });

    it("requires --settings: exit 1 with one usage line, and no hook runs", async () => {
      const marker = markerHook(sb);
      sb.userSettings(settingsFor("PreToolUse", marker.command));
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--format", "hook"]);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal("");
      expect(r.stderr.split("\n").filter((l) => l !== "")).to.have.length(1);
      expect(r.stderr).to.match(/^qhooks: .*--settings/);
      expect(marker.ran()).to.equal(false);
    });
  });

  describe("usage errors and help", () => {
    const oneLine = (stderr: string) => stderr.split("\n").filter((l) => l !== "");

    it("an unknown event: exit 1 with a did-you-mean, for a wrong case and for a typo", async () => {
      const [cased, typo, far] = await Promise.all([
        sb.runEvent("pretooluse", payloadFor("PreToolUse")),
        sb.runEvent("PreToolUs", payloadFor("PreToolUse")),
        sb.runEvent("Teatime", payloadFor("PreToolUse")),
      ]);
      for (const r of [cased, typo, far]) {
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        expect(oneLine(r.stderr)).to.have.length(1);
        expect(r.stderr).to.match(/^qhooks: unknown event/);
      }
      expect(cased.stderr).to.include("did you mean PreToolUse?");
      expect(typo.stderr).to.include("did you mean PreToolUse?");
      expect(far.stderr).not.to.include("did you mean");
    });

    it("an unknown flag: exit 1, one `qhooks: ` line, nothing on stdout", async () => {
      const results = await Promise.all([
        sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--bogus"]),
        sb.run(["--frobnicate", "run", "PreToolUse"], { input: JSON.stringify(payloadFor("PreToolUse")) }),
        sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--format", "xml", "--settings", "x.json"]),
        sb.run(["run"], { input: "" }),
      ]);
      for (const r of results) {
        expect(r.code, r.stderr).to.equal(1);
        expect(r.stdout).to.equal("");
        expect(oneLine(r.stderr), r.stderr).to.have.length(1);
        expect(r.stderr).to.match(/^qhooks: /);
        expect(r.stderr).not.to.match(/\n\s+at /);
      }
    });

    it("a near-miss flag or command: the suggestion stays on the one `qhooks: ` line", async () => {
      const input = JSON.stringify(payloadFor("PreToolUse"));
      const [flag, negated, command] = await Promise.all([
        sb.run(["run", "PreToolUse", "--setting", "x.json"], { input }),
        sb.run(["run", "PreToolUse", "--no-logs"], { input }),
        sb.run(["rnu", "PreToolUse"], { input }),
      ]);
      for (const [r, suggestion] of [
        [flag, "--settings"],
        [negated, "--no-log"],
        [command, "run"],
      ] as const) {
        expect(r.code, r.stderr).to.equal(1);
        expect(r.stdout).to.equal("");
        expect(oneLine(r.stderr), r.stderr).to.have.length(1);
        expect(r.stderr).to.match(/^qhooks: /);
        expect(r.stderr.toLowerCase()).to.include(`did you mean ${suggestion}`);
      }
    });

    it("--help and run --help exit 0 and explain usage", async () => {
      const [top, run, helpRun] = await Promise.all([sb.run(["--help"]), sb.run(["run", "--help"]), sb.run(["help", "run"])]);
      expect(top.code).to.equal(0);
      expect(top.stdout)
        .to.match(/Usage: qhooks/)
        .and.include("run")
        .and.include("--db")
        .and.include("--project-dir");
      for (const r of [run, helpRun]) {
        expect(r.code).to.equal(0);
        expect(r.stdout).to.match(/Usage: qhooks run .*<event>/);
        for (const flag of ["--settings", "--no-log", "--format", "--fail-closed"]) expect(r.stdout).to.include(flag);
        for (const event of EVENTS) expect(r.stdout.replace(/\s+/g, " ")).to.include(event);
      }
    });
  });
});
