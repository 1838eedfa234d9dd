import { expect } from "chai";
import type { Outcome } from "../../src/schema/outcome.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { EXIT2_DECISION, busWith, jsonHook, only, type Json } from "./helpers.js";

/**
 * Issue 25 item 4: stdout JSON that clearly says deny, block, ask or stop but breaks its event's schema elsewhere is
 * read as that decision, with the defect as a `malformed-output` warning; anything less stays `invalid-output`.
 */
describe("decisions: a malformed deny stays a deny", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  async function judge(event: string, ...outputs: (Json | string)[]): Promise<Outcome> {
    const bus = busWith(sb, event, ...outputs.map((o) => jsonHook(sb, o)));
    return bus.dispatch({ ...payloadFor(event, {}), hook_event_name: event });
  }

  /** The hook's block with the default reason, one kind-tagged warning on its result, and one line in the outcome. */
  function expectKept(outcome: Outcome, decision: string, defect: RegExp): void {
    const hook = only(outcome);
    expect(hook).to.include({ outcome: decision === "ask" ? "success" : "block", decision, error: null });
    expect(hook.warnings).to.have.length(1);
    expect(hook.warnings![0]!.kind).to.equal("malformed-output");
    expect(hook.warnings![0]!.message).to.match(defect);
    expect(outcome.warnings.filter((w) => w.includes("read as its"))).to.have.length(1);
  }

  const specific = (event: string, fields: Json) => ({ hookSpecificOutput: { hookEventName: event, ...fields } });

  for (const event of ["PreToolUse", "PreModelSwitch"]) {
    describe(event, () => {
      it("a deny whose reason is a number: denied, with the default reason that names the hook", async () => {
        const outcome = await judge(event, specific(event, { permissionDecision: "deny", permissionDecisionReason: 7 }));
        expect(outcome).to.include({ decision: "deny", blocked: true });
        expect(outcome.reason).to.match(/^blocked by hook .+ \(no reason given\)$/);
        expectKept(outcome, "deny", /^stdout JSON: hookSpecificOutput\.permissionDecisionReason: /);
      });

      it("a deny with a bad field elsewhere keeps its reason", async () => {
        const outcome = await judge(event, { ...specific(event, { permissionDecision: "deny", permissionDecisionReason: "no" }), systemMessage: 5 });
        expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no" });
        expect(outcome.systemMessages).to.deep.equal([]);
        expectKept(outcome, "deny", /^stdout JSON: systemMessage: /);
      });

      it("a deny naming the wrong event in hookEventName is still a deny", async () => {
        const outcome = await judge(event, specific("PostToolUse", { permissionDecision: "deny", permissionDecisionReason: "no" }));
        expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no" });
        expectKept(outcome, "deny", /hookEventName/);
      });

      it("a legacy top-level block beside a malformed allow is a deny, its top-level reason taken", async () => {
        const outcome = await judge(event, {
          decision: "block",
          reason: "legacy",
          ...specific(event, { permissionDecision: "allow", permissionDecisionReason: 1 }),
        });
        expect(outcome).to.include({ decision: "deny", blocked: true, reason: "legacy" });
      });

      it("a malformed ask is an ask (more restrictive than allow), not a block", async () => {
        const outcome = await judge(event, { ...specific(event, { permissionDecision: "ask", permissionDecisionReason: "confirm", stray: 1 }), continue: "x" });
        expect(outcome).to.include({ decision: "ask", blocked: false, reason: "confirm" });
        expectKept(outcome, "ask", /^stdout JSON: /);
      });

      it("a malformed allow stays invalid output, with no effect", async () => {
        const outcome = await judge(event, specific(event, { permissionDecision: "allow", permissionDecisionReason: ["ok"] }));
        expect(only(outcome)).to.include({ outcome: "invalid-output", decision: "none" });
        expect(only(outcome).warnings).to.equal(undefined);
        expect(outcome).to.include({ decision: "none", blocked: false });
      });
    });
  }

  describe("PermissionRequest", () => {
    const behaviour = (decision: Json, more: Json = {}) => ({ ...specific("PermissionRequest", { decision }), ...more });

    it("a deny with a bad updatedInput: denied, its message the reason", async () => {
      const outcome = await judge("PermissionRequest", behaviour({ behavior: "deny", message: "not here", updatedInput: "x" }));
      expect(outcome).to.include({ decision: "deny", blocked: true, reason: "not here", continue: true });
      expectKept(outcome, "deny", /updatedInput/);
    });

    it("a malformed deny with interrupt stops the agent too", async () => {
      const outcome = await judge("PermissionRequest", behaviour({ behavior: "deny", message: 3, interrupt: true }));
      expect(outcome).to.include({ decision: "deny", blocked: true, continue: false });
      expect(outcome.reason).to.match(/^blocked by hook .+ \(no reason given\)$/);
    });

    it("a malformed allow stays invalid output", async () => {
      const outcome = await judge("PermissionRequest", behaviour({ behavior: "allow", message: 3 }));
      expect(only(outcome)).to.include({ outcome: "invalid-output", decision: "none" });
      expect(outcome).to.include({ decision: "none", blocked: false });
    });
  });

  for (const [event] of EXIT2_DECISION.filter(([, d]) => d === "block")) {
    it(`${event}: a block with a reason of the wrong type and a bad field is a block, the default reason given`, async () => {
      const outcome = await judge(event, { decision: "block", reason: ["a", "b"], suppressOutput: "yes" });
      expect(outcome).to.include({ decision: "block", blocked: true });
      expect(outcome.reason).to.match(/^blocked by hook .+ \(no reason given\)$/);
      expectKept(outcome, "block", /^stdout JSON: /);
    });
  }

  it("a block with unknown keys is a plain block: unknown keys are no defect", async () => {
    const outcome = await judge("PostToolUse", { decision: "block", reason: "tests fail", verdict: "nope", extra: { a: 1 } });
    expect(outcome).to.include({ decision: "block", blocked: true, reason: "tests fail" });
    expect(only(outcome).warnings).to.equal(undefined);
    expect(outcome.warnings).to.deep.equal([]);
  });

  it("a block with unknown keys and a wrong type is a block with the warning", async () => {
    const outcome = await judge("PostToolUse", { decision: "block", reason: "tests fail", verdict: "nope", systemMessage: { a: 1 } });
    expect(outcome).to.include({ decision: "block", blocked: true, reason: "tests fail" });
    expectKept(outcome, "block", /^stdout JSON: systemMessage: /);
  });

  for (const event of ["SessionStart", "Notification"]) {
    it(`${event}: a malformed output cannot block an event that cannot be blocked, but its continue: false stops`, async () => {
      const block = await judge(event, { decision: "block", systemMessage: 1 });
      expect(only(block)).to.include({ outcome: "invalid-output", decision: "none" });
      const stop = await judge(event, { continue: false, stopReason: "halt", systemMessage: 1 });
      expect(stop).to.include({ decision: "none", blocked: false, continue: false, stopReason: "halt" });
      expect(only(stop).warnings![0]!.kind).to.equal("malformed-output");
    });
  }

  it("continue: false with a stopReason of the wrong type stops, without a stop reason", async () => {
    const outcome = await judge("Stop", { continue: false, stopReason: false });
    expect(outcome).to.include({ continue: false, stopReason: null, decision: "none" });
    expect(outcome.warnings.some((w) => w.endsWith("read as its stop all the same"))).to.equal(true);
  });

  it("a malformed deny beats a valid allow from another hook", async () => {
    const outcome = await judge(
      "PreToolUse",
      specific("PreToolUse", { permissionDecision: "allow", permissionDecisionReason: "fine" }),
      specific("PreToolUse", { permissionDecision: "deny", permissionDecisionReason: "no", updatedInput: [1] }),
    );
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no", updatedInput: null });
  });

  it("a valid deny is unchanged: no warnings", async () => {
    const outcome = await judge("PreToolUse", specific("PreToolUse", { permissionDecision: "deny", permissionDecisionReason: "no" }));
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no" });
    expect(only(outcome)).to.not.have.property("warnings");
    expect(outcome.warnings).to.deep.equal([]);
  });

  it("stdout that is not JSON is unchanged: the word deny is no deny, broken JSON is invalid output, an array is plain text", async () => {
    const words = await judge("PreToolUse", "deny");
    expect(only(words)).to.include({ outcome: "success", decision: "none" });
    const broken = await judge("PreToolUse", '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}');
    expect(only(broken)).to.include({ outcome: "invalid-output", decision: "none" });
    const array = await judge("Stop", '[{"decision":"block"}]');
    expect(only(array)).to.include({ outcome: "success", decision: "none" });
  });
});
