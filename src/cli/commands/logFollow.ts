import { z } from "zod";
import { QhooksError } from "../../errors.js";
import type { LogRecord } from "../../schema/logRecord.js";
import type { AuditLog, LogFilter } from "../../store/eventLog.js";
import { openStore } from "../../store/openStore.js";
import type { CliContext } from "../globals.js";
import { parseInterval } from "../intervalArg.js";
import { err, out } from "../io.js";
import { resolveFormat } from "../../display/formats.js";
import { renderTable, tsvHeader, tsvRow } from "../../display/table.js";
import { commandTerminal, type Terminal } from "../../display/terminal.js";
import { resolveSessions } from "../sessionIds.js";
import { LogFlagsSchema, logColumns } from "./log.js";

export const FollowFlagsSchema = LogFlagsSchema.extend({ interval: z.string().default("500ms") });
export type FollowFlags = z.infer<typeof FollowFlagsSchema>;

/** Events read per poll at most: a log that grew fast is caught up in several reads without a pause between. */
const PAGE = 500;

/** The signals that end a follow: it then stops polling, closes the log and exits 0. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * `qhooks log --follow`: the newest matching events, oldest first, then each new one as it is settled (judged,
 * recorded or rejected), by whichever process wrote it, read from the log every `--interval` by record number.
 */
export async function followLog(flags: FollowFlags, context: CliContext): Promise<number> {
  if (flags.replay !== undefined) throw new QhooksError("usage", "--follow follows live events; --replay lists a finished replay run (leave one of them out)");
  const intervalMs = parseInterval("--interval", flags.interval);
  const stop = stopOnSignals();
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const filter = await resolveSessions(log, flags.filter);
    // The head first: an event settled between it and the listing is then shown twice at most, never missed.
    let { through } = await log.settledAfter(filter, Number.MAX_SAFE_INTEGER, 1);
    const listed = await newest(log, filter, flags.limit);
    const terminal = commandTerminal(context);
    const print = printer(resolveFormat(flags.format, terminal), flags.utc, terminal);
    print(listed, true);
    // Events listed as settled are not printed again when the first polls meet them; unfinished ones are, judged.
    const shown = new Set(listed.filter((r) => r.decision !== "unfinished").map((r) => r.seq));
    while (!stop.aborted) {
      const page = await log.settledAfter(filter, through, PAGE);
      through = page.through;
      const fresh = page.records.filter((r) => !shown.delete(r.seq));
      if (fresh.length > 0) print(fresh, false);
      if (page.records.length < PAGE) await pause(intervalMs, stop);
    }
    return 0;
  } finally {
    await log.close();
  }
}

/** The newest `limit` matching events (all when null), oldest first. */
async function newest(log: AuditLog, filter: LogFilter, limit: number | null): Promise<LogRecord[]> {
  const rows: LogRecord[] = [];
  for await (const r of log.events(filter, limit ?? Number.MAX_SAFE_INTEGER)) rows.push(r);
  return rows.reverse();
}

/**
 * Writes records as they come: a JSON record per line (`--json` too, since an array never ends), tab-separated rows
 * under one header, or table rows, the first batch under the table's header.
 */
function printer(format: ReturnType<typeof resolveFormat>, utc: boolean, terminal: Terminal): (rows: readonly LogRecord[], first: boolean) => void {
  if (format === "json" || format === "jsonl") return (rows) => rows.forEach((r) => out(JSON.stringify(r)));
  if (format === "tsv") {
    const columns = logColumns(utc);
    return (rows, first) => {
      if (first) out(tsvHeader(columns));
      for (const r of rows) out(tsvRow(columns, r));
    };
  }
  return (rows, first) => {
    if (rows.length === 0) {
      if (first) err("qhooks: no events match yet; waiting for new ones (Ctrl-C to stop)");
      return;
    }
    const table = renderTable(logColumns(utc, rows), rows, terminal);
    out(first ? table : table.slice(table.indexOf("\n") + 1));
  };
}

/** Resolves after `ms`, or at once when `stop` is aborted; its listener goes with it (a follow pauses for hours). */
function pause(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stop.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener("abort", done);
  });
}

/**
 * Raised by the first stop signal. The handlers stay for the life of the process: main.ts raises a stop signal
 * again after its own handler, and that second one must find a handler here, or it would end the process before
 * the log is closed and the exit status set.
 */
function stopOnSignals(): AbortSignal {
  const stop = new AbortController();
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop.abort());
  return stop.signal;
}
