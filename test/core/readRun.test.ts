import { expect } from "chai";
import { interpretRun } from "../../src/core/readRun.js";
import type { HookRun } from "../../src/core/hookRun.js";
import type { SelectedHook } from "../../src/core/hookDescriptor.js";
import { commandHook, inProcessHook } from "../support/hooks.js";
import { EMPTY_VERDICT } from "../../src/schema/hookOutput.js";
import type { HandlerSetting } from "../../src/schema/settings.js";

/** A command hook as the settings reader gives it; `handler` for onFailure and async. */
function command(name: string, more: { shadow?: boolean; handler?: Partial<HandlerSetting> } = {}): SelectedHook {
  const hook = commandHook(`./${name}.sh`, 5000);
  return {
    ...hook,
    name,
    level: "project",
    matcherSource: "Bash",
    shadow: more.shadow ?? false,
    handler: { type: "command", command: `./${name}.sh`, ...more.handler } as HandlerSetting,
  };
}
const inProcess = (name: string): SelectedHook => inProcessHook(name, () => undefined, 5000);

const exited = (exitCode: number | null, stdout = "", stderr = "", more: Partial<Extract<HookRun, { type: "exited" }>> = {}): HookRun => ({
  type: "exited",
  exitCode,
  signal: null,
  durationMs: 12.34,
  stdout,
  stderr,
  truncated: false,
  ...more,
});
const returned = (value: unknown): HookRun => ({ type: "returned", value, durationMs: 1 });

