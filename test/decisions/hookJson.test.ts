import { expect } from "chai";
import type { Outcome } from "../../src/schema/outcome.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { EVENTS, STDOUT_IS_CONTEXT, busWith, hookCommand, jsonHook, only, settingsFor, type Json } from "./helpers.js";

/** Contract 3.1 (exit 0) and 3.2: the JSON a hook may print, read per event. */
describe("decisions: JSON output of a hook on exit 0", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /** Dispatches `event` with one hook printing `stdout` and exiting 0. */
  async function judge(event: string, stdout: Json | string, payload: Json = {}): Promise<Outcome> {
    const bus = busWith(sb, event, jsonHook(sb, stdout));
    return bus.dispatch({ ...payloadFor(event, payload), hook_event_name: event });
  }

  describe("PreToolUse", () => {
    const specific = (fields: Json) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } });

    it("permissionDecision allow, with its reason", async () => {
      const outcome = await judge("PreToolUse", specific({ permissionDecision: "allow", permissionDecisionReason: "read-only command" }));
      expect(outcome).to.include({ decision: "allow", blocked: false, reason: "read-only command" });
      expect(only(outcome)).to.include({ outcome: "success", decision: "allow", reason: "read-only command", exitCode: 0 });
    });

    it("permissionDecision deny blocks, with its reason", async () => {
      const outcome = await judge("PreToolUse", specific({ permissionDecision: "deny", permissionDecisionReason: "touches /etc" }));
      expect(outcome).to.include({ decision: "deny", blocked: true, reason: "touches /etc" });
      expect(only(outcome)).to.include({ outcome: "block", decision: "deny" });
    });

    it("permissionDecision ask does not block", async () => {
      const outcome = await judge("PreToolUse", specific({ permissionDecision: "ask", permissionDecisionReason: "confirm the push" }));
      expect(outcome).to.include({ decision: "ask", blocked: false, reason: "confirm the push" });
      expect(only(outcome)).to.include({ outcome: "success", decision: "ask" });
    });

    it("updatedInput rewrites the tool input", async () => {
      const updatedInput = { command: "ls -la", nested: { a: [1, 2, { b: null }] } };
      const outcome = await judge("PreToolUse", specific({ permissionDecision: "allow", updatedInput }));
      expect(outcome.updatedInput).to.deep.equal(updatedInput);
      expect(outcome.decision).to.equal("allow");
    });

    it("additionalContext reaches the outcome", async () => {
      const outcome = await judge("PreToolUse", specific({ additionalContext: "the repo uses pnpm" }));
      expect(outcome.additionalContext).to.deep.equal(["the repo uses pnpm"]);
      expect(outcome.decision).to.equal("none");
    });

    it("legacy top-level decision approve means allow, block means deny", async () => {
      const approve = await judge("PreToolUse", { decision: "approve", reason: "fine by me" });
      expect(approve).to.include({ decision: "allow", blocked: false, reason: "fine by me" });
      const block = await judge("PreToolUse", { decision: "block", reason: "not today" });
      expect(block).to.include({ decision: "deny", blocked: true, reason: "not today" });
      expect(only(block).outcome).to.equal("block");
    });
  });

  describe("PermissionRequest", () => {
    const decision = (d: Json) => ({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: d } });

    it("behavior allow, with updatedInput", async () => {
      const outcome = await judge("PermissionRequest", decision({ behavior: "allow", updatedInput: { command: "ls --color=never" } }));
      expect(outcome).to.include({ decision: "allow", blocked: false });
      expect(outcome.updatedInput).to.deep.equal({ command: "ls --color=never" });
    });

    it("behavior deny, with its message as the reason", async () => {
      const outcome = await judge("PermissionRequest", decision({ behavior: "deny", message: "no network from here" }));
      expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no network from here" });
      expect(only(outcome)).to.include({ outcome: "block", decision: "deny", reason: "no network from here" });
    });

    it("deny with interrupt: true stops the agent (continue false), its message the stop reason", async () => {
      const outcome = await judge("PermissionRequest", decision({ behavior: "deny", message: "stop everything", interrupt: true }));
      expect(outcome).to.include({ decision: "deny", blocked: true, continue: false, stopReason: "stop everything" });
      const kept = await judge("PermissionRequest", { ...decision({ behavior: "deny", message: "m", interrupt: true }), stopReason: "own reason" });
      expect(kept).to.include({ continue: false, stopReason: "own reason" });
    });

    it("interrupt is read only with a denial, and only when true", async () => {
      for (const d of [
        { behavior: "deny", message: "m", interrupt: false },
        { behavior: "deny", message: "m" },
        { behavior: "allow", interrupt: true },
      ]) {
        const outcome = await judge("PermissionRequest", decision(d));
        expect(outcome, JSON.stringify(d)).to.include({ continue: true, stopReason: null });
      }
    });

    it("an unknown behavior is invalid output", async () => {
      const outcome = await judge("PermissionRequest", decision({ behavior: "ask" }));
      expect(only(outcome).outcome).to.equal("invalid-output");
      expect(outcome).to.include({ decision: "none", blocked: false });
    });
  });

  for (const event of ["PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop"]) {
    it(`${event}: decision "block" with a reason blocks`, async () => {
      const outcome = await judge(event, { decision: "block", reason: `fix the tests first (${event})` });
      expect(outcome).to.include({ decision: "block", blocked: true, reason: `fix the tests first (${event})` });
      expect(only(outcome)).to.include({ outcome: "block", decision: "block", exitCode: 0 });
    });
  }

  describe("continue: false", () => {
    it("stops the agent with its stopReason, whatever the other decisions", async () => {
      const outcome = await judge("Stop", { continue: false, stopReason: "budget exhausted", decision: "block", reason: "keep going" });
      expect(outcome).to.include({ continue: false, stopReason: "budget exhausted" });
      // The block is still reported; continue:false is what wins for the agent.
      expect(outcome).to.include({ decision: "block", blocked: true });
    });

    it("makes plain `qhooks run` exit 0, even with a block, the outcome saying continue:false", async () => {
      const settings = sb.file(
        "stop.json",
        settingsFor(
          "PreToolUse",
          jsonHook(sb, { continue: false, stopReason: "operator pulled the plug" }),
          hookCommand(sb, { stderr: "denied too\n", exit: 2 }),
        ),
      );
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", settings, "--no-log"]);
      expect(r.code).to.equal(0);
      expect(r.outcome).to.include({ continue: false, stopReason: "operator pulled the plug", decision: "deny", blocked: true });
    });
  });

  it("systemMessage is kept for the user", async () => {
    const outcome = await judge("Notification", { systemMessage: "disk almost full" });
    expect(outcome.systemMessages).to.deep.equal(["disk almost full"]);
    expect(only(outcome).outcome).to.equal("success");
  });

  it("suppressOutput is understood and reported", async () => {
    const outcome = await judge("PostToolUse", { suppressOutput: true });
    expect(only(outcome).outcome).to.equal("success");
    expect(outcome.suppressOutput).to.equal(true);
    const plain = await judge("PostToolUse", { systemMessage: "x" });
    expect(plain.suppressOutput).to.equal(false);
  });

  it("JSON surrounded by whitespace and newlines is still JSON", async () => {
    const text = `\n\n   ${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "ws" } })}  \n\t\n`;
    const outcome = await judge("PreToolUse", text);
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "ws" });
  });

  it("unknown keys are ignored, at the top level and inside hookSpecificOutput", async () => {
    const outcome = await judge("PreToolUse", {
      futureFeature: { x: 1 },
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", somethingNew: true },
    });
    expect(only(outcome).outcome).to.equal("success");
    expect(outcome.decision).to.equal("ask");
  });

  describe("invalid output", () => {
    const notJson = [
      ["trailing garbage", '{"decision":"block","reason":"x"} and more'],
      ["truncated", '{"decision":"block","reason":'],
      ["single quotes", "{'decision': 'block'}"],
    ] as const;
    for (const [what, text] of notJson) {
      for (const event of ["UserPromptSubmit", "SessionStart", "Stop"]) {
        it(`stdout starting with { that does not parse (${what}) is invalid-output on ${event}, never context`, async () => {
          const outcome = await judge(event, text);
          const hook = only(outcome);
          expect(hook.outcome).to.equal("invalid-output");
          expect(hook.error).to.be.a("string").and.not.equal("");
          expect(outcome).to.include({ decision: "none", blocked: false });
          expect(outcome.additionalContext).to.deep.equal([]);
        });
      }
    }

    const schemaBreaking: ReadonlyArray<readonly [string, Json]> = [
      ["PreToolUse", { continue: "no" }],
      ["PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" } }],
      ["PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: "rm -rf /" } }],
      ["PreToolUse", { hookSpecificOutput: "deny" }],
      ["PermissionRequest", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: [1] } } }],
      ["Stop", { decision: 2 }],
      // A malformed allow, or a malformed stop that does not stop, has no effect (malformedDeny.test.ts for denials).
      ["PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: 7 } }],
      ["PermissionRequest", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", message: 1 } } }],
      ["Stop", { stopReason: false, continue: true }],
      ["Notification", { systemMessage: 5 }],
      ["SessionStart", { suppressOutput: "yes" }],
      ["SessionStart", { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: { text: "x" } } }],
    ];
    for (const [event, json] of schemaBreaking) {
      it(`${event}: JSON with a wrong type (${JSON.stringify(json)}) is invalid-output, with no effect`, async () => {
        const outcome = await judge(event, json);
        const hook = only(outcome);
        expect(hook.outcome).to.equal("invalid-output");
        expect(hook.decision).to.equal("none");
        expect(outcome).to.include({ decision: "none", blocked: false, continue: true, stopReason: null, updatedInput: null });
        expect(outcome.systemMessages).to.deep.equal([]);
        expect(outcome.additionalContext).to.deep.equal([]);
      });
    }

    // On PreToolUse that deny would be kept (malformedDeny.test.ts); here no event reads a permissionDecision.
    for (const [event, other] of [
      ["PostToolUse", "PreToolUse"],
      ["SessionStart", "UserPromptSubmit"],
      ["UserPromptSubmit", "SessionStart"],
    ] as const) {
      it(`${event}: hookSpecificOutput.hookEventName naming ${other} is invalid-output`, async () => {
        const outcome = await judge(event, {
          hookSpecificOutput: { hookEventName: other, additionalContext: "from the wrong event", permissionDecision: "deny" },
        });
        expect(only(outcome).outcome).to.equal("invalid-output");
        expect(outcome).to.include({ decision: "none", blocked: false });
        expect(outcome.additionalContext).to.deep.equal([]);
      });
    }

    it("a block inside invalid JSON does not block", async () => {
      const text = `${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } })}}`;
      const outcome = await judge("PreToolUse", text);
      expect(only(outcome).outcome).to.equal("invalid-output");
      expect(outcome.blocked).to.equal(false);
    });
  });

  for (const event of ["SubagentStart", "SessionStart", "SessionEnd", "PreCompact", "Notification"]) {
    it(`${event}: a top-level decision is ignored with a warning`, async () => {
      const outcome = await judge(event, { decision: "block", reason: "cannot block this" });
      expect(outcome).to.include({ decision: "none", blocked: false });
      expect(only(outcome)).to.include({ outcome: "success", decision: "none" });
      expect(outcome.warnings.some((w) => w.includes("decision"))).to.equal(true, outcome.warnings.join("\n"));
    });
  }

  it("a top-level decision on a blockable event gives no such warning", async () => {
    const outcome = await judge("PostToolUse", { decision: "block", reason: "r" });
    expect(outcome.warnings).to.deep.equal([]);
  });

  describe("plain stdout", () => {
    for (const event of EVENTS) {
      const becomesContext = STDOUT_IS_CONTEXT.includes(event);
      it(`${event}: plain text is ${becomesContext ? "additional context" : "only recorded"}`, async () => {
        const outcome = await judge(event, "  Branch: main; 3 files changed  \n");
        const hook = only(outcome);
        expect(hook).to.include({ outcome: "success", decision: "none" });
        expect(hook.stdout).to.equal("  Branch: main; 3 files changed  \n");
        expect(outcome.additionalContext).to.deep.equal(becomesContext ? ["Branch: main; 3 files changed"] : []);
        expect(outcome).to.include({ decision: "none", blocked: false });
      });
    }

    it("a JSON array is plain text, not hook JSON", async () => {
      const outcome = await judge("UserPromptSubmit", '["not", "an", "object"]');
      expect(only(outcome).outcome).to.equal("success");
      expect(outcome.additionalContext).to.deep.equal(['["not", "an", "object"]']);
    });

    it("empty stdout adds no context", async () => {
      const outcome = await judge("SessionStart", "   \n");
      expect(outcome.additionalContext).to.deep.equal([]);
    });
  });

  for (const event of [
    ...["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SubagentStart"],
    // Current Claude Code: Stop/SubagentStop feedback, Setup, slash-command expansions, tool batches, model switches.
    ...["Stop", "SubagentStop", "Setup", "UserPromptExpansion", "PostToolBatch", "PostModelSwitch"],
  ]) {
    it(`${event}: hookSpecificOutput.additionalContext is context`, async () => {
      const outcome = await judge(event, { hookSpecificOutput: { hookEventName: event, additionalContext: `ctx for ${event}` } });
      expect(only(outcome).outcome).to.equal("success");
      expect(outcome.additionalContext).to.deep.equal([`ctx for ${event}`]);
    });
  }
});
