import Database from "better-sqlite3";
import type { EventEntry } from "../../src/store/eventLog.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { BUILD_BATCH, generateEntries, type BigLog } from "../bigLog.js";
import { caseResult, interleave, progress, rate, timeMs, type CaseResult } from "../harness.js";
import { BenchDir } from "../fixtures.js";
import type { BenchConfig } from "../config.js";
import { plainTable } from "./noMatch.js";

/**
 * Case 5: batched appends through the store against batched inserts into a plain table; then, on the big log,
 * `log --event PreToolUse --limit 50` (events() fully consumed), `sessions` and `stats` against bare SELECTs over
 * the same indexes; and the bytes each event takes on disk.
 */
export async function logStoreCases(config: BenchConfig, big: BigLog): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const dir = new BenchDir("log");
  try {
    // -- appends, 5,000 events per append() call (one transaction), against 5,000 plain rows per transaction:
    // events as `qhooks record` writes them (one row each), then as dispatch writes them (event, outcome, hooks).
    const dispatched = [...generateEntries((config.appendBatches + 1) * BUILD_BATCH, 7)];
    const recorded = dispatched.map((e): EventEntry => ({ ...e, source: "record", snapshot: null, outcome: null }));
    for (const [id, shape, entries] of [
      ["5a", "recorded events", recorded],
      ["5a2", "dispatched events (+outcome, hooks)", dispatched],
    ] as const) {
      const batches: EventEntry[][] = [];
      for (let i = 0; i < entries.length; i += BUILD_BATCH) batches.push(entries.slice(i, i + BUILD_BATCH));
      const log = openSqliteLog(dir.path(`appends-${id}.db`));
      const plain = plainTable(dir.path(`plain-${id}.db`));
      const insertMany = plain.db.transaction((rows: readonly EventEntry[]) => {
        for (const r of rows) plain.insert(r.payload);
      });
      let next = 0;
      let nextPlain = 0;
      progress(`case ${id}: ${batches.length} batches of ${BUILD_BATCH} ${shape} vs plain batched inserts`);
      const a = await interleave(
        {
          qhooks: () => {
            const b = batches[next++ % batches.length]!;
            return rate(b.length, () => log.append(b));
          },
          bare: () => {
            const b = batches[nextPlain++ % batches.length]!;
            return rate(b.length, () => insertMany(b));
          },
        },
        batches.length - 1,
        1,
      );
      await log.close();
      plain.close();
      results.push(
        caseResult({
          id,
          name: `log appends, ${shape}, ${BUILD_BATCH}/append()`,
          unit: "events/s",
          qhooks: a.qhooks,
          baseline: a.bare,
          baselineName: "plain batched",
          target: { kind: "abs-min", value: 50_000 },
        }),
      );
    }
    results.push(
      caseResult({
        id: "5i",
        name: `  appends while building the ${big.events.toLocaleString("en")}-event log`,
        unit: "events/s",
        qhooks: [big.buildRate],
        baseline: null,
        baselineName: "",
        target: null,
        notes: big.cached ? "measured when the cached log was built, possibly on another day" : "measured in this run",
      }),
    );

    // -- audit queries on the big log.
    const audit = openSqliteLog(big.path, { mustExist: true });
    const bare = new Database(big.path, { readonly: true });
    try {
      // Over the projections the audits read (the journal itself has no index for these).
      const lastPre = bare.prepare(
        "SELECT v.seq, e.body FROM proj_events v JOIN journal e ON e.seq = v.seq WHERE v.run_id IS NULL AND v.event = ? ORDER BY v.seq DESC LIMIT 50",
      );
      const bareSessions = bare.prepare(
        "SELECT session_id, min(seq), max(seq), count(*) FROM proj_events WHERE run_id IS NULL AND session_id IS NOT NULL GROUP BY session_id",
      );
      const bareStats = bare.prepare("SELECT event, decision, count(*) FROM proj_events WHERE run_id IS NULL GROUP BY event, decision");

      progress(`case 5b: log --event PreToolUse --limit 50 on ${big.events.toLocaleString("en")} events, ${config.queryReps} each`);
      const b = await interleave(
        {
          qhooks: () =>
            timeMs(async () => {
              let n = 0;
              for await (const _ of audit.events({ event: "PreToolUse" }, 50)) n++;
              if (n !== 50) throw new Error(`log: ${n} records`);
            }),
          bare: () => timeMs(() => lastPre.all("PreToolUse")),
        },
        config.queryReps,
        3,
      );
      results.push(
        caseResult({
          id: "5b",
          name: "log --event PreToolUse --limit 50 (library)",
          unit: "ms",
          qhooks: b.qhooks,
          baseline: b.bare,
          baselineName: "bare SELECT",
          target: { kind: "abs-max", value: 20 },
        }),
      );

      progress(`case 5c/5d: sessions and stats, ${config.summaryReps} each`);
      const c = await interleave({ qhooks: () => timeMs(() => audit.sessions({})), bare: () => timeMs(() => bareSessions.all()) }, config.summaryReps, 1);
      const d = await interleave({ qhooks: () => timeMs(() => audit.stats({})), bare: () => timeMs(() => bareStats.all()) }, config.summaryReps, 1);
      results.push(
        caseResult({
          id: "5c",
          name: "sessions (library)",
          unit: "ms",
          qhooks: c.qhooks,
          baseline: c.bare,
          baselineName: "bare GROUP BY",
          target: { kind: "abs-max", value: 1000 },
        }),
        caseResult({
          id: "5d",
          name: "stats (library)",
          unit: "ms",
          qhooks: d.qhooks,
          baseline: d.bare,
          baselineName: "bare GROUP BY",
          target: { kind: "abs-max", value: 1000 },
        }),
      );

      const payloadBytes = (bare.prepare("SELECT avg(length(CAST(body AS BLOB))) AS b FROM journal WHERE kind = 'event'").get() as { b: number }).b;
      results.push(
        caseResult({
          id: "5e",
          name: "bytes on disk per event (with outcome, hooks, indexes)",
          unit: "bytes",
          qhooks: [big.bytes / big.events],
          baseline: [payloadBytes],
          baselineName: "payload alone",
          target: null,
        }),
      );
    } finally {
      bare.close();
      await audit.close();
    }
    return results;
  } finally {
    dir.dispose();
  }
}
