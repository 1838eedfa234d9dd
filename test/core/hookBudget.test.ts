import { expect } from "chai";
import { budgetKey, contextCharsOf, foldBudget, limitsFor, overBudget, overrunText, type BudgetEvent } from "../../src/core/hookBudget.js";
import type { HookResult } from "../../src/schema/outcome.js";
import type { EventName } from "../../src/schema/events.js";
import { BudgetSettingsSchema } from "../../src/schema/settings.js";
import { HookBudgetUsageSchema } from "../../src/schema/usage.js";
import { hookResultOf } from "../support/outcomes.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

const result = (name: string, durationMs: number, stdout = "", extra: Partial<HookResult> = {}): HookResult =>
  hookResultOf({ name, durationMs, stdout, ...extra });
const ev = (event: EventName, sessionId: string, ...hooks: HookResult[]): BudgetEvent => ({ event, sessionId, hooks });
const json = (context: string) => JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: context } });

describe("explain: the budget per hook (time per turn, context injected)", () => {
  describe("contextCharsOf", () => {
    it("counts additionalContext, and plain stdout only where stdout is context", () => {
      expect(contextCharsOf("UserPromptSubmit", result("a", 1, json("12345")))).to.equal(5);
      expect(contextCharsOf("UserPromptSubmit", result("a", 1, "  abc \n"))).to.equal(3);
      expect(contextCharsOf("PreToolUse", result("a", 1, "abc"))).to.equal(0);
    });
    it("counts nothing of a shadow hook, a failed run, broken JSON, or an event that carries no context", () => {
      expect(contextCharsOf("UserPromptSubmit", result("a", 1, json("x"), { shadow: true }))).to.equal(0);
      expect(contextCharsOf("UserPromptSubmit", result("a", 1, json("x"), { outcome: "error" }))).to.equal(0);
      expect(contextCharsOf("UserPromptSubmit", result("a", 1, "{not json"))).to.equal(0);
      expect(contextCharsOf("Notification", result("a", 1, "abc"))).to.equal(0);
    });
  });

  describe("foldBudget", () => {
    it("sums a hook's runs per turn (prompt to next prompt) and gives the mean and the largest turn", () => {
      const usage = foldBudget([
        ev("SessionStart", "s", result("ctx", 5, "hello")),
        ev("UserPromptSubmit", "s", result("g", 10, json("abcd"))),
        ev("PreToolUse", "s", result("g", 30)),
        ev("Stop", "s", result("g", 20)),
        ev("UserPromptSubmit", "s", result("g", 40)),
        ev("Stop", "s"),
      ]);
      expect(usage).to.deep.equal([
        { name: "ctx", level: "user", turns: 1, msPerTurn: { mean: 5, max: 5 }, contextChars: { total: 5, maxPerTurn: 5 } },
        { name: "g", level: "user", turns: 2, msPerTurn: { mean: 50, max: 60 }, contextChars: { total: 4, maxPerTurn: 4 } },
      ]);
    });
    it("keeps sessions apart, interleaved as they are in the log", () => {
      const usage = foldBudget([
        ev("UserPromptSubmit", "a", result("g", 10)),
        ev("UserPromptSubmit", "b", result("g", 100)),
        ev("Stop", "a", result("g", 10)),
        ev("Stop", "b", result("g", 100)),
      ]);
      expect(usage[0]).to.include({ turns: 2 });
      expect(usage[0]!.msPerTurn).to.deep.equal({ mean: 110, max: 200 });
    });
    it("folds nothing into nothing", () => expect(foldBudget([])).to.deep.equal([]));
    it("keys each hook by level and name: one name at two levels is two budgets", () => {
      const usage = foldBudget([
        ev("UserPromptSubmit", "s", result("lint", 10, "", { level: "user" }), result("lint", 70, "", { level: "project" })),
        ev("Stop", "s", result("lint", 5, "", { level: "project" })),
      ]);
      expect(usage.map((u) => [u.level, u.name, u.msPerTurn.max])).to.deep.equal([
        ["project", "lint", 75],
        ["user", "lint", 10],
      ]);
      expect(budgetKey("user", "lint")).to.not.equal(budgetKey("project", "lint"));
      expect(budgetKey("a", "b\0c")).to.not.equal(budgetKey("a\0b", "c"), "the key is one pair, whatever the two hold");
      expect(usage.every((u) => HookBudgetUsageSchema.safeParse(u).success)).to.equal(true);
    });
    it("counts a run logged under an old name as the hook's own when nameOf says so", () => {
      const usage = foldBudget([ev("UserPromptSubmit", "s", result("old-lint", 10), result("lint", 20))], (run) =>
        run.name === "old-lint" ? "lint" : run.name,
      );
      expect(usage.map((u) => [u.name, u.turns, u.msPerTurn.max])).to.deep.equal([["lint", 1, 30]]);
    });
  });

  describe("limits", () => {
    const budget = BudgetSettingsSchema.parse({ msPerTurn: 50, contextChars: 3, hooks: { g: { msPerTurn: 100 } } });
    const usage = foldBudget([ev("UserPromptSubmit", "s", result("g", 60, json("abcd")), result("h", 60))]);

    it("a hook's own limit replaces the global one it sets; the others stay global", () => {
      expect(limitsFor(budget, "g")).to.deep.equal({ msPerTurn: 100, contextChars: 3 });
      expect(limitsFor(budget, "h")).to.deep.equal({ msPerTurn: 50, contextChars: 3 });
    });
    it("each crossed limit is an overrun with a kind and one line", () => {
      const overruns = overBudget(usage, budget);
      expect(overruns).to.deep.equal([
        { kind: "context-chars", hook: "g", level: "user", value: 4, limit: 3 },
        { kind: "ms-per-turn", hook: "h", level: "user", value: 60, limit: 50 },
      ]);
      expect(overrunText(overruns[1]!)).to.equal("hook h (user) added 60 ms to a turn, over its budget of 50 ms (qhooks.budget.msPerTurn)");
      expect(overrunText({ kind: "context-chars", hook: "a\nb", level: "x\ny", value: 4, limit: 3 })).to.not.include("\n");
    });
    it("the same name at two levels: only the level over its limit is named", () => {
      const two = foldBudget([ev("UserPromptSubmit", "s", result("lint", 10, "", { level: "user" }), result("lint", 70, "", { level: "project" }))]);
      const overruns = overBudget(two, BudgetSettingsSchema.parse({ msPerTurn: 50 }));
      expect(overruns.map(overrunText)).to.deep.equal(["hook lint (project) added 70 ms to a turn, over its budget of 50 ms (qhooks.budget.msPerTurn)"]);
    });
    it("no limits, no overruns", () => expect(overBudget(usage, {})).to.deep.equal([]));
    it("the schema refuses a limit that is not a positive number, and an unknown key", () => {
      expect(BudgetSettingsSchema.safeParse({ msPerTurn: 0 }).success).to.equal(false);
      expect(BudgetSettingsSchema.safeParse({ contextChars: 1.5 }).success).to.equal(false);
      expect(BudgetSettingsSchema.safeParse({ msPerturn: 10 }).success).to.equal(false);
      expect(BudgetSettingsSchema.safeParse({ hooks: { g: { contextChars: -1 } } }).success).to.equal(false);
    });
  });

  describe("at run time (qhooks.budget in your settings)", function () {
    this.timeout(30_000);
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());
    const hooks = { UserPromptSubmit: [group(undefined, { command: "cat >/dev/null; echo twelve-chars", name: "ctx" })] };

    it("a hook whose run crosses a limit is one warning naming it and the limit; under the limit, none", async () => {
      sb.userSettings({ hooks, qhooks: { budget: { contextChars: 5, hooks: { other: { contextChars: 1 } } } } });
      const over = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit"), ["--no-log"]);
      const warnings = (over.outcome as { warnings: string[] }).warnings;
      expect(warnings).to.deep.equal(["hook ctx (user) injected 12 characters of context in a turn, over its budget of 5 (qhooks.budget.contextChars)"]);
      sb.userSettings({ hooks, qhooks: { budget: { contextChars: 5, hooks: { ctx: { contextChars: 100 } } } } });
      const under = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit"), ["--no-log"]);
      expect((under.outcome as { warnings: string[] }).warnings).to.deep.equal([]);
    });

    it("end to end: hooks that sleep, two turns through the CLI into the SQLite log; hooks --usage gives their ms per turn, and a low limit warns", async () => {
      const slow = { command: "cat >/dev/null; sleep 0.2", name: "slow" };
      sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, slow)], Stop: [group(undefined, slow)] }, qhooks: { budget: { msPerTurn: 100 } } });
      const warnings: string[] = [];
      for (let turn = 0; turn < 2; turn++)
        for (const event of ["UserPromptSubmit", "Stop"]) {
          const r = await sb.runEvent(event, payloadFor(event, { session_id: "e2e" }));
          expect(r.code, r.stderr).to.equal(0);
          warnings.push(...(r.outcome as { warnings: string[] }).warnings);
        }
      expect(warnings).to.have.length(4);
      for (const w of warnings) expect(w).to.match(/^hook slow \(user\) added \d+(\.\d+)? ms to a turn, over its budget of 100 ms/);
      const usage = await sb.run(["hooks", "--usage", "--format", "json"]);
      expect(usage.code, usage.stderr).to.equal(0);
      const budget = (JSON.parse(usage.stdout) as { budget: { name: string; turns: number; msPerTurn: { mean: number; max: number } }[] }).budget;
      const entry = budget.find((b) => b.name === "slow");
      expect(entry, usage.stdout).to.not.equal(undefined);
      expect(entry!.turns).to.equal(2);
      // Two runs of 200 ms each per turn: at least 400, and coarse above (a loaded machine is slow, never fast).
      expect(entry!.msPerTurn.mean).to.be.within(400, 20_000);
      expect(entry!.msPerTurn.max).to.be.within(400, 20_000);
      const table = await sb.run(["hooks", "--usage"]);
      expect(table.stdout).to.match(/MS\/TURN/);
    });

    it("a project's qhooks.budget is ignored with one warning (it could hide what its hooks cost)", async () => {
      sb.userSettings({ hooks });
      sb.projectSettings({ qhooks: { budget: { contextChars: 1 } } });
      const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit"), ["--no-log"]);
      expect((r.outcome as { warnings: string[] }).warnings.join("\n")).to.not.include("over its budget");
      expect(r.stderr).to.include("qhooks.budget: read only from your own settings");
    });
  });
});
