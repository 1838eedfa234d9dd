import { expect } from "chai";
import { foldVerdicts } from "../../src/core/foldOutcome.js";
import type { JudgedHook } from "../../src/core/hookRun.js";
import { aggregateStep } from "../../src/engine/steps/aggregateOutcome.js";
import type { Ran } from "../../src/engine/stages.js";
import type { EventName } from "../../src/schema/events.js";
import type { Verdict } from "../../src/schema/hookOutput.js";
import type { HookResult, SkippedHook } from "../../src/schema/outcome.js";
import type { SettingsSnapshot } from "../../src/settings/loadSettings.js";

function judged(name: string, verdict: Partial<Verdict> = {}, more: { shadow?: true; warnings?: string[] } = {}): JudgedHook {
  const v: Verdict = {
    decision: "none",
    reason: null,
    continue: true,
    stopReason: null,
    systemMessage: null,
    additionalContext: null,
    updatedInput: null,
    suppressOutput: false,
    ignored: [],
    ...verdict,
  };
  const blocking = v.decision === "deny" || v.decision === "block";
  const result: HookResult = {
    name,
    command: `./${name}.sh`,
    level: "user",
    matcher: null,
    outcome: blocking ? "block" : "success",
    decision: v.decision,
    reason: v.reason,
    error: null,
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    stdout: "",
    stderr: "",
    truncated: false,
    ...(more.shadow ? { shadow: true as const } : {}),
  };
  return { result, verdict: v, warnings: more.warnings ?? [] };
}

/** A stage as the hooks step leaves it; the snapshot is only read for its hash and its sources (none: no user tier) here. */
function ran(event: EventName, hooks: JudgedHook[], more: Partial<Ran> = {}): Ran {
  return {
    arrival: { input: "{}", receivedAt: new Date(0), startedAt: 100 },
    valid: { event, sessionId: "s-1", payload: {}, json: "{}", matchValue: null },
    snapshot: { hash: "cfg-hash", sources: [] } as unknown as SettingsSnapshot,
    hooks: [],
    skipped: [],
    selectionWarnings: [],
    background: undefined,
    seq: 7,
    arrivalLogged: "yes",
    warnings: [],
    judged: hooks,
    env: undefined,
    ...more,
  };
}
const step = aggregateStep(() => 105.27);

