import { EXIT } from "../../errors.js";
import { configOfSettings } from "../../explain/loggedConfig.js";
import { usageLedger } from "../../explain/usageLedger.js";
import { budgetKey, foldBudget, type BudgetEvent, type HookBudgetUsage } from "../../core/hookBudget.js";
import type { DeclaredHook } from "../../core/hookDescriptor.js";
import { loggedHookNames, type NamedHook } from "../../explain/loggedHookNames.js";
import type { HookUsage, UsageOutput } from "../../schema/usage.js";
import { openStore, type Store } from "../../store/openStore.js";
import type { LogFilter } from "../../schema/logFilter.js";
import { timeWindow } from "../filterFlags.js";
import type { CliContext } from "../globals.js";
import { settingsOfFlags } from "../settingsFlags.js";
import { out } from "../io.js";
import { hookRunCountColumns } from "../../display/hookRunColumns.js";
import { renderTable, renderTsv, type Column } from "../../display/table.js";
import { commandTerminal } from "../../display/terminal.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";
import { showTime } from "../../display/times.js";

export interface UsageFlags {
  readonly event?: string | undefined;
  readonly settings: readonly string[];
  readonly plugin: readonly string[];
  readonly format: "table" | "tsv" | "json";
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly utc: boolean;
}

/** `qhooks hooks --usage`: every configured hook, loaded or not, with what the log says it did in the window. */
export async function hooksUsageCommand(flags: UsageFlags, context: CliContext): Promise<number> {
  const window = timeWindow(flags);
  const snapshot = settingsOfFlags(flags, context);
  const log = openStore(context.dbPath, { mustExist: true });
  let ledger;
  let budget: HookBudgetUsage[];
  try {
    const events = await budgetEvents(log, window);
    // A renamed hook's runs, logged under its old names, count as the hook's own: one row, not two.
    const names = loggedHookNames(
      [...snapshot.hooks, ...snapshot.disabled.map((d) => d.hook)].map(namedHook),
      events.flatMap((e) => e.hooks),
      snapshot.hookAliases,
    );
    const [stats, matchCounts] = [await log.stats(window, names), await log.matchCounts(window)];
    ledger = usageLedger({
      view: configOfSettings(snapshot),
      configHash: snapshot.hash,
      configWarnings: snapshot.warnings,
      stats,
      matchCounts,
      since: window.since,
      until: window.until,
    });
    budget = foldBudget(events, (run) => names.get(run.name) ?? run.name);
  } finally {
    await log.close();
  }
  const rows = ledger.hooks.filter((h) => flags.event === undefined || h.event === flags.event);
  const byKey = new Map(budget.map((b) => [budgetKey(b.level, b.name), b]));
  if (flags.format === "json") {
    const keys = new Set(rows.map(rowKey));
    const output: UsageOutput = { ...ledger, hooks: rows, budget: budget.filter((b) => keys.has(budgetKey(b.level, b.name))) };
    out(JSON.stringify(output, null, 2));
    return EXIT.ok;
  }
  const columns = usageColumns(flags.utc, byKey);
  if (flags.format === "tsv") {
    out(renderTsv(columns, rows));
    return EXIT.ok;
  }
  const terminal = commandTerminal(context);
  const shown = terminal.utf8 ? escapeForTerminal : escapeToAscii;
  const span = `${window.since ? `since ${showTime(window.since.toISOString(), flags.utc).text}` : "all of the log"}${window.until ? `, until ${showTime(window.until.toISOString(), flags.utc).text}` : ""}`;
  out(`Hook usage, ${span} (config ${snapshot.hash.slice(0, 12)}, the settings files as they are now):`);
  out("");
  out(rows.length === 0 ? "No hooks configured." : renderTable(columns, rows, terminal));

  const never = rows.filter((h) => h.neverFired);
  if (never.length) {
    out("");
    out(`Never fired (${never.length}): their matcher matched none of the events of their kind in this window:`);
    for (const h of never)
      out(
        `  ${shown(h.name ?? "?")} (${h.event}, matcher ${JSON.stringify(shown(h.matcher ?? "*"))}): 0 of ${h.events} ${h.event} events matched; qhooks explain SEQ shows why for one of them`,
      );
  }
  const broken = rows.filter((h) => !h.loaded);
  if (broken.length) {
    out("");
    out(`Not loaded (${broken.length}):`);
    for (const h of broken) out(`  ${shown(h.notLoaded ?? "")}`);
  }
  return EXIT.ok;
}

