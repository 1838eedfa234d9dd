import { expect } from "chai";
import { foldBudget, type BudgetEvent } from "../../src/core/hookBudget.js";
import { budgetRows, budgetStep, emptyBudget } from "../../src/report/reportBudget.js";
import { emptyReport, reportStep } from "../../src/report/reportData.js";
import { renderReport } from "../../src/report/renderReport.js";
import type { EventName } from "../../src/schema/events.js";
import type { HookResult } from "../../src/schema/outcome.js";
import { hookResultOf } from "../support/outcomes.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

const run = (name: string, level: string, durationMs: number, stdout = ""): HookResult => hookResultOf({ name, level, durationMs, stdout });
const ev = (event: EventName, sessionId: string, ...hooks: HookResult[]): BudgetEvent => ({ event, sessionId, hooks });
/** The report reads newest first. */
const reportFold = (events: readonly BudgetEvent[]) => [...events].reverse().reduce(budgetStep, emptyBudget());

/** A small deterministic generator (a linear congruential one), so that a failure can be run again. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe("report: the budget per hook", () => {
  describe("the fold over events read newest first", () => {
    it("gives what hooks --usage's fold gives in log order: turns from prompt to prompt, the first one with what came before", () => {
      const events = [
        ev("SessionStart", "s", run("ctx", "user", 5, "hello")),
        ev("UserPromptSubmit", "s", run("g", "user", 10)),
        ev("PreToolUse", "t", run("g", "user", 7)),
        ev("PreToolUse", "s", run("g", "user", 30), run("g", "project", 1)),
        ev("Stop", "s", run("g", "user", 20)),
        ev("UserPromptSubmit", "s", run("g", "user", 40)),
        ev("Stop", "s"),
      ];
      const rows = budgetRows(reportFold(events));
      expect(rows).to.deep.equal(foldBudget(events));
      expect(rows.map((r) => [r.name, r.level, r.turns, r.msPerTurn.max])).to.deep.equal([
        ["ctx", "user", 1, 5],
        ["g", "project", 1, 1],
        ["g", "user", 3, 60],
      ]);
    });

    it("agrees with hooks --usage's fold on 300 random logs (sessions interleaved, prompts anywhere or nowhere)", () => {
      const next = random(25);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
      const kinds: EventName[] = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "Notification"];
      for (let i = 0; i < 300; i++) {
        const events = Array.from({ length: Math.floor(next() * 25) }, () =>
          ev(
            pick(kinds),
            pick(["a", "b", "c"]),
            ...Array.from({ length: Math.floor(next() * 3) }, () =>
              run(pick(["lint", "ctx"]), pick(["user", "project"]), Math.floor(next() * 100), pick(["", "some context"])),
            ),
          ),
        );
        expect(budgetRows(reportFold(events)), `log ${i}`).to.deep.equal(foldBudget(events));
      }
    });

    it("reading the rows changes nothing: the fold goes on after it, and nothing read is no row", () => {
      const budget = reportFold([ev("UserPromptSubmit", "s", run("g", "user", 10)), ev("Stop", "s", run("g", "user", 5))]);
      const once = budgetRows(budget);
      expect(budgetRows(budget)).to.deep.equal(once);
      budgetStep(budget, ev("SessionStart", "s", run("g", "user", 1)));
      expect(budgetRows(budget)[0]!.msPerTurn.max).to.equal(16);
      expect(budgetRows(emptyBudget())).to.deep.equal([]);
    });

    it("reportStep folds it for every judged event of a session, and leaves out those of no session", () => {
      const base = { seq: 1, ts: "2026-01-13T01:00:00.000Z", projectDir: "/p", payload: {}, source: "dispatch", replay: null, asyncHooks: [], tried: null };
      const origin = { machine: "m", user: "u", writer: "w", seq: 1, host: null };
      const record = (sessionId: string | null, hooks: HookResult[]) =>
        ({ ...base, event: "UserPromptSubmit", sessionId, decision: "none", blocked: false, hooks, origin }) as unknown as Parameters<typeof reportStep>[1];
      let data = reportStep(emptyReport(), record("s", [run("g", "user", 10)]));
      data = reportStep(data, record(null, [run("g", "user", 1000)]));
      expect(budgetRows(data.budget).map((r) => r.msPerTurn.max)).to.deep.equal([10]);
    });
  });

  describe("the table in the page", () => {
    const page = (events: readonly BudgetEvent[]) => {
      const data = emptyReport();
      (data as { read: number }).read = 1;
      for (const e of [...events].reverse()) budgetStep(data.budget, e);
      return renderReport({ data, total: 1, selection: "", generatedAt: new Date(0), utc: true, logPath: "/l.db" });
    };

    it("one row per hook and level, the costliest turn first, names escaped", () => {
      const html = page([ev("UserPromptSubmit", "s", run("lint", "user", 10, "abc"), run("lint", "project", 70), run("<b>x</b>", "user", 1))]);
      const table = html.slice(html.indexOf('<table id="hook-budget">'), html.indexOf("</table>", html.indexOf('<table id="hook-budget">')));
      const rows = [...table.matchAll(/<tr data-budget-row="([^"]*)" data-level="([^"]*)">(.*?)<\/tr>/g)].map((m) => [
        m[1],
        m[2],
        [...m[3]!.matchAll(/<td class="n">([^<]*)<\/td>/g)].map((c) => c[1]),
      ]);
      expect(rows).to.deep.equal([
        ["lint", "project", ["1", "70", "70", "0", "0"]],
        ["lint", "user", ["1", "10", "10", "3", "3"]],
        ["&lt;b&gt;x&lt;/b&gt;", "user", ["1", "1", "1", "0", "0"]],
      ]);
      expect(html).to.include("<h2>Budget per hook</h2>");
    });

    it("no hook run in a session: says so", () => {
      expect(page([ev("Stop", "s")])).to.include('<p class="muted" id="hook-budget">No hook ran in a session.</p>');
    });
  });

  describe("end to end", function () {
    this.timeout(30_000);
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());

    it("qhooks report: the user's and the project's hook of one name each have their row, as hooks --usage counts them", async () => {
      sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, { command: "cat >/dev/null; echo user-ctx", name: "lint" })] } });
      sb.projectSettings({ hooks: { UserPromptSubmit: [group(undefined, { command: "cat >/dev/null; echo the-projects-ctx", name: "lint" })] } });
      for (const session of ["a", "a", "b"]) await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { session_id: session }));
      const r = await sb.run(["report", "-o", "-"]);
      expect(r.code, r.stderr).to.equal(0);
      const row = (level: string) => {
        const m = r.stdout.match(new RegExp(`<tr data-budget-row="lint" data-level="${level}">(.*?)</tr>`));
        expect(m, level).to.not.equal(null);
        return [...m![1]!.matchAll(/<td class="n">([^<]*)<\/td>/g)].map((c) => c[1]);
      };
      // Turns, then the context: three turns of 8 and of 16 characters.
      expect([row("user")[0], row("user")[3], row("user")[4]]).to.deep.equal(["3", "24", "8"]);
      expect([row("project")[0], row("project")[3], row("project")[4]]).to.deep.equal(["3", "48", "16"]);
    });
  });
});
