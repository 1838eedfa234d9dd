import { lastValueFrom, tap } from "rxjs";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import type { ReplayResult, ReplaySide } from "../../schema/replay.js";
import { openSqliteLog } from "../../store/sqlite/sqliteEventLog.js";
import { addToSummary, DEFAULT_REPLAY_CONCURRENCY, emptySummary, newRunId, replay$ } from "../../streams/replay.js";
import { FilterFlagsSchema, hasSelector, wholeNumberFlag } from "../filterFlags.js";
import { table } from "../format.js";
import { out, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import { youngGenerationCap } from "../youngGeneration.js";

export const ReplayFlagsSchema = z.object({
  filter: FilterFlagsSchema,
  settings: z.array(z.string()).default([]),
  matchOnly: z.boolean().default(false),
  concurrency: wholeNumberFlag("--concurrency", 1).default(DEFAULT_REPLAY_CONCURRENCY),
  json: z.boolean().default(false),
  list: z.boolean().default(false),
});
export type ReplayFlags = z.infer<typeof ReplayFlagsSchema>;

/** `qhooks replay`: which recorded decisions would a new hook config change? */
export async function replayCommand(flags: ReplayFlags, context: CliContext): Promise<number> {
  const log = openSqliteLog(context.dbPath, { mustExist: true });
  try {
    if (flags.list) return await listRuns(log, flags.json);
    if (!hasSelector(flags.filter)) {
      throw new QhooksError("usage", "replay runs hooks for real: select events with --session ID or a log filter (--event, --since 7d, ...)");
    }
    const total = await log.count(flags.filter);
    const runId = newRunId();
    const summary = emptySummary(runId);
    const progress = process.stderr.isTTY && total > 20 && !flags.json;
    let first = true;
    // With --match-only, what is worth a line is an event whose hooks would differ from those that ran then.
    let otherHooks = 0;
    const hooksDiffer = (r: ReplayResult) => r.before.hooks.join("\0") !== r.after.hooks.join("\0");
    if (flags.json) process.stdout.write(`{"runId":${JSON.stringify(runId)},"results":[`);
    else out(`Replaying ${total} event${total === 1 ? "" : "s"} ${flags.settings.length ? `against ${flags.settings.join(", ")}` : "against the settings on disk now"}${flags.matchOnly ? " (match only: nothing runs)" : ""}, run ${runId}`);

    await lastValueFrom(
      replay$({
        log,
        filter: flags.filter,
        settingsFiles: flags.settings,
        homeDir: context.homeDir,
        env: context.env,
        matchOnly: flags.matchOnly,
        concurrency: flags.concurrency,
        runId,
        onWarning: (w) => {
          if (progress) process.stderr.write("\r\x1b[K");
          warn(w);
        },
      }).pipe(
        tap(youngGenerationCap()),
        tap((r) => {
          addToSummary(summary, r);
          if (progress) process.stderr.write(`\r\x1b[K  ${summary.events}/${total} replayed, ${summary.changed} changed`);
          if (flags.json) {
            process.stdout.write(`${first ? "" : ","}\n${JSON.stringify(r)}`);
            first = false;
          } else if (r.changed || r.skipped !== null || (flags.matchOnly && hooksDiffer(r))) {
            if (progress) process.stderr.write("\r\x1b[K");
            out(describe(r, flags.matchOnly));
          }
          if (flags.matchOnly && r.skipped === null && hooksDiffer(r)) otherHooks++;
        }),
      ),
      { defaultValue: undefined },
    );

    if (progress) process.stderr.write("\r\x1b[K");
    if (flags.json) {
      const { runId: _, ...counts } = summary;
      out(`\n],${JSON.stringify(counts).slice(1)}`);
    } else if (flags.matchOnly) {
      out(`\n${summary.events} events matched, ${otherHooks} with other hooks than ran then${summary.skipped ? `, ${summary.skipped} not replayable` : ""}; nothing ran.`);
    } else {
      out(
        `\n${summary.events} events replayed, ${summary.changed} changed (${summary.newlyBlocked} newly blocked, ${summary.newlyAllowed} newly allowed)` +
          `${summary.skipped ? `, ${summary.skipped} not replayable` : ""}; ${summary.hookErrors} hook errors, ${summary.timeouts} timeouts.` +
          `\nThe replayed outcomes are in the log: qhooks log --replay ${runId}`,
      );
    }
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

function describe(r: ReplayResult, matchOnly: boolean): string {
  const where = `#${r.seq} ${r.event ?? "(unknown event)"}${r.matchValue ? ` ${r.matchValue}` : ""}`;
  if (r.skipped !== null) return `  ${where}: not replayable: ${r.skipped}`;
  if (matchOnly) return `  ${where}: ${r.before.hooks.join(", ") || "no hooks"}  ->  ${r.after.hooks.join(", ") || "no hooks"}`;
  const side = (s: ReplaySide) => `${s.decision}${s.reason ? ` (${s.reason.split("\n")[0]})` : ""}`;
  return `  ${where}: ${side(r.before)}  ->  ${side(r.after)}`;
}

async function listRuns(log: ReturnType<typeof openSqliteLog>, json: boolean): Promise<number> {
  const runs = await log.replayRuns();
  if (json) out(JSON.stringify(runs, null, 2));
  else if (runs.length === 0) out("No replay runs yet.");
  else {
    out(
      table(
        ["RUN", "STARTED", "EVENTS", "CHANGED", "BLOCKED+", "ALLOWED+", "SETTINGS"],
        runs.map((r) => [
          r.runId,
          r.startedAt.replace("T", " ").slice(0, 19),
          r.summary ? String(r.summary.events) : "(unfinished)",
          r.summary ? String(r.summary.changed) : "",
          r.summary ? String(r.summary.newlyBlocked) : "",
          r.summary ? String(r.summary.newlyAllowed) : "",
          `${r.matchOnly ? "match only; " : ""}${r.settings?.join(", ") ?? "settings on disk"}`,
        ]),
      ),
    );
  }
  return EXIT.ok;
}
