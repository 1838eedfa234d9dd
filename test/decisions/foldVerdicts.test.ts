import { expect } from "chai";
import { foldVerdicts } from "../../src/core/foldOutcome.js";
import type { JudgedHook } from "../../src/core/hookRun.js";
import type { Decision, EventName } from "../../src/schema/events.js";
import type { Verdict } from "../../src/schema/hookOutput.js";
import type { HookResult } from "../../src/schema/outcome.js";

/** Contract 3.3, as a pure function: one outcome from the hooks' verdicts, in selection order. */
describe("decisions: foldVerdicts (aggregation)", () => {
  function hook(name: string, verdict: Partial<Verdict> = {}, warnings: string[] = []): JudgedHook {
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
    };
    return { result, verdict: v, warnings };
  }
  const decide = (d: Decision, reason: string | null = `${d}-reason`) => ({ decision: d, reason });

  /** Every ordering of a list, to show that the strongest decision wins wherever it stands. */
  function permutations<T>(items: readonly T[]): T[][] {
    if (items.length <= 1) return [items.slice()];
    return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
  }

  describe("decision precedence", () => {
    const cases: ReadonlyArray<readonly [EventName, Decision[], Decision]> = [
      ["PreToolUse", ["allow", "ask", "deny", "none"], "deny"],
      ["PreToolUse", ["allow", "ask", "none"], "ask"],
      ["PreToolUse", ["allow", "none"], "allow"],
      ["PreToolUse", ["none", "none"], "none"],
      ["PermissionRequest", ["allow", "deny", "none"], "deny"],
      ["PermissionRequest", ["allow", "none"], "allow"],
      ["Stop", ["none", "block", "none"], "block"],
      ["PostToolUse", ["block", "none"], "block"],
      ["SubagentStop", ["none"], "none"],
    ];
    for (const [event, decisions, winner] of cases) {
      it(`${event}: ${decisions.join(", ")} → ${winner}, in any order`, () => {
        for (const order of permutations(decisions)) {
          const folded = foldVerdicts(
            event,
            order.map((d, i) => hook(`h${i}`, decide(d))),
          );
          expect(folded.decision, order.join(",")).to.equal(winner);
          expect(folded.blocked, order.join(",")).to.equal(winner === "deny" || winner === "block");
        }
      });
    }

    it("no hooks: decision none, nothing blocked, defaults everywhere", () => {
      const folded = foldVerdicts("PreToolUse", []);
      expect(folded).to.deep.include({
        decision: "none",
        blocked: false,
        reason: null,
        continue: true,
        stopReason: null,
        systemMessages: [],
        additionalContext: [],
        updatedInput: null,
      });
    });

    it("ask and allow never count as blocked", () => {
      expect(foldVerdicts("PreToolUse", [hook("a", decide("ask"))]).blocked).to.equal(false);
      expect(foldVerdicts("PermissionRequest", [hook("a", decide("allow"))]).blocked).to.equal(false);
    });
  });

  describe("reason", () => {
    it("joins the reasons of the hooks that made the winning decision, in selection order", () => {
      const folded = foldVerdicts("PreToolUse", [
        hook("a", decide("allow", "allowed by a")),
        hook("b", decide("deny", "denied by b")),
        hook("c", decide("ask", "ask from c")),
        hook("d", decide("deny", "denied by d\nwith detail")),
      ]);
      expect(folded.reason).to.equal("denied by b\ndenied by d\nwith detail");
    });

    it("takes the reasons of the winning decision even when it is not a block", () => {
      const folded = foldVerdicts("PreToolUse", [hook("a", decide("allow", "one")), hook("b", decide("ask", "two")), hook("c", decide("ask", "three"))]);
      expect(folded.reason).to.equal("two\nthree");
    });

    it("is null when no hook decided", () => {
      expect(foldVerdicts("Stop", [hook("a"), hook("b")]).reason).to.equal(null);
    });
  });

  describe("continue and stopReason", () => {
    it("continue is false if any hook said so; stop reasons are joined in order", () => {
      const folded = foldVerdicts("PostToolUse", [
        hook("a", { continue: false, stopReason: "first stop" }),
        hook("b"),
        hook("c", { continue: false, stopReason: null }),
        hook("d", { continue: false, stopReason: "second stop" }),
      ]);
      expect(folded.continue).to.equal(false);
      expect(folded.stopReason).to.equal("first stop\nsecond stop");
    });

    it("continue stays true when every hook continues", () => {
      const folded = foldVerdicts("PostToolUse", [hook("a", { stopReason: "unused" }), hook("b")]);
      expect(folded.continue).to.equal(true);
    });
  });

  it("keeps every system message and every additional context, in selection order", () => {
    const folded = foldVerdicts("UserPromptSubmit", [
      hook("a", { systemMessage: "m1", additionalContext: "c1" }),
      hook("b", { additionalContext: "c2" }),
      hook("c", { systemMessage: "m2" }),
      hook("d", { ...decide("block"), systemMessage: "m3", additionalContext: "c3" }),
    ]);
    expect(folded.systemMessages).to.deep.equal(["m1", "m2", "m3"]);
    expect(folded.additionalContext).to.deep.equal(["c1", "c2", "c3"]);
  });

  describe("updatedInput", () => {
    it("is the last one in selection order, with a warning when two rewrites differ", () => {
      const folded = foldVerdicts("PreToolUse", [
        hook("early", { decision: "allow", updatedInput: { command: "ls" } }),
        hook("quiet"),
        hook("late", { decision: "allow", updatedInput: { command: "ls -la" } }),
      ]);
      expect(folded.updatedInput).to.deep.equal({ command: "ls -la" });
      const warning = folded.warnings.find((w) => w.includes("early") && w.includes("late"));
      expect(warning, folded.warnings.join("\n")).to.be.a("string");
    });

    it("gives no warning when two hooks rewrite the input identically (key order aside)", () => {
      const folded = foldVerdicts("PreToolUse", [
        hook("a", { updatedInput: { command: "ls", cwd: "/x" } }),
        hook("b", { updatedInput: { cwd: "/x", command: "ls" } }),
      ]);
      expect(folded.updatedInput).to.deep.equal({ command: "ls", cwd: "/x" });
      expect(folded.warnings).to.deep.equal([]);
    });

    it("hooks that ask or make no decision still rewrite: the last of them wins", () => {
      const folded = foldVerdicts("PreToolUse", [
        hook("a", { decision: "ask", updatedInput: { command: "a" } }),
        hook("b", { decision: "none", updatedInput: { command: "b" } }),
      ]);
      expect(folded.updatedInput).to.deep.equal({ command: "b" });
      expect(folded.decision).to.equal("ask");
    });

    it("is dropped when the outcome is blocked", () => {
      for (const [event, d] of [
        ["PreToolUse", "deny"],
        ["PermissionRequest", "deny"],
      ] as const) {
        const folded = foldVerdicts(event, [hook("a", { decision: "allow", updatedInput: { command: "x" } }), hook("b", decide(d))]);
        expect(folded.blocked, event).to.equal(true);
        expect(folded.updatedInput, event).to.equal(null);
      }
    });

    it("a blocking hook's own rewrite never counts, even for the warning", () => {
      const folded = foldVerdicts("PreToolUse", [
        hook("a", { decision: "allow", updatedInput: { command: "x" } }),
        hook("b", { decision: "deny", reason: "no", updatedInput: { command: "y" } }),
      ]);
      expect(folded.updatedInput).to.equal(null);
      expect(folded.warnings.filter((w) => w.includes("rewrote"))).to.deep.equal([]);
    });
  });

  it("passes on each hook's own warnings, in order", () => {
    const folded = foldVerdicts("SessionStart", [hook("a", {}, ["w-a"]), hook("b", {}, ["w-b1", "w-b2"])]);
    expect(folded.warnings).to.deep.equal(["w-a", "w-b1", "w-b2"]);
  });

  it("suppressOutput is set when any hook asked for it", () => {
    expect(foldVerdicts("PostToolUse", [hook("a"), hook("b", { suppressOutput: true })]).suppressOutput).to.equal(true);
    expect(foldVerdicts("PostToolUse", [hook("a"), hook("b")]).suppressOutput).to.equal(false);
  });
});
