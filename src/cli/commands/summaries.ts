import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { openSqliteLog } from "../../store/sqlite/sqliteEventLog.js";
import { parseTimeArg } from "../timeArg.js";
import { table } from "../format.js";
import { out } from "../io.js";
import type { CliContext } from "../globals.js";

export const WindowFlagsSchema = z
  .object({ since: z.string().optional(), until: z.string().optional(), json: z.boolean().default(false) })
  .transform((raw) => ({
    json: raw.json,
    window: {
      since: raw.since === undefined ? undefined : parseTimeArg("--since", raw.since),
      until: raw.until === undefined ? undefined : parseTimeArg("--until", raw.until),
    },
  }));
export type WindowFlags = z.infer<typeof WindowFlagsSchema>;

/** `qhooks sessions`: one row per live session. */
export async function sessionsCommand(flags: WindowFlags, context: CliContext): Promise<number> {
  const log = openSqliteLog(context.dbPath, { mustExist: true });
  try {
    const sessions = await log.sessions(flags.window);
    if (flags.json) out(JSON.stringify(sessions, null, 2));
    else if (sessions.length === 0) out("No sessions in the log.");
    else {
      out(
        table(
          ["SESSION", "FIRST", "LAST", "EVENTS", "BLOCKED", "PROJECT"],
          sessions.map((s) => [s.sessionId, s.firstTs.replace("T", " ").slice(0, 19), s.lastTs.replace("T", " ").slice(0, 19), String(s.events), String(s.blocked), s.projectDir]),
        ),
      );
    }
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/** `qhooks stats`: counts by event and decision, and how each hook behaves. */
export async function statsCommand(flags: WindowFlags, context: CliContext): Promise<number> {
  const log = openSqliteLog(context.dbPath, { mustExist: true });
  try {
    const stats = await log.stats(flags.window);
    if (flags.json) {
      out(JSON.stringify(stats, null, 2));
      return EXIT.ok;
    }
    out(`${stats.events} events`);
    if (stats.byEvent.length) out(`\n${table(["EVENT", "DECISION", "COUNT"], stats.byEvent.map((r) => [r.event, r.decision, String(r.count)]))}`);
    if (stats.hooks.length) {
      out(
        `\n${table(
          ["HOOK", "RUNS", "BLOCKS", "ERRORS", "BAD OUTPUT", "TIMEOUTS", "P50 MS", "P95 MS"],
          stats.hooks.map((h) => [h.name, String(h.runs), String(h.blocks), String(h.errors), String(h.invalidOutputs), String(h.timeouts), ms(h.p50Ms), ms(h.p95Ms)]),
        )}`,
      );
    }
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

export const VerifyFlagsSchema = z.object({ json: z.boolean().default(false) });

/** `qhooks verify`: the hash chain, record by record. */
export async function verifyCommand(flags: z.infer<typeof VerifyFlagsSchema>, context: CliContext): Promise<number> {
  const log = openSqliteLog(context.dbPath, { mustExist: true });
  try {
    const result = await log.verify();
    if (flags.json) out(JSON.stringify(result));
    if (!result.ok) throw new QhooksError("integrity", `log integrity failure at record ${result.firstBad}: ${result.problem} (${result.records} records before it are intact)`);
    if (!flags.json) out(`ok: ${result.records} records`);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

const ms = (v: number | null) => (v === null ? "" : String(Math.round(v * 10) / 10));