/** The last step before the log: the hooks' verdicts and the stage's facts as one outcome (contract 3.3). */
describe("engine: aggregateStep, one outcome per event", () => {
  it("an event no hook ran for: no decision, nothing to say, in the contract's key order", () => {
    const stage = ran("PreToolUse", []);
    const { outcome } = step(stage);
    expect(outcome).to.deep.equal({
      event: "PreToolUse",
      sessionId: "s-1",
      seq: 7,
      decision: "none",
      blocked: false,
      reason: null,
      continue: true,
      stopReason: null,
      systemMessages: [],
      additionalContext: [],
      updatedInput: null,
      suppressOutput: false,
      configHash: "cfg-hash",
      durationMs: 5.3,
      hooks: [],
      skipped: [],
      env: {},
      warnings: [],
    });
    expect(Object.keys(outcome)).to.deep.equal([
      "event",
      "sessionId",
      "seq",
      "decision",
      "blocked",
      "reason",
      "continue",
      "stopReason",
      "systemMessages",
      "additionalContext",
      "updatedInput",
      "suppressOutput",
      "configHash",
      "durationMs",
      "hooks",
      "skipped",
      "env",
      "warnings",
    ]);
  });

  it("keeps every fact of the stage it was given", () => {
    const stage = ran("Stop", [judged("a")], { background: [], arrivalLogged: "deferred", seq: null });
    const out = step(stage);
    expect(out.arrival).to.equal(stage.arrival);
    expect(out.valid).to.equal(stage.valid);
    expect(out.snapshot).to.equal(stage.snapshot);
    expect(out.hooks).to.equal(stage.hooks);
    expect(out.skipped).to.equal(stage.skipped);
    expect(out.selectionWarnings).to.equal(stage.selectionWarnings);
    expect(out.background).to.equal(stage.background);
    expect(out.seq).to.equal(null);
    expect(out.arrivalLogged).to.equal("deferred");
    expect(out.outcome.seq).to.equal(null);
  });

  it("measures the event from its arrival, to a tenth of a millisecond", () => {
    expect(aggregateStep(() => 100.04)(ran("Stop", [])).outcome.durationMs).to.equal(0);
    expect(aggregateStep(() => 350.06)(ran("Stop", [])).outcome.durationMs).to.equal(250.1);
    // By default the clock is performance.now(), as the arrival's startedAt.
    const arrival = { input: "{}", receivedAt: new Date(), startedAt: performance.now() };
    const measured = aggregateStep()(ran("Stop", [], { arrival })).outcome.durationMs;
    expect(measured).to.be.a("number").at.least(0).and.below(60_000);
  });

  it("folds the hooks' verdicts and lists their results in order", () => {
    const hooks = [judged("a", { decision: "allow", systemMessage: "m1" }), judged("b", { decision: "deny", reason: "no", additionalContext: "c" })];
    const { outcome } = step(ran("PreToolUse", hooks));
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no" });
    expect(outcome.systemMessages).to.deep.equal(["m1"]);
    expect(outcome.additionalContext).to.deep.equal(["c"]);
    expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["a", "b"]);
    expect(outcome.hooks[1]).to.equal(hooks[1]!.result);
  });

  it("copies what was skipped and the variables of $CLAUDE_ENV_FILE", () => {
    const skipped: SkippedHook[] = [
      { name: "u", command: "./u.sh", level: "project", matcher: null, type: "command", reason: "untrusted", message: "hook u is not trusted" },
    ];
    const env = { A: "1" };
    const { outcome } = step(ran("SessionStart", [judged("a")], { skipped, env }));
    expect(outcome.skipped).to.deep.equal(skipped);
    expect(outcome.skipped).to.not.equal(skipped);
    expect(outcome.env).to.deep.equal({ A: "1" });
    expect(outcome.env).to.not.equal(env);
  });

  it("lists warnings in order: selection's, the stage's, then the fold's", () => {
    const hooks = [judged("a", {}, { warnings: ["hook a: x ignored"] })];
    const stage = ran("Stop", hooks, {
      selectionWarnings: ["hook u is not trusted"],
      warnings: [{ kind: "log", of: "reopened", message: "reopened" }],
    });
    const out = step(stage);
    expect(out.outcome.warnings).to.deep.equal(["hook u is not trusted", "event log: reopened", "hook a: x ignored"]);
    expect(out.warnings.map((w) => w.kind)).to.deep.equal(["line", "log", "line"]);
    // With nothing from selection or the fold, the stage's warnings pass as they are.
    const alone = step(ran("Stop", [judged("a")], { warnings: [{ kind: "line", text: "only" }] }));
    expect(alone.outcome.warnings).to.deep.equal(["only"]);
    expect(step(ran("Stop", [], { selectionWarnings: ["sel"] })).outcome.warnings).to.deep.equal(["sel"]);
    // The fold's own warnings, with nothing from selection.
    const folded = step(ran("Stop", [judged("a", {}, { warnings: ["hook a: y ignored"] })], { warnings: [{ kind: "line", text: "stage" }] }));
    expect(folded.outcome.warnings).to.deep.equal(["stage", "hook a: y ignored"]);
  });

  describe("shadow hooks", () => {
    it("never count, and the outcome says what enforcing them would change, before env", () => {
      const hooks = [judged("real", { decision: "allow" }), judged("trial", { decision: "deny", reason: "would deny" }, { shadow: true })];
      const { outcome } = step(ran("PreToolUse", hooks));
      expect(outcome).to.include({ decision: "allow", blocked: false, reason: null });
      expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["real", "trial"]);
      expect(outcome.shadow).to.deep.equal({ hooks: ["trial"], decision: "deny", blocked: true, reason: "would deny", continue: true, changed: true });
      const keys = Object.keys(outcome);
      expect(keys.slice(-4)).to.deep.equal(["skipped", "shadow", "env", "warnings"]);
    });

    it("a shadow hook alone: the real outcome is that of no hook", () => {
      const { outcome } = step(ran("Stop", [judged("trial", { decision: "block", reason: "r", systemMessage: "m" }, { shadow: true })]));
      expect(outcome).to.include({ decision: "none", blocked: false, reason: null, continue: true });
      expect(outcome.systemMessages).to.deep.equal([]);
      expect(outcome.shadow).to.include({ decision: "block", blocked: true, changed: true });
    });

    it("changed: only when the decision, continue or the tool input would differ", () => {
      const same = step(ran("PreToolUse", [judged("a", { decision: "deny" }), judged("t", { decision: "deny", systemMessage: "x" }, { shadow: true })]));
      expect(same.outcome.shadow).to.include({ changed: false });
      const stops = step(ran("Stop", [judged("a"), judged("t", { continue: false }, { shadow: true })]));
      expect(stops.outcome.shadow).to.include({ changed: true, continue: false, decision: "none" });
      const rewrites = step(ran("PreToolUse", [judged("a", { updatedInput: { x: 1 } }), judged("t", { updatedInput: { x: 2 } }, { shadow: true })]));
      expect(rewrites.outcome.shadow).to.include({ changed: true, decision: "none" });
      const sameInput = step(
        ran("PreToolUse", [judged("a", { updatedInput: { x: 1, y: 2 } }), judged("t", { updatedInput: { y: 2, x: 1 } }, { shadow: true })]),
      );
      expect(sameInput.outcome.shadow).to.include({ changed: false });
    });

    it("an event without shadow hooks has no shadow field", () => {
      expect(step(ran("Stop", [judged("a", { decision: "block" })])).outcome).to.not.have.property("shadow");
    });
  });
});

describe("core: foldVerdicts, corners", () => {
  it("a decision the event cannot make never wins", () => {
    expect(foldVerdicts("Stop", [judged("a", { decision: "ask" })]).decision).to.equal("none");
    expect(foldVerdicts("Stop", [judged("a", { decision: "allow" }), judged("b", { decision: "block" })]).decision).to.equal("block");
  });

  it("a reason without a decision is no reason of the outcome", () => {
    expect(foldVerdicts("Stop", [judged("a", { reason: "said why" }), judged("b", { reason: "also" })]).reason).to.equal(null);
  });

  it("a hook that rewrote nothing keeps the earlier rewrite, without a warning", () => {
    const folded = foldVerdicts("PreToolUse", [judged("a", { updatedInput: { command: "ls" } }), judged("b")]);
    expect(folded.updatedInput).to.deep.equal({ command: "ls" });
    expect(folded.warnings).to.deep.equal([]);
  });

  it("two different rewrites: the later wins, with a warning naming both on one line", () => {
    const folded = foldVerdicts("PreToolUse", [judged("a\nb", { updatedInput: { command: "ls" } }), judged("c", { updatedInput: { command: "pwd" } })]);
    expect(folded.updatedInput).to.deep.equal({ command: "pwd" });
    expect(folded.warnings).to.deep.equal(["hooks a\\nb and c both rewrote the tool input; c wins (later in priority order)"]);
  });
});