const ms = (v: number | null) => (v === null ? "" : String(Math.round(v * 10) / 10));

/** At most this many events of the window are folded into the budget (the newest): a bound on memory and time. */
const BUDGET_EVENTS = 100_000;

/** The window's events, oldest first, as the budget fold reads them. */
async function budgetEvents(log: Store, window: Pick<LogFilter, "since" | "until">): Promise<BudgetEvent[]> {
  const events: BudgetEvent[] = [];
  for await (const r of log.events(window, BUDGET_EVENTS))
    if (r.event !== null && r.sessionId !== null) events.push({ event: r.event, sessionId: r.sessionId, hooks: r.hooks });
  return events.reverse();
}

/** A ledger row's budget key: its runs are logged with the level `plugin` for a plugin's hook. */
const rowKey = (h: HookUsage): string => budgetKey(h.source.plugin ? "plugin" : h.source.level, h.name ?? "");

/** A configured hook as the log names its runs. */
const namedHook = (h: DeclaredHook): NamedHook => ({ name: h.name, level: h.plugin ? "plugin" : h.level, command: h.command });

function usageColumns(utc: boolean, budget: ReadonlyMap<string, HookBudgetUsage>): Column<HookUsage>[] {
  return [
    { header: "EVENT", cell: (h) => h.event, max: 20, min: 6, keep: 10 },
    { header: "HOOK", cell: (h) => `${h.name ?? "?"}${h.mode === "shadow" ? " [shadow]" : ""}`, max: 40, min: 8, keep: 11 },
    { header: "LEVEL", cell: (h) => (h.source.plugin ? `plugin ${h.source.plugin}` : h.source.level), max: 12, min: 5, keep: 3, cutFrom: "start" },
    { header: "LOADED", cell: (h) => (h.loaded ? "yes" : "no"), style: (h) => (h.loaded ? null : "red"), keep: 9 },
    // Matched events of its kind out of all of them in the window (`hooks --help`); a hook that never fired is yellow.
    {
      header: "FIRED",
      cell: (h) => (h.loaded ? `${h.matched}/${h.events}` : ""),
      style: (h) => (h.neverFired ? "yellow" : null),
      keep: 8,
      align: "right",
    },
    ...hookRunCountColumns<HookUsage>({ runs: 8, blocks: 7, errors: 6, badOutput: 3, timeouts: 5 }),
    { header: "P50 MS", cell: (h) => ms(h.p50Ms), keep: 4, align: "right" },
    { header: "P95 MS", cell: (h) => ms(h.p95Ms), keep: 2, align: "right" },
    { header: "MAX MS", cell: (h) => ms(h.maxMs), keep: 1, align: "right" },
    // The budget: the largest turn's time and context of the hook (qhooks.budget).
    { header: "MS/TURN", cell: (h) => ms(budget.get(rowKey(h))?.msPerTurn.max ?? null), keep: 2, align: "right" },
    { header: "CTX/TURN", cell: (h) => String(budget.get(rowKey(h))?.contextChars.maxPerTurn ?? ""), keep: 2, align: "right" },
    {
      header: "LAST RUN",
      cell: (h) => (h.lastRun === null ? "never" : showTime(h.lastRun, utc).text),
      tsv: (h) => (h.lastRun === null ? "" : showTime(h.lastRun, utc).iso),
      keep: 4,
    },
  ];
}
