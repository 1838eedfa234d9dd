import { expect } from "chai";
import { toHookProtocol } from "../../src/output/hookProtocol.js";
import { lastPlainLine, relayedFields } from "../../src/output/relayedFields.js";
import type { EventName } from "../../src/schema/events.js";
import type { HookResult, Outcome } from "../../src/schema/outcome.js";
import { outcomeOf } from "../support/outcomes.js";

const outcome = (event: EventName, more: Partial<Outcome> = {}): Outcome => outcomeOf(event, more);

function hook(stdout: string, more: Partial<HookResult> = {}): HookResult {
  return {
    name: "h",
    command: "./h.sh",
    level: "user",
    matcher: null,
    outcome: "success",
    decision: "none",
    reason: null,
    error: null,
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    stdout,
    stderr: "",
    truncated: false,
    ...more,
  };
}
const json = (value: unknown) => ({ exitCode: 0, stdout: JSON.stringify(value), stderr: "" });
const exit2 = (stderr: string) => ({ exitCode: 2, stdout: "", stderr });

/** The reply of `qhooks run --format hook`, from the outcome alone (the CLI's own tests run it end to end). */
describe("output: toHookProtocol, an outcome as the agent's hook protocol", () => {
  it("nothing to say: an empty exit 0", () => {
    expect(toHookProtocol(outcome("PreToolUse"))).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
    expect(toHookProtocol(outcome("PermissionRequest", { additionalContext: ["not carried"] }))).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("a plain block is exit 2 with the reason on stderr", () => {
    expect(toHookProtocol(outcome("Stop", { decision: "block", blocked: true, reason: "tests fail" }))).to.deep.equal(exit2("tests fail"));
    expect(toHookProtocol(outcome("PreToolUse", { decision: "deny", blocked: true, reason: "no" }))).to.deep.equal(exit2("no"));
    expect(toHookProtocol(outcome("Stop", { decision: "block", blocked: true }))).to.deep.equal(exit2("blocked by qhooks (Stop)"));
  });

  it("a block with more to say goes out as JSON, exit 0, the decision inside", () => {
    const stop = outcome("Stop", { decision: "block", blocked: true, reason: "again", systemMessages: ["iteration 4", "of 10"] });
    expect(toHookProtocol(stop)).to.deep.equal(json({ systemMessage: "iteration 4\nof 10", decision: "block", reason: "again" }));
    const noReason = outcome("Stop", { decision: "block", blocked: true, systemMessages: ["m"] });
    expect(toHookProtocol(noReason)).to.deep.equal(json({ systemMessage: "m", decision: "block" }));
    const context = outcome("PostToolUse", { decision: "block", blocked: true, reason: "r", additionalContext: ["see the log"] });
    expect(toHookProtocol(context)).to.deep.equal(
      json({ decision: "block", reason: "r", hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "see the log" } }),
    );
    const deny = outcome("PreToolUse", { decision: "deny", blocked: true, reason: "no", systemMessages: ["why"] });
    expect(toHookProtocol(deny)).to.deep.equal(
      json({ systemMessage: "why", hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" } }),
    );
  });

  it("relayed fields alone make a block JSON too", () => {
    const terminal = hook(JSON.stringify({ decision: "block", terminalSequence: "\u0007" }), { outcome: "block", decision: "block" });
    expect(toHookProtocol(outcome("Stop", { decision: "block", blocked: true, reason: "r", hooks: [terminal] }))).to.deep.equal(
      json({ terminalSequence: "\u0007", decision: "block", reason: "r" }),
    );
    const specific = hook(JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: "x" } }));
    expect(toHookProtocol(outcome("PostToolUse", { decision: "block", blocked: true, reason: "r", hooks: [specific] }))).to.deep.equal(
      json({ decision: "block", reason: "r", hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: "x" } }),
    );
  });

  it("events that take a block from exit 2 alone get exit 2 whatever else there is", () => {
    for (const event of ["TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult"] as const) {
      expect(toHookProtocol(outcome(event, { decision: "block", blocked: true, reason: "not yet", systemMessages: ["m"] })), event).to.deep.equal(
        exit2("not yet"),
      );
    }
  });

  it("a PermissionRequest denial is JSON even with nothing more to say", () => {
    expect(toHookProtocol(outcome("PermissionRequest", { decision: "deny", blocked: true, reason: "no" }))).to.deep.equal(
      json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no" } } }),
    );
    expect(toHookProtocol(outcome("PermissionRequest", { decision: "deny", blocked: true }))).to.deep.equal(
      json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny" } } }),
    );
  });

  it("a PermissionRequest allow carries the rewritten input and the allowing hooks' permission updates", () => {
    const rules = [{ type: "addRules", rules: [{ toolName: "Bash" }] }];
    const allowing = hook(
      JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: rules } } }),
      {
        decision: "allow",
      },
    );
    const allow = outcome("PermissionRequest", { decision: "allow", updatedInput: { command: "ls" }, hooks: [allowing] });
    expect(toHookProtocol(allow)).to.deep.equal(
      json({
        hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "ls" }, updatedPermissions: rules } },
      }),
    );
    // A denial passes on no permission update, whoever wrote one.
    const denied = outcome("PermissionRequest", { decision: "deny", blocked: true, reason: "no", hooks: [allowing] });
    expect(toHookProtocol(denied)).to.deep.equal(
      json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no" } } }),
    );
    // A PermissionRequest with no decision says nothing of one.
    expect(toHookProtocol(outcome("PermissionRequest", { systemMessages: ["m"] }))).to.deep.equal(json({ systemMessage: "m" }));
  });

  it("continue: false beats every decision and goes out in JSON", () => {
    expect(toHookProtocol(outcome("PreToolUse", { continue: false, stopReason: "halt" }))).to.deep.equal(json({ continue: false, stopReason: "halt" }));
    expect(toHookProtocol(outcome("Stop", { continue: false }))).to.deep.equal(json({ continue: false }));
    const blocked = outcome("Stop", { decision: "block", blocked: true, reason: "r", continue: false, stopReason: "s" });
    expect(toHookProtocol(blocked)).to.deep.equal(json({ continue: false, stopReason: "s", decision: "block", reason: "r" }));
  });

  it("on events that discard continue: false, a block that also stops is still exit 2", () => {
    expect(toHookProtocol(outcome("ConfigChange", { decision: "block", blocked: true, reason: "r", continue: false }))).to.deep.equal(exit2("r"));
    expect(toHookProtocol(outcome("TaskCreated", { decision: "block", blocked: true, continue: false, stopReason: "s" }))).to.deep.equal(exit2("s"));
    for (const event of ["Elicitation", "ElicitationResult"] as const) {
      expect(toHookProtocol(outcome(event, { decision: "block", blocked: true, reason: "r", continue: false })), event).to.deep.equal(exit2("r"));
    }
  });

  it("PreToolUse and PreModelSwitch: the permission decision, its reason and the rewritten input", () => {
    const allow = outcome("PreToolUse", { decision: "allow", reason: "safe", updatedInput: { command: "ls -a" } });
    expect(toHookProtocol(allow)).to.deep.equal(
      json({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "safe", updatedInput: { command: "ls -a" } },
      }),
    );
    expect(toHookProtocol(outcome("PreModelSwitch", { decision: "ask" }))).to.deep.equal(
      json({ hookSpecificOutput: { hookEventName: "PreModelSwitch", permissionDecision: "ask" } }),
    );
    expect(toHookProtocol(outcome("PreToolUse", { updatedInput: { a: 1 } }))).to.deep.equal(
      json({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { a: 1 } } }),
    );
  });

  it("context, system messages and suppressOutput, where the event carries them", () => {
    expect(toHookProtocol(outcome("UserPromptSubmit", { additionalContext: ["a", "b"], suppressOutput: true }))).to.deep.equal(
      json({ suppressOutput: true, hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "a\nb" } }),
    );
    // SessionEnd carries no context: what a hook gave it is dropped.
    expect(toHookProtocol(outcome("SessionEnd", { systemMessages: ["bye"], additionalContext: ["dropped"] }))).to.deep.equal(json({ systemMessage: "bye" }));
  });

  describe("WorktreeCreate: a path, never JSON", () => {
    it("relays the path the last plain-text hook printed", () => {
      const hooks = [hook("/tmp/first\n"), hook('{"json":"skipped"}'), hook("\n  /tmp/wt-1  \n\n"), hook("/tmp/failed", { outcome: "error", exitCode: 1 })];
      expect(toHookProtocol(outcome("WorktreeCreate", { hooks }))).to.deep.equal({ exitCode: 0, stdout: "/tmp/wt-1", stderr: "" });
      expect(toHookProtocol(outcome("WorktreeCreate", { systemMessages: ["m"] }))).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
    });

    it("fails the creation with exit 2 when blocked or stopped", () => {
      expect(toHookProtocol(outcome("WorktreeCreate", { decision: "block", blocked: true, reason: "no" }))).to.deep.equal(exit2("no"));
      expect(toHookProtocol(outcome("WorktreeCreate", { continue: false, stopReason: "stop", hooks: [hook("/tmp/x")] }))).to.deep.equal(exit2("stop"));
    });
  });
});