/** Contract 3.2: how one finished run reads as a decision, for commands and in-process handlers. */
describe("core: interpretRun, one hook run read as a decision", () => {
  describe("a command that exits 0", () => {
    it("with nothing on stdout: a success without a decision, the run's facts kept", () => {
      const judged = interpretRun("PreToolUse", command("quiet"), exited(0, "", "a note\n"));
      expect(judged.result).to.deep.equal({
        name: "quiet",
        command: "./quiet.sh",
        level: "project",
        matcher: "Bash",
        outcome: "success",
        decision: "none",
        reason: null,
        error: null,
        exitCode: 0,
        signal: null,
        timedOut: false,
        durationMs: 12.3,
        stdout: "",
        stderr: "a note\n",
        truncated: false,
      });
      expect(judged.verdict).to.deep.equal(EMPTY_VERDICT);
      expect(judged.warnings).to.deep.equal([]);
    });

    it("rounds the duration to a tenth of a millisecond", () => {
      expect(interpretRun("Stop", command("h"), exited(0, "", "", { durationMs: 0.96 })).result.durationMs).to.equal(1);
      expect(interpretRun("Stop", command("h"), { type: "threw", message: "x", durationMs: 7.25 }).result.durationMs).to.equal(7.3);
    });

    it("with plain text: context where the event reads stdout as context, trimmed; nothing elsewhere", () => {
      expect(interpretRun("UserPromptSubmit", command("ctx"), exited(0, "  remember the style guide \n")).verdict.additionalContext).to.equal(
        "remember the style guide",
      );
      expect(interpretRun("SessionStart", command("ctx"), exited(0, "branch: main")).verdict.additionalContext).to.equal("branch: main");
      expect(interpretRun("UserPromptSubmit", command("ctx"), exited(0, " \n ")).verdict.additionalContext).to.equal(null);
      const pre = interpretRun("PreToolUse", command("ctx"), exited(0, "plain words"));
      expect(pre.verdict.additionalContext).to.equal(null);
      expect(pre.result.outcome).to.equal("success");
      expect(pre.result.stdout).to.equal("plain words");
    });

    it("with a JSON decision: the decision, its reason, and a block's outcome", () => {
      const deny = interpretRun(
        "PreToolUse",
        command("guard"),
        exited(0, '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'),
      );
      expect(deny.result).to.include({ outcome: "block", decision: "deny", reason: "no", error: null, exitCode: 0 });
      expect(deny.verdict).to.include({ decision: "deny", reason: "no" });
      const allow = interpretRun(
        "PreToolUse",
        command("ok"),
        exited(0, '  {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\n'),
      );
      expect(allow.result).to.include({ outcome: "success", decision: "allow", reason: null });
      expect(allow.verdict.reason).to.equal(null);
    });

    it("a block without a reason gets one that names the hook", () => {
      const judged = interpretRun("Stop", command("loop"), exited(0, '{"decision":"block"}'));
      expect(judged.result).to.include({ outcome: "block", decision: "block", reason: "blocked by hook loop (no reason given)" });
      expect(judged.verdict.reason).to.equal("blocked by hook loop (no reason given)");
    });

    it("JSON that does not parse: invalid output, with where it broke, and the output cap when it was cut", () => {
      const judged = interpretRun("PreToolUse", command("broken"), exited(0, '{"decision":', "", { truncated: false }));
      expect(judged.result).to.include({
        outcome: "invalid-output",
        decision: "none",
        error: "stdout starts with { but is not valid JSON (line 1 column 13: Unexpected end of JSON input)",
        exitCode: 0,
        stdout: '{"decision":',
      });
      expect(judged.verdict).to.equal(EMPTY_VERDICT);
      const cut = interpretRun("PreToolUse", command("broken"), exited(0, '{"decision":', "", { truncated: true }));
      expect(cut.result.error).to.equal(
        "stdout starts with { but is not valid JSON (line 1 column 13: Unexpected end of JSON input), and was cut at the output cap",
      );
      expect(cut.result.truncated).to.equal(true);
    });

    it("JSON nested deeper than the limit is not parsed", () => {
      const deep = `{"a":${"[".repeat(600)}${"]".repeat(600)}}`;
      expect(interpretRun("Stop", command("deep"), exited(0, deep)).result).to.include({
        outcome: "invalid-output",
        error: "stdout JSON nests deeper than 512 levels",
      });
    });

    it("JSON of the wrong shape: invalid output, naming the field", () => {
      const judged = interpretRun("Stop", command("shape"), exited(0, '{"continue":"no"}'));
      expect(judged.result.outcome).to.equal("invalid-output");
      expect(judged.result.error).to.match(/^stdout JSON: continue: /);
      expect(judged.result.stdout).to.equal('{"continue":"no"}');
    });

    it("a deny that breaks the schema elsewhere is still a deny, the defect a kind-tagged warning on the result", () => {
      const stdout = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":7}}';
      const judged = interpretRun("PreToolUse", command("guard"), exited(0, stdout));
      const defect = "stdout JSON: hookSpecificOutput.permissionDecisionReason: expected a string";
      expect(judged.result).to.include({ outcome: "block", decision: "deny", reason: "blocked by hook guard (no reason given)", error: null, stdout });
      expect(judged.result.warnings).to.deep.equal([{ kind: "malformed-output", message: defect }]);
      expect(judged.verdict).to.deep.equal({ ...EMPTY_VERDICT, decision: "deny", reason: "blocked by hook guard (no reason given)" });
      expect(judged.warnings).to.deep.equal([`hook guard: ${defect}; read as its deny all the same`]);
    });

    it("a malformed output keeps only its deny, block, ask or stop, and a reason that is a usable string", () => {
      const block = interpretRun("Stop", command("s"), exited(0, '{"decision":"block","reason":"tests fail","systemMessage":1,"additionalContext":2}'));
      expect(block.verdict).to.deep.equal({ ...EMPTY_VERDICT, decision: "block", reason: "tests fail" });
      const blank = interpretRun("PostToolUse", command("p"), exited(0, '{"decision":"block","reason":"  ","continue":"no"}'));
      expect(blank.verdict.reason).to.equal("blocked by hook p (no reason given)");
      const ask = interpretRun(
        "PreToolUse",
        command("a"),
        exited(0, '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":"x"}}'),
      );
      expect(ask.result).to.include({ outcome: "success", decision: "ask", reason: null });
      expect(ask.verdict.updatedInput).to.equal(null);
      expect(ask.warnings).to.deep.equal(["hook a: stdout JSON: hookSpecificOutput.updatedInput: expected an object; read as its ask all the same"]);
      const both = interpretRun(
        "PermissionRequest",
        command("r"),
        exited(
          0,
          '{"continue":false,"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no","interrupt":"yes"}}}',
        ),
      );
      expect(both.verdict).to.include({ decision: "deny", reason: "no", continue: false, stopReason: null });
      expect(both.warnings[0]).to.match(/read as its deny and stop all the same$/);
    });

    it("a malformed allow, or a malformed output that asks for nothing, stays invalid output", () => {
      for (const [event, stdout] of [
        ["PreToolUse", '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":7}}'],
        ["PreToolUse", '{"decision":"approve","reason":7}'],
        ["PermissionRequest", '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":[]}}}'],
        ["Stop", '{"decision":"Block","reason":7}'],
        ["Stop", '{"continue":"false"}'],
        ["Notification", '{"decision":"block","reason":7}'],
        ["PostToolUse", '{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"},"reason":7}'],
      ] as const) {
        const judged = interpretRun(event, command("h"), exited(0, stdout));
        expect(judged.result, stdout).to.include({ outcome: "invalid-output", decision: "none" });
        expect(judged.result.warnings, stdout).to.equal(undefined);
        expect(judged.verdict, stdout).to.equal(EMPTY_VERDICT);
      }
    });

    it("a malformed deny of a guard with onFailure: block is its own deny, not the failure's block", () => {
      const stdout = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf"},"suppressOutput":1}';
      const judged = interpretRun("PreToolUse", command("g", { handler: { onFailure: "block" } }), exited(0, stdout));
      expect(judged.result).to.include({ outcome: "block", decision: "deny", reason: "rm -rf", error: null });
    });

    it("passes on what the JSON ignores as a warning that names the hook on one line", () => {
      const judged = interpretRun("PermissionRequest", inProcess("multi\nline"), returned({ additionalContext: "x" }));
      expect(judged.warnings).to.deep.equal(["hook multi\\nline: additionalContext (PermissionRequest carries no context) ignored"]);
      expect(judged.verdict.additionalContext).to.equal(null);
    });
  });

  describe("a command that exits otherwise", () => {
    it("exit 2 blocks an event that can be blocked, stderr trimmed as the reason", () => {
      const stop = interpretRun("Stop", command("keep"), exited(2, "", "  tests fail \n"));
      expect(stop.result).to.include({ outcome: "block", decision: "block", reason: "tests fail", exitCode: 2, error: null });
      expect(stop.verdict).to.include({ decision: "block", reason: "tests fail" });
      expect(interpretRun("PreToolUse", command("g"), exited(2, "", "nope")).result).to.include({ decision: "deny", reason: "nope" });
      expect(interpretRun("PreToolUse", command("g"), exited(2, "", " \n")).result.reason).to.equal("blocked by hook g (no reason given)");
    });

    it("exit 2 on an event that cannot be blocked is an error, with stderr's first line", () => {
      const judged = interpretRun("SessionStart", command("s"), exited(2, "", "\n  first  \nsecond"));
      expect(judged.result).to.include({ outcome: "error", decision: "none", error: "exit 2, but SessionStart cannot be blocked: first", exitCode: 2 });
      expect(judged.verdict).to.equal(EMPTY_VERDICT);
      expect(interpretRun("SessionStart", command("s"), exited(2)).result.error).to.equal("exit 2, but SessionStart cannot be blocked");
    });

    it("exit 127 says the command was not found", () => {
      expect(interpretRun("Stop", command("m"), exited(127, "", "sh: 1: ./m.sh: not found\n")).result.error).to.equal(
        "exit 127: command not found (sh: 1: ./m.sh: not found)",
      );
      expect(interpretRun("Stop", command("m"), exited(127)).result).to.include({ outcome: "error", error: "exit 127: command not found" });
    });

    it("any other exit is an error with stderr's first non-empty line, cut at 300 characters", () => {
      const judged = interpretRun("PreToolUse", command("f"), exited(1, "out", "\n  \n   it broke   \nstack"));
      expect(judged.result).to.include({ outcome: "error", decision: "none", reason: null, error: "exit 1: it broke", exitCode: 1, stdout: "out" });
      expect(judged.verdict).to.equal(EMPTY_VERDICT);
      expect(judged.warnings).to.deep.equal([]);
      expect(interpretRun("PreToolUse", command("f"), exited(3)).result.error).to.equal("exit 3");
      expect(interpretRun("PreToolUse", command("f"), exited(1, "", "x".repeat(300))).result.error).to.equal(`exit 1: ${"x".repeat(300)}`);
      expect(interpretRun("PreToolUse", command("f"), exited(1, "", "x".repeat(301))).result.error).to.equal(`exit 1: ${"x".repeat(300)}…`);
    });

    it("a signal is an error whatever the exit code", () => {
      const judged = interpretRun("Stop", command("k"), exited(null, "partial", "", { signal: "SIGKILL" }));
      expect(judged.result).to.include({ outcome: "error", error: "killed by SIGKILL", signal: "SIGKILL", exitCode: null, stdout: "partial" });
    });

    it("a timeout keeps what the hook printed", () => {
      const judged = interpretRun("Stop", command("slow"), {
        type: "timeout",
        limitMs: 1500,
        durationMs: 1502,
        stdout: "so far",
        stderr: "err",
        truncated: true,
      });
      expect(judged.result).to.include({
        outcome: "timeout",
        error: "timed out after 1.5 s",
        timedOut: true,
        stdout: "so far",
        stderr: "err",
        truncated: true,
        exitCode: null,
      });
      expect(judged.verdict).to.equal(EMPTY_VERDICT);
    });

    it("a hook that could not start, or whose runner failed, is an error", () => {
      expect(interpretRun("Stop", command("x"), { type: "spawn-error", message: "spawn E2BIG", durationMs: 0 }).result).to.include({
        outcome: "error",
        error: "spawn E2BIG",
      });
      const failed = interpretRun("Stop", command("x"), { type: "failed", message: "HTTP 500", durationMs: 3, stdout: "body", truncated: true });
      expect(failed.result).to.include({ outcome: "error", error: "HTTP 500", stdout: "body", truncated: true });
      const bare = interpretRun("Stop", command("x"), { type: "failed", message: "refused", durationMs: 3 });
      expect(bare.result).to.include({ stdout: "", truncated: false });
    });
  });

  describe("an in-process handler", () => {
    it("that returns nothing has no opinion", () => {
      const judged = interpretRun("PreToolUse", inProcess("noop"), returned(undefined));
      expect(judged.result).to.include({ outcome: "success", decision: "none", command: null, level: "in-process", matcher: null, exitCode: null });
      expect(judged.verdict).to.deep.equal(EMPTY_VERDICT);
    });

    it("speaks the engine's words: deny and block are each event's own block", () => {
      expect(interpretRun("PreToolUse", inProcess("h"), returned({ decision: "block", reason: "r" })).result).to.include({
        decision: "deny",
        outcome: "block",
      });
      expect(interpretRun("Stop", inProcess("h"), returned({ decision: "deny" })).result).to.include({
        decision: "block",
        reason: "blocked by hook h (no reason given)",
      });
      expect(interpretRun("PermissionRequest", inProcess("h"), returned({ decision: "allow" })).result.decision).to.equal("allow");
      expect(interpretRun("PreToolUse", inProcess("h"), returned({ decision: "ask" })).result.decision).to.equal("ask");
    });

    it("a decision the event cannot make is ignored, with a warning", () => {
      const judged = interpretRun("Stop", inProcess("h"), returned({ decision: "ask" }));
      expect(judged.result.decision).to.equal("none");
      expect(judged.warnings).to.deep.equal(['hook h: decision "ask" (not one Stop can make) ignored']);
      const informational = interpretRun("SessionStart", inProcess("h"), returned({ decision: "deny" }));
      expect(informational.result.decision).to.equal("none");
      expect(informational.warnings).to.deep.equal(['hook h: decision "deny" (not one SessionStart can make) ignored']);
      expect(interpretRun("PermissionRequest", inProcess("h"), returned({ decision: "ask" })).warnings).to.have.length(1);
    });

    it("carries every field it returns into the verdict", () => {
      const judged = interpretRun(
        "PreToolUse",
        inProcess("all"),
        returned({
          decision: "allow",
          reason: "fine",
          updatedInput: { command: "ls" },
          additionalContext: "ctx",
          systemMessage: "msg",
          continue: false,
          stopReason: "done",
        }),
      );
      expect(judged.verdict).to.deep.equal({
        ...EMPTY_VERDICT,
        decision: "allow",
        reason: "fine",
        updatedInput: { command: "ls" },
        additionalContext: "ctx",
        systemMessage: "msg",
        continue: false,
        stopReason: "done",
        ignored: [],
      });
      expect(judged.warnings).to.deep.equal([]);
    });

    it("that returns something else, throws or cannot be read fails without a decision", () => {
      const odd = interpretRun("PreToolUse", inProcess("h"), returned({ decision: "maybe" }));
      expect(odd.result.outcome).to.equal("invalid-output");
      expect(odd.result.error).to.match(/^returned decision: /);
      const threw = interpretRun("PreToolUse", inProcess("h"), { type: "threw", message: "boom", durationMs: 1 });
      expect(threw.result).to.include({ outcome: "error", error: "threw: boom", stdout: "", stderr: "", truncated: false, exitCode: null, timedOut: false });
      expect(threw.warnings).to.deep.equal([]);
      expect(interpretRun("PreToolUse", inProcess("h"), { type: "unreadable", message: "a cycle", durationMs: 1 }).result).to.include({
        outcome: "invalid-output",
        error: "returned a cycle",
      });
    });
  });

  describe("shadow hooks and onFailure", () => {
    it("marks a shadow hook's result, and only a shadow hook's", () => {
      expect(interpretRun("Stop", command("s", { shadow: true }), exited(0)).result.shadow).to.equal(true);
      expect(interpretRun("Stop", command("s", { shadow: false }), exited(0)).result).to.not.have.property("shadow");
      expect(interpretRun("Stop", command("s"), exited(0)).result).to.not.have.property("shadow");
    });

    it('onFailure: "block" turns an error, a timeout or unreadable output into the event\'s block, keeping the error', () => {
      const guard = command("guard", { handler: { onFailure: "block" } });
      const failed = interpretRun("PreToolUse", guard, exited(1, "", "crashed"));
      const reason = 'hook guard failed and blocks on failure (onFailure: "block"): exit 1: crashed';
      expect(failed.result).to.include({ outcome: "block", decision: "deny", reason, error: "exit 1: crashed", exitCode: 1 });
      expect(failed.verdict).to.deep.equal({ ...EMPTY_VERDICT, decision: "deny", reason });
      const timedOut = interpretRun("Stop", guard, { type: "timeout", limitMs: 2000, durationMs: 2001, stdout: "", stderr: "", truncated: false });
      expect(timedOut.result).to.include({ outcome: "block", decision: "block", error: "timed out after 2 s" });
      expect(interpretRun("Stop", guard, exited(0, "{oops")).result).to.include({ outcome: "block", decision: "block" });
    });

    it('onFailure: "block" leaves successes, events that cannot block, async hooks and "continue" alone', () => {
      const guard = command("guard", { handler: { onFailure: "block" } });
      expect(interpretRun("PreToolUse", guard, exited(0)).result.outcome).to.equal("success");
      expect(interpretRun("SessionStart", guard, exited(1)).result).to.include({ outcome: "error", decision: "none" });
      expect(interpretRun("Stop", command("bg", { handler: { onFailure: "block", async: true } }), exited(1)).result.outcome).to.equal("error");
      expect(interpretRun("Stop", command("c", { handler: { onFailure: "continue" } }), exited(1)).result.outcome).to.equal("error");
      expect(interpretRun("Stop", command("plain"), exited(1)).result.outcome).to.equal("error");
      expect(interpretRun("Stop", command("guard", { handler: { onFailure: "block", async: false } }), exited(1)).result.outcome).to.equal("block");
    });
  });
});
