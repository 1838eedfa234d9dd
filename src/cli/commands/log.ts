import { z } from "zod";
import { openStore } from "../../store/openStore.js";
import type { LogRecord } from "../../schema/logRecord.js";
import { FilterFlagsSchema, limitFlag } from "../filterFlags.js";
import { FormatFlagsSchema, resolveFormat } from "../../display/formats.js";
import { decisionStyle, isHookFailure } from "../../display/colour.js";
import { hookDisplayNames } from "../../display/hookDisplayName.js";
import { originColumns } from "../../display/originColumns.js";
import { renderTable, tsvHeader, tsvRow, type Column } from "../../display/table.js";
import { commandTerminal } from "../../display/terminal.js";
import { sessionShortener } from "../../display/sessionPrefix.js";
import { showTime, timeCells } from "../../display/times.js";
import { err, out } from "../io.js";
import type { CliContext } from "../globals.js";
import { resolveSessions } from "../sessionIds.js";
import { withYoungGenerationCap } from "../youngGeneration.js";
import { withOtherHookNames } from "../hookFilter.js";

export const DEFAULT_LOG_LIMIT = 50;

export const LogFlagsSchema = z.object({
  filter: FilterFlagsSchema,
  limit: limitFlag(DEFAULT_LOG_LIMIT),
  replay: z.string().optional(),
  format: FormatFlagsSchema,
  utc: z.boolean().default(false),
});
export type LogFlags = z.infer<typeof LogFlagsSchema>;

/** `qhooks log`: the audit trail, newest first. */
export async function logCommand(flags: LogFlags, context: CliContext): Promise<number> {
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const filter = await resolveSessions(log, { ...withOtherHookNames(flags.filter, context), replayRun: flags.replay });
    // One more than the limit is read, to tell a cut listing from a complete one.
    const records = withYoungGenerationCap(
      log.events(filter, flags.limit === null ? Number.MAX_SAFE_INTEGER : Math.min(flags.limit + 1, Number.MAX_SAFE_INTEGER)),
    );
    let count = 0;
    const kept = async function* () {
      for await (const r of records) if (++count <= (flags.limit ?? Infinity)) yield r;
    };
    const terminal = commandTerminal(context);
    const format = resolveFormat(flags.format, terminal);
    if (format === "jsonl") {
      for await (const r of kept()) out(JSON.stringify(r));
    } else if (format === "json") {
      // Written once every record has been read, so that a log that fails to read, even halfway (a damaged page
      // or record), prints nothing rather than half an array.
      const parts: string[] = [];
      for await (const r of kept()) parts.push(JSON.stringify(r, null, 2));
      out(parts.length === 0 ? "[\n]" : `[\n${parts.join(",\n")}\n]`);
    } else if (format === "tsv") {
      // The header waits for the first record: a log that cannot be read prints nothing, as with the others.
      const columns = logColumns(flags.utc);
      let header = false;
      for await (const r of kept()) {
        if (!header) out(tsvHeader(columns));
        header = true;
        out(tsvRow(columns, r));
      }
      if (!header) out(tsvHeader(columns));
    } else {
      const rows: LogRecord[] = [];
      for await (const r of kept()) rows.push(r);
      if (rows.length === 0) out("No events match.");
      else out(renderTable(logColumns(flags.utc, rows), rows, terminal));
    }
    if (flags.limit !== null && count > flags.limit) {
      err(`qhooks: showing the newest ${flags.limit} matching events; there are more (-n N for another number, --limit all for every one)`);
    }
    return 0;
  } finally {
    await log.close();
  }
}

/**
 * The listing's columns. A table (`rows` given) shows what depends on all its rows: the TIME header names the zone
 * its cells are in, when they share one, session ids are cut to the prefix that tells its sessions apart, and the
 * origin (host, machine, user, writer) has columns when its rows differ in it.
 * Tab-separated rows are written as they are read, with whole ids and ISO times.
 */
export function logColumns(utc: boolean, rows?: readonly LogRecord[]): Column<LogRecord>[] {
  const times =
    rows &&
    timeCells(
      rows.map((r) => r.ts),
      utc,
    );
  const timeOf = rows && new Map(rows.map((r, i) => [r, times!.cells[i]!]));
  const short = rows && sessionShortener(rows.map((r) => r.sessionId));
  // A table names hooks by their script (`check.sh`), unique among its rows; tab-separated rows keep whole names.
  const hookName = rows ? hookDisplayNames(rows.flatMap((r) => [...r.hooks, ...r.asyncHooks])) : (name: string) => name;
  // What the agent tried (the command, the file, the URL): next to MATCH in the table; last in tab-separated
  // output, so that the columns scripts cut by position since 0.1 keep their places.
  const tried: Column<LogRecord> = { header: "TRIED", cell: (r) => r.tried ?? "", max: 40, min: 10, keep: 5 };
  const columns: Column<LogRecord>[] = [
    {
      header: times?.zone ? `TIME (${times.zone})` : "TIME",
      cell: (r) => timeOf?.get(r) ?? showTime(r.ts, utc).text,
      tsv: (r) => showTime(r.ts, utc).iso,
      keep: 6,
    },
    { header: "SEQ", cell: (r) => String(r.seq), keep: 12, align: "right" },
    { header: "SESSION", cell: (r) => (short ? short(r.sessionId) : (r.sessionId ?? "-")), min: 6, keep: 7 },
    // Where each event came from, in a table whose rows came from more than one host, machine, user or log.
    ...(rows ? originColumns(rows, (r) => r.origin) : []),
    // Who called, in a table with an event another host sent to this host's entry (Cursor through Claude Code's).
    ...(rows?.some((r) => r.caller !== null) ? [{ header: "CALLER", cell: (r: LogRecord) => r.caller ?? "-", min: 4, keep: 4 }] : []),
    { header: "EVENT", cell: (r) => r.event ?? "?", min: 8, keep: 10 },
    { header: "MATCH", cell: (r) => r.matchValue ?? "", max: 24, min: 6, keep: 4 },
    ...(rows ? [tried] : []),
    {
      header: "DECISION",
      cell: (r) => (r.blocked ? r.decision.toUpperCase() : r.decision),
      style: (r) => decisionStyle(r.decision, r.blocked),
      keep: 11,
    },
    // Red when a hook failed (an error, a timeout, output qhooks could not read): the list names which.
    { header: "HOOKS", cell: (r) => hookList(r, hookName), style: (r) => (hookFailed(r) ? "red" : null), max: 40, min: 8, keep: 3 },
    { header: "MS", cell: (r) => (r.durationMs === null ? "" : String(Math.round(r.durationMs))), keep: 2, align: "right" },
    { header: "REASON", cell: (r) => r.reason ?? "", max: 60, min: 12, keep: 8 },
  ];
  return rows ? columns : [...columns, tried];
}

const hookFailed = (r: LogRecord): boolean => [...r.hooks, ...r.asyncHooks].some((h) => isHookFailure(h.outcome));

const hookList = (r: LogRecord, shown: (name: string) => string) =>
  [
    ...r.hooks.map((h) => (h.outcome === "success" ? shown(h.name) : `${shown(h.name)}:${h.outcome}`)),
    // Async hooks, logged as each ended: after the others, marked.
    ...r.asyncHooks.map((h) => `${h.outcome === "success" ? shown(h.name) : `${shown(h.name)}:${h.outcome}`} (async)`),
  ].join(", ") || "-";
