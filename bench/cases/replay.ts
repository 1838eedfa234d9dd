import Database from "better-sqlite3";
import { lastValueFrom, reduce } from "rxjs";
import { PAYLOAD_SCHEMAS, type EventName } from "../../src/schema/events.js";
import type { LogFilter } from "../../src/store/eventLog.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { DEFAULT_REPLAY_CONCURRENCY, replay$ } from "../../src/engine/replay.js";
import { generateEntries, writeLog } from "../bigLog.js";
import { caseResult, interleave, progress, rate, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, preToolUsePayload, rawSpawnPool } from "../fixtures.js";
import type { BenchConfig } from "../config.js";

/** The filter that selects the first `n` PreToolUse events of the generated history. */
function firstPreToolUse(n: number, within: number): LogFilter {
  let seen = 0;
  for (const entry of generateEntries(within)) {
    if (entry.event === "PreToolUse" && ++seen === n) return { event: "PreToolUse", until: new Date(entry.ts.getTime() + 1) };
  }
  throw new Error(`fewer than ${n} PreToolUse events in ${within}`);
}

/**
 * Case 6: replay throughput through the library (`replay$`, default concurrency 4), match-only and with one
 * `sh -c true` hook per event. Floors: reading the same rows by keyset pages with JSON.parse + the zod schema
 * (match-only), and raw spawns at the same concurrency (with a hook).
 */
export async function replayCases(config: BenchConfig): Promise<CaseResult[]> {
  const dir = new BenchDir("replay");
  try {
    const total = Math.ceil(config.replayMatchEvents * 2.8);
    const path = dir.path("replay.db");
    await writeLog(path, total);
    const log = openSqliteLog(path, { mustExist: true });
    const hookFile = dir.settings("replay", [{ command: "true" }]);
    const matchFilter = firstPreToolUse(config.replayMatchEvents, total);
    const hookFilter = firstPreToolUse(config.replayHookEvents, total);
    for (const [filter, n] of [
      [matchFilter, config.replayMatchEvents],
      [hookFilter, config.replayHookEvents],
    ] as const) {
      const counted = await log.count(filter);
      if (counted !== n) throw new Error(`replay filter selects ${counted} events, expected ${n}`);
    }
    const env = benchEnv(dir.home);
    const replay = (filter: LogFilter, n: number, matchOnly: boolean) =>
      rate(n, async () => {
        const summary = await lastValueFrom(
          replay$({ log, filter, settingsFiles: [hookFile], homeDir: dir.home, env, matchOnly, cwd: dir.project }).pipe(
            reduce(
              (acc, r) => ({
                events: acc.events + 1,
                bad: acc.bad + (r.skipped !== null || r.hookErrors > 0 || (matchOnly ? r.after.hooks.length !== 1 : r.after.decision !== "none") ? 1 : 0),
              }),
              { events: 0, bad: 0 },
            ),
          ),
        );
        if (summary.events !== n || summary.bad !== 0) throw new Error(`replay: ${JSON.stringify(summary)}`);
      });

    const bare = new Database(path, { readonly: true });
    const page = bare.prepare(
      "SELECT seq, event, body FROM journal WHERE kind = 'event' AND run_id IS NULL AND event = 'PreToolUse' AND ts < ? AND seq > ? ORDER BY seq LIMIT 200",
    );
    const readAndParse = (filter: LogFilter, n: number) =>
      rate(n, () => {
        let seen = 0;
        for (let after = 0; ; ) {
          const rows = page.all(filter.until!.toISOString(), after) as { seq: number; event: EventName; body: string }[];
          for (const row of rows) if (PAYLOAD_SCHEMAS[row.event].safeParse(JSON.parse(row.body)).success) seen++;
          if (rows.length < 200) break;
          after = rows[rows.length - 1]!.seq;
        }
        if (seen !== n) throw new Error(`read ${seen} events, expected ${n}`);
      });

    progress(`case 6: replay ${config.replayMatchEvents} events match-only, ${config.replayHookEvents} with a hook; ${config.replayReps} samples`);
    const m = await interleave(
      { qhooks: () => replay(matchFilter, config.replayMatchEvents, true), bare: () => readAndParse(matchFilter, config.replayMatchEvents) },
      config.replayReps,
      1,
    );
    const payload = preToolUsePayload();
    const h = await interleave(
      {
        qhooks: () => replay(hookFilter, config.replayHookEvents, false),
        raw: () => rate(config.replayHookEvents, () => rawSpawnPool(payload, config.replayHookEvents, DEFAULT_REPLAY_CONCURRENCY)),
      },
      config.replayReps,
      1,
    );
    bare.close();
    await log.close();
    return [
      caseResult({
        id: "6a",
        name: "replay --match-only (library)",
        unit: "events/s",
        qhooks: m.qhooks,
        baseline: m.bare,
        baselineName: "read+parse+zod",
        target: null,
      }),
      caseResult({
        id: "6b",
        name: `replay, 1 true hook per event, concurrency ${DEFAULT_REPLAY_CONCURRENCY}`,
        unit: "events/s",
        qhooks: h.qhooks,
        baseline: h.raw,
        baselineName: `raw spawns x${DEFAULT_REPLAY_CONCURRENCY}`,
        target: null,
      }),
    ];
  } finally {
    dir.dispose();
  }
}
