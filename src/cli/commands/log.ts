import { z } from "zod";
import { openSqliteLog } from "../../store/sqlite/sqliteEventLog.js";
import type { LogRecord } from "../../schema/logRecord.js";
import { FilterFlagsSchema, wholeNumberFlag } from "../filterFlags.js";
import { table } from "../format.js";
import { out } from "../io.js";
import type { CliContext } from "../globals.js";
import { withYoungGenerationCap } from "../youngGeneration.js";

export const LogFlagsSchema = z.object({
  filter: FilterFlagsSchema,
  limit: wholeNumberFlag("--limit", 1).default(50),
  replay: z.string().optional(),
  json: z.boolean().default(false),
  jsonl: z.boolean().default(false),
});
export type LogFlags = z.infer<typeof LogFlagsSchema>;

/** `qhooks log`: the audit trail, newest first. */
export async function logCommand(flags: LogFlags, context: CliContext): Promise<number> {
  const log = openSqliteLog(context.dbPath, { mustExist: true });
  try {
    const records = withYoungGenerationCap(log.events({ ...flags.filter, replayRun: flags.replay }, flags.limit));
    if (flags.jsonl) {
      for await (const r of records) out(JSON.stringify(r));
    } else if (flags.json) {
      // Written once every record has been read, so that a log that fails to read, even halfway (a damaged page
      // or record), prints nothing rather than half an array.
      const parts: string[] = [];
      for await (const r of records) parts.push(JSON.stringify(r, null, 2));
      out(parts.length === 0 ? "[\n]" : `[\n${parts.join(",\n")}\n]`);
    } else {
      const rows: string[][] = [];
      for await (const r of records) rows.push(tableRow(r));
      if (rows.length === 0) out("No events match.");
      else out(table(["TIME", "SEQ", "SESSION", "EVENT", "MATCH", "DECISION", "HOOKS", "MS", "REASON"], rows, 48));
    }
    return 0;
  } finally {
    await log.close();
  }
}

function tableRow(r: LogRecord): string[] {
  const hooks = r.hooks.map((h) => (h.outcome === "success" ? h.name : `${h.name}:${h.outcome}`)).join(", ");
  return [
    r.ts.replace("T", " ").slice(0, 19),
    String(r.seq),
    shorten(r.sessionId ?? "-", 12),
    r.event ?? "?",
    r.matchValue ?? "",
    r.blocked ? r.decision.toUpperCase() : r.decision,
    hooks || "-",
    r.durationMs === null ? "" : String(Math.round(r.durationMs)),
    r.reason ?? "",
  ];
}

const shorten = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