describe("output: relayedFields and lastPlainLine, what the hooks' own output adds", () => {
  const specific = (event: string, fields: Record<string, unknown>) => JSON.stringify({ hookSpecificOutput: { hookEventName: event, ...fields } });

  it("relays the event-specific keys qhooks does not interpret, a later hook winning", () => {
    const hooks = [
      hook(specific("UserPromptSubmit", { sessionTitle: "one", additionalContext: "interpreted", decision: "x", retry: true })),
      hook(specific("UserPromptSubmit", { sessionTitle: "two", permissionDecision: "allow", permissionDecisionReason: "r", updatedInput: {} }), {
        outcome: "block",
      }),
    ];
    expect(relayedFields("UserPromptSubmit", hooks, false)).to.deep.equal({
      specific: { sessionTitle: "two", retry: true },
      topLevel: {},
      updatedPermissions: undefined,
    });
  });

  it("reads only hooks whose JSON counted: exit 0, success or block, the same event, an object", () => {
    const hooks = [
      hook(specific("Stop", { a: 1 }), { outcome: "error" }),
      hook(specific("Stop", { b: 1 }), { exitCode: 2 }),
      hook(specific("SubagentStop", { c: 1 })),
      hook("[1]"),
      hook("{not json"),
      hook("plain"),
      hook(JSON.stringify({ hookSpecificOutput: [1] })),
      hook(JSON.stringify({ terminalSequence: "t", other: 1 }), { outcome: "invalid-output" }),
      hook(`  ${JSON.stringify({ terminalSequence: "kept" })}\n`),
    ];
    expect(relayedFields("Stop", hooks, false)).to.deep.equal({ specific: {}, topLevel: { terminalSequence: "kept" }, updatedPermissions: undefined });
  });

  it("takes permission updates only from hooks that allowed, when the outcome allows", () => {
    const out = (value: unknown, decision: HookResult["decision"]) =>
      hook(specific("PermissionRequest", { decision: { behavior: decision, updatedPermissions: value } }), { decision });
    expect(relayedFields("PermissionRequest", [out("a", "allow"), out("b", "deny")], true).updatedPermissions).to.equal("a");
    expect(relayedFields("PermissionRequest", [out("a", "allow")], false).updatedPermissions).to.equal(undefined);
    // A later allowing hook that names no update leaves an earlier one's.
    const bare = hook(specific("PermissionRequest", { decision: { behavior: "allow" } }), { decision: "allow" });
    expect(relayedFields("PermissionRequest", [out("a", "allow"), bare], true).updatedPermissions).to.equal("a");
    expect(
      relayedFields("PermissionRequest", [out("a", "allow"), hook(specific("PermissionRequest", { decision: "allow" }), { decision: "allow" })], true)
        .updatedPermissions,
    ).to.equal("a");
  });

  it("a permission decision that is not an object carries no update", () => {
    const odd = hook(specific("PermissionRequest", { decision: null }), { decision: "allow" });
    expect(relayedFields("PermissionRequest", [odd], true)).to.deep.equal({ specific: {}, topLevel: {}, updatedPermissions: undefined });
  });

  it("finds no plain line where every hook printed JSON, nothing or failed", () => {
    expect(lastPlainLine([hook(""), hook("  {}"), hook("/p", { exitCode: 1 }), hook("/q", { outcome: "block" })])).to.equal(null);
    expect(lastPlainLine([hook("a\nb\n")])).to.equal("b");
    expect(lastPlainLine([hook("first\n   /tmp/wt  \n")])).to.equal("/tmp/wt");
  });
});
