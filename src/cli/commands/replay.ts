import { lastValueFrom, tap } from "rxjs";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import type { ReplayResult, ReplaySide } from "../../schema/replay.js";
import { openStore, type Store } from "../../store/openStore.js";
import { DEFAULT_REPLAY_CONCURRENCY, newRunId, replay$ } from "../../engine/replay.js";
import { addToSummary, emptySummary } from "../../engine/replayResults.js";
import type { ReplayRun } from "../../schema/replay.js";
import { EventFlagSchema, FilterFlagsSchema, hasSelector, wholeNumberFlag } from "../filterFlags.js";
import { planReplay } from "../../engine/replayPlan.js";
import { requireSettingsFiles } from "../globals.js";
import { confirmReplay } from "./replayConfirm.js";
import { failuresText, FailureList } from "./replayFailures.js";
import { resolveFormat } from "../../display/formats.js";
import { renderTable, renderTsv, type Column } from "../../display/table.js";
import { stdoutTerminal } from "../../display/terminal.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";
import { showTime, timeCells } from "../../display/times.js";
import { out, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import { resolveSessions } from "../sessionIds.js";
import { youngGenerationCap } from "../youngGeneration.js";
import { withOtherHookNames } from "../hookFilter.js";

export const ReplayFlagsSchema = z.object({
  filter: FilterFlagsSchema,
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  matchOnly: z.boolean().default(false),
  yes: z.boolean().default(false),
  skipEvent: z.array(EventFlagSchema).default([]),
  enforceShadow: z.boolean().default(false),
  concurrency: wholeNumberFlag(1).default(DEFAULT_REPLAY_CONCURRENCY),
  json: z.boolean().default(false),
  list: z.boolean().default(false),
  utc: z.boolean().default(false),
});
export type ReplayFlags = z.infer<typeof ReplayFlagsSchema>;

/** `qhooks replay`: which recorded decisions would a new hook config change? */
export async function replayCommand(flags: ReplayFlags, context: CliContext): Promise<number> {
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const terminal = stdoutTerminal(context.env);
    if (flags.list) return await listRuns(log, flags, context);
    if (!hasSelector(flags.filter)) {
      throw new QhooksError("usage", "replay runs hooks for real: select events with --session ID or a log filter (--event, --since 7d, ...)");
    }
    // Exactly the files named judge: one that is missing or broken would report every guard as gone.
    requireSettingsFiles(flags.settings);
    const filter = await resolveSessions(log, withOtherHookNames(flags.filter, context, flags.settings));
    // What the log holds is shown escaped: a tool name with a line break must not forge a line of this report.
    const shown = terminal.utf8 ? escapeForTerminal : escapeToAscii;
    const warned = new Set<string>();
    let progress = false;
    const judging = {
      log,
      filter,
      settingsFiles: flags.settings,
      plugins: flags.plugin,
      // Each event under its own host (as its logged configuration says), unless one is named.
      ...(context.dialectNamed ? { dialect: context.dialect } : {}),
      homeDir: context.homeDir,
      env: context.env,
      enforceShadow: flags.enforceShadow,
      skipEvents: flags.skipEvent,
      concurrency: flags.concurrency,
      // The count before the question and the replay itself meet the same warnings: each is said once, first.
      onWarning: (w: string) => {
        if (warned.has(w)) return;
        warned.add(w);
        if (progress) process.stderr.write("\r\x1b[K");
        warn(w);
      },
    };
    // Hooks run for real (notifications, formatters, audit logs): say what will run, and run it only once agreed.
    if (!flags.matchOnly) await confirmReplay(await planReplay(judging), { yes: flags.yes, shown });
    const total = await log.count(filter);
    const runId = newRunId();
    const summary = emptySummary(runId);
    progress = process.stderr.isTTY === true && total > 20 && !flags.json;
    let first = true;
    // With --match-only, what is worth a line is an event whose hooks would differ from those that ran then.
    let otherHooks = 0;
    const failures = new FailureList();
    const hooksDiffer = (r: ReplayResult) => r.before.hooks.join("\0") !== r.after.hooks.join("\0");
    if (flags.json) process.stdout.write(`{"runId":${JSON.stringify(runId)},"results":[`);
    else
      out(
        `Replaying ${total} event${total === 1 ? "" : "s"} ${flags.settings.length ? `against ${shown(flags.settings.join(", "))}` : "against the settings on disk now"}${flags.enforceShadow ? " with shadow hooks enforced" : ""}${flags.matchOnly ? " (match only: nothing runs)" : ""}, run ${runId}`,
      );

    await lastValueFrom(
      replay$({
        ...judging,
        matchOnly: flags.matchOnly,
        runId,
      }).pipe(
        tap(youngGenerationCap()),
        tap((r) => {
          addToSummary(summary, r);
          failures.add(r);
          if (progress) process.stderr.write(`\r\x1b[K  ${summary.events}/${total} replayed, ${summary.changed} changed`);
          if (flags.json) {
            process.stdout.write(`${first ? "" : ","}\n${JSON.stringify(r)}`);
            first = false;
          } else if (r.changed || (r.skipped !== null && !r.skipEvent) || r.redacted || (flags.matchOnly && hooksDiffer(r))) {
            if (progress) process.stderr.write("\r\x1b[K");
            out(describe(r, flags.matchOnly, shown));
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
      out(
        `\n${summary.events} events matched, ${otherHooks} with other hooks than ran then${summary.skipped ? `, ${summary.skipped} not replayable` : ""}${skippedEvents(summary.skippedEvents)}; nothing ran.`,
      );
    } else {
      out(
        `\n${summary.events} events replayed, ${summary.changed} changed (${summary.newlyBlocked} newly blocked, ${summary.newlyAllowed} newly allowed)` +
          `${summary.skipped ? `, ${summary.skipped} not replayable` : ""}${skippedEvents(summary.skippedEvents)}; ${summary.hookErrors} hook errors, ${summary.timeouts} timeouts.` +
          failuresText(failures, shown, runId) +
          notRunText(summary) +
          `\nThe replayed outcomes are in the log: qhooks log --replay ${runId}`,
      );
    }
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

const skippedEvents = (n: number | undefined): string => (n ? `, ${n} skipped (--skip-event)` : "");

/** How many hook runs qhooks.replay kept from happening. */
function notRunText(summary: { hooksSkipped?: number | undefined; hooksStubbed?: number | undefined }): string {
  const parts = [
    ...(summary.hooksSkipped ? [`${summary.hooksSkipped} skipped`] : []),
    ...(summary.hooksStubbed ? [`${summary.hooksStubbed} answered by their stub`] : []),
  ];
  return parts.length ? `\nHook runs not made (qhooks.replay in the settings): ${parts.join(", ")}.` : "";
}

/** One line per event: everything that comes from the log or a hook goes through `shown` (escaped). */
function describe(r: ReplayResult, matchOnly: boolean, shown: (text: string) => string): string {
  const where = `#${r.seq} ${r.event ?? "(unknown event)"}${r.matchValue ? ` ${shown(r.matchValue)}` : ""}`;
  const notes = [
    ...(r.changes?.includes("continue") ? ["continue changed"] : []),
    ...(r.changes?.includes("updatedInput") ? ["updatedInput changed"] : []),
    ...(r.hooksSkipped ? [`skipped: ${shown(r.hooksSkipped.join(", "))}`] : []),
    ...(r.hooksStubbed ? [`stubbed: ${shown(r.hooksStubbed.join(", "))}`] : []),
    ...(r.redacted ? [`replayed with redacted ${r.redacted.length === 1 ? "field" : "fields"}: ${shown(r.redacted.join(", "))}`] : []),
  ];
  return describeSides(r, where, matchOnly, shown) + notes.map((n) => `  [${n}]`).join("");
}

function describeSides(r: ReplayResult, where: string, matchOnly: boolean, shown: (text: string) => string): string {
  if (r.skipped !== null) return `  ${where}: not replayable: ${shown(r.skipped)}`;
  const hooks = (names: readonly string[]) => (names.length ? shown(names.join(", ")) : "no hooks");
  if (matchOnly) return `  ${where}: ${hooks(r.before.hooks)}  ->  ${hooks(r.after.hooks)}`;
  // The first line of a reason; the rest of it is in the log.
  const side = (s: ReplaySide) => `${s.decision}${s.reason ? ` (${shown(s.reason.split("\n")[0]!)})` : ""}`;
  // Listed for another reason (its redacted fields): said as unchanged, never as a change.
  if (!r.changed) return `  ${where}: unchanged: ${side(r.after)}`;
  return `  ${where}: ${side(r.before)}  ->  ${side(r.after)}`;
}

async function listRuns(log: Store, flags: ReplayFlags, context: CliContext): Promise<number> {
  const runs = await log.replayRuns();
  const terminal = stdoutTerminal(context.env);
  const format = resolveFormat(flags.json ? "json" : undefined, terminal);
  if (format === "json") out(JSON.stringify(runs, null, 2));
  else if (format === "tsv") out(renderTsv(runColumns(flags.utc), runs));
  else if (runs.length === 0) out("No replay runs yet.");
  else out(renderTable(runColumns(flags.utc, runs), runs, terminal));
  return EXIT.ok;
}

/** The listing's columns; a table (`rows` given) names the zone of its times in the header, when they share one. */
function runColumns(utc: boolean, rows?: readonly ReplayRun[]): Column<ReplayRun>[] {
  const started =
    rows &&
    timeCells(
      rows.map((r) => r.startedAt),
      utc,
    );
  const index = rows && new Map(rows.map((r, i) => [r, i]));
  const count = (pick: (s: NonNullable<ReplayRun["summary"]>) => number) => (r: ReplayRun) => (r.summary ? String(pick(r.summary)) : "");
  return [
    { header: "RUN", cell: (r) => r.runId, keep: 10 },
    { header: started?.zone ? `STARTED (${started.zone})` : "STARTED", cell: (r) => started?.cells[index!.get(r)!] ?? showTime(r.startedAt, utc).iso, keep: 5 },
    { header: "EVENTS", cell: (r) => (r.summary ? String(r.summary.events) : "(unfinished)"), keep: 9, align: "right" },
    { header: "CHANGED", cell: count((s) => s.changed), keep: 8, align: "right" },
    { header: "BLOCKED+", cell: count((s) => s.newlyBlocked), keep: 4, align: "right" },
    { header: "ALLOWED+", cell: count((s) => s.newlyAllowed), keep: 3, align: "right" },
    { header: "SETTINGS", cell: (r) => `${r.matchOnly ? "match only; " : ""}${r.settings?.join(", ") ?? "settings on disk"}`, max: 60, min: 10, keep: 6 },
  ];
}
