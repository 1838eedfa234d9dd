import { DIALECTS } from "../../schema/dialect.js";
import type { StatsByHost } from "../../schema/logRecord.js";
import type { Store } from "../../store/openStore.js";
import { decisionStyle } from "../../display/colour.js";
import { renderTable, renderTsv, type Column } from "../../display/table.js";
import type { commandTerminal } from "../../display/terminal.js";

type Window = Parameters<Store["stats"]>[0];

/**
 * `qhooks stats --by host`: the store's own counts, once per host (the same filter `--host` applies), so the numbers
 * are exactly what `stats --host X` prints; with `--host` given, only that host. Events no host judged are the rest.
 */
export async function statsByHost(log: Store, window: Window): Promise<StatsByHost> {
  const total = await log.stats(window);
  const hosts = window.host !== undefined ? [window.host] : DIALECTS;
  const byHost: StatsByHost["byHost"] = [];
  for (const host of hosts) {
    const s = await log.stats({ ...window, host });
    if (s.events > 0) byHost.push({ host, events: s.events, byEvent: s.byEvent });
  }
  const attributed = byHost.reduce((n, h) => n + h.events, 0);
  return { events: total.events, byHost, unattributed: total.events - attributed };
}

type Row = { host: string; event: string; decision: StatsByHost["byHost"][number]["byEvent"][number]["decision"]; count: number };

const COLUMNS: Column<Row>[] = [
  { header: "HOST", cell: (r) => r.host, keep: 4 },
  { header: "EVENT", cell: (r) => r.event, keep: 3 },
  { header: "DECISION", cell: (r) => r.decision, style: (r) => decisionStyle(r.decision), keep: 2 },
  { header: "COUNT", cell: (r) => String(r.count), keep: 1, align: "right" },
];

/** The breakdown as JSON (one object), tab-separated rows, or a table with a line per host's total. */
export function renderStatsByHost(stats: StatsByHost, format: string, terminal: ReturnType<typeof commandTerminal>): string {
  if (format === "json" || format === "jsonl") return JSON.stringify(stats, null, 2);
  const rows = stats.byHost.flatMap((h) => h.byEvent.map((r) => ({ host: h.host, ...r })));
  if (format === "tsv") return renderTsv(COLUMNS, rows);
  const totals = stats.byHost.map((h) => `${h.host} ${h.events}`);
  if (stats.unattributed > 0) totals.push(`no host ${stats.unattributed}`);
  const head = `${stats.events} events${totals.length ? ` (${totals.join(", ")})` : ""}`;
  return rows.length ? `${head}\n\n${renderTable(COLUMNS, rows, terminal)}` : head;
}
