import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { EventEntry } from "../../src/store/eventLog.js";
import type { JournalRow } from "../../src/store/journal/record.js";
import { openPostgresLog } from "../../src/store/postgres/postgresEventLog.js";
import { shipLog } from "../../src/store/ship.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { BUILD_BATCH, generateEntries, type BigLog } from "../bigLog.js";
import { BenchDir, REPO_ROOT } from "../fixtures.js";
import { caseResult, median, progress, timeMs, type CaseResult } from "../harness.js";
import type { BenchConfig } from "../config.js";

/** The machine's PostgreSQL: each run makes databases of its own there and drops them. */
const SERVER = process.env.QHOOKS_BENCH_PG ?? process.env.QHOOKS_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: SERVER, connectionTimeoutMillis: 5_000 });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

async function newDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `qhooks_bench_${label}_${process.pid}_${randomBytes(3).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined) };
}

const SHIP_EVENTS = { full: 100_000, quick: 5_000 };

/**
 * Case 8, the central PostgreSQL log: `ship` against bare batched multi-row inserts of the same rows; the audits
 * on a central log of the big log's size; 8 processes appending directly at once; and what logging directly to
 * PostgreSQL costs a dispatch next to SQLite.
 */
export async function postgresCases(config: BenchConfig, big: BigLog): Promise<CaseResult[]> {
  try {
    await admin((c) => c.query("SELECT 1"));
  } catch (e) {
    progress(`case 8 skipped: no PostgreSQL at ${SERVER} (${(e as Error).message})`);
    return [
      caseResult({
        id: "8",
        name: "central PostgreSQL log",
        unit: "ms",
        qhooks: [],
        baseline: null,
        baselineName: "",
        target: null,
        notes: `not measured: no PostgreSQL at ${SERVER}`,
      }),
    ];
  }
  const dir = new BenchDir("pg");
  try {
    return [...(await shipCase(config, dir)), ...(await auditCases(config, big)), await concurrentCase(config), await dispatchCostCase(config, dir)];
  } finally {
    dir.dispose();
  }
}

/** 8a: ship of N recorded events, against the same rows read from the file and inserted with multi-row inserts. */
async function shipCase(config: BenchConfig, dir: BenchDir): Promise<CaseResult[]> {
  const events = config.quick ? SHIP_EVENTS.quick : SHIP_EVENTS.full;
  const file = dir.path("ship.db");
  progress(`case 8a: a local log of ${events.toLocaleString("en")} recorded events, shipped vs bare batched inserts`);
  const log = openSqliteLog(file);
  const batch: EventEntry[] = [];
  for (const e of generateEntries(events, 11)) {
    batch.push({ ...e, source: "record", snapshot: null, outcome: null });
    if (batch.length === BUILD_BATCH) await log.append(batch.splice(0));
  }
  if (batch.length) await log.append(batch);
  await log.close();
  const records = (new Database(file, { readonly: true }).prepare("SELECT count(*) AS n FROM journal").get() as { n: number }).n;

  const ship: number[] = [];
  const bare: number[] = [];
  const reps = config.quick ? 1 : 2;
  for (let rep = 0; rep < reps; rep++) {
    for (const side of rep % 2 === 0 ? (["bare", "ship"] as const) : (["ship", "bare"] as const)) {
      const db = await newDatabase(`ship${side}`);
      try {
        if (side === "ship") ship.push((records * 1000) / (await timeMs(() => shipLog({ from: file, to: db.url }))));
        else bare.push((records * 1000) / (await timeMs(() => bareInserts(file, db.url))));
      } finally {
        await db.drop();
      }
    }
  }
  return [
    caseResult({
      id: "8a",
      name: `ship ${events.toLocaleString("en")} recorded events (${records.toLocaleString("en")} records)`,
      unit: "events/s",
      qhooks: ship,
      baseline: bare,
      baselineName: "bare multi-row inserts",
      target: { kind: "ratio-min", value: 0.5 },
      notes:
        "records/s; the baseline reads the same rows from the file and inserts them into a table of the same columns (no index, no check), 5,000 per transaction",
    }),
  ];
}

/** The baseline of 8a: the file's rows, 5,000 at a time, into a bare table by multi-row inserts. */
async function bareInserts(file: string, url: string): Promise<void> {
  const local = new Database(file, { readonly: true });
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`CREATE TABLE bare (seq bigint, ts text, kind text, event text, session_id bytea, match_value bytea, project_dir bytea, source text,
      ref bigint, run_id bytea, config_hash bytea, name bytea, status text, decision text, blocked smallint, duration_ms float8, reason bytea, body bytea, hash text, format smallint, outcome bytea)`);
    const page = local.prepare("SELECT * FROM journal WHERE seq > ? ORDER BY seq LIMIT 5000");
    const b = (s: string | null) => (s === null ? null : Buffer.from(s, "utf8"));
    for (let after = 0; ; ) {
      const rows = page.all(after) as JournalRow[];
      if (rows.length === 0) break;
      await c.query("BEGIN");
      await c.query(
        `INSERT INTO bare SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::bytea[], $7::bytea[], $8::text[], $9::bigint[], $10::bytea[],
          $11::bytea[], $12::bytea[], $13::text[], $14::text[], $15::smallint[], $16::float8[], $17::bytea[], $18::bytea[], $19::text[], $20::smallint[], $21::bytea[])`,
        [
          rows.map((r) => r.seq),
          rows.map((r) => r.ts),
          rows.map((r) => r.kind),
          rows.map((r) => r.event),
          rows.map((r) => b(r.session_id)),
          rows.map((r) => b(r.match_value)),
          rows.map((r) => b(r.project_dir)),
          rows.map((r) => r.source),
          rows.map((r) => r.ref),
          rows.map((r) => b(r.run_id)),
          rows.map((r) => b(r.config_hash)),
          rows.map((r) => b(r.name)),
          rows.map((r) => r.status),
          rows.map((r) => r.decision),
          rows.map((r) => r.blocked),
          rows.map((r) => r.duration_ms),
          rows.map((r) => b(r.reason)),
          rows.map((r) => b(r.body)),
          rows.map((r) => r.hash),
          rows.map((r) => r.format),
          rows.map((r) => b(r.outcome)),
        ],
      );
      await c.query("COMMIT");
      after = rows[rows.length - 1]!.seq;
    }
  } finally {
    local.close();
    await c.end();
  }
}

/** 8b-8d: the audits on a central log holding the big log (shipped there first). */
async function auditCases(config: BenchConfig, big: BigLog): Promise<CaseResult[]> {
  const db = await newDatabase("audit");
  try {
    progress(`case 8b-8d: shipping the ${big.events.toLocaleString("en")}-event log to a central database...`);
    let shown = 0;
    const shipMs = await timeMs(() =>
      shipLog({
        from: big.path,
        to: db.url,
        batch: 10_000,
        onBatch: (p) => {
          if (p.shipped - shown >= 200_000) {
            shown = p.shipped;
            progress(`  ${p.shipped.toLocaleString("en")} records`);
          }
        },
      }),
    );
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query("VACUUM ANALYZE");
    const log = openPostgresLog(db.url, { mustExist: true });
    try {
      await log.count({ event: "Stop" });
      const logMs: number[] = [];
      const bareMs: number[] = [];
      for (let i = 0; i < config.queryReps; i++) {
        logMs.push(
          await timeMs(async () => {
            for await (const _ of log.events({ event: "PreToolUse" }, 50)) void _;
          }),
        );
        bareMs.push(
          await timeMs(() =>
            c.query(
              "SELECT v.gid, e.body FROM qhooks_events v JOIN qhooks_journal e ON e.gid = v.gid WHERE v.event = 'PreToolUse' AND v.run_id IS NULL ORDER BY v.gid DESC LIMIT 50",
            ),
          ),
        );
      }
      const sessionsMs: number[] = [];
      const statsMs: number[] = [];
      for (let i = 0; i < config.summaryReps; i++) {
        sessionsMs.push(await timeMs(() => log.sessions({})));
        statsMs.push(await timeMs(() => log.stats({})));
      }
      const size = `${big.events.toLocaleString("en")} central events`;
      return [
        caseResult({
          id: "8b",
          name: `log --event PreToolUse --limit 50, ${size}`,
          unit: "ms",
          qhooks: logMs,
          baseline: bareMs,
          baselineName: "bare SELECT",
          target: { kind: "abs-max", value: 20 },
        }),
        caseResult({
          id: "8c",
          name: `sessions, ${size}`,
          unit: "ms",
          qhooks: sessionsMs,
          baseline: null,
          baselineName: "",
          target: { kind: "abs-max", value: 1000 },
        }),
        caseResult({
          id: "8d",
          name: `stats, ${size}`,
          unit: "ms",
          qhooks: statsMs,
          baseline: null,
          baselineName: "",
          target: { kind: "abs-max", value: 1000 },
          notes: `the central log was filled by ship at ${Math.round((big.events * 1000) / shipMs).toLocaleString("en")} events/s`,
        }),
      ];
    } finally {
      await log.close();
      await c.end();
    }
  } finally {
    await db.drop();
  }
}

/** 8e: 8 processes appending 500 events each, directly, at once (one machine: one chain). */
async function concurrentCase(config: BenchConfig): Promise<CaseResult> {
  const processes = 8;
  const each = config.quick ? 100 : 500;
  const db = await newDatabase("writers");
  try {
    progress(`case 8e: ${processes} processes x ${each} events appended directly at once`);
    const module = join(REPO_ROOT, "dist", "src", "store", "postgres", "postgresEventLog.js");
    const script = `
      const { openPostgresLog } = await import(${JSON.stringify(module)});
      const log = openPostgresLog(process.argv[1]);
      for (let i = 0; i < ${each}; i++) {
        await log.append([{ kind: "event", ts: new Date(), source: "record", event: "PostToolUse", sessionId: "p" + process.pid, matchValue: "Bash",
          projectDir: "/bench", payload: JSON.stringify({ i }), snapshot: null, rejection: null, replay: null, outcome: null }]);
      }
      await log.close();`;
    const started = performance.now();
    const codes = await Promise.all(
      Array.from(
        { length: processes },
        () =>
          new Promise<number | null>((resolve) =>
            spawn(process.execPath, ["--input-type=module", "-e", script, db.url], { stdio: "inherit" }).on("close", resolve),
          ),
      ),
    );
    const ms = performance.now() - started;
    const log = openPostgresLog(db.url, { mustExist: true });
    try {
      const stored = await log.count({});
      const verified = await log.verify();
      const lost = processes * each - stored;
      return caseResult({
        id: "8e",
        name: `${processes} processes x ${each} events, directly to PostgreSQL: lost`,
        unit: "records",
        qhooks: [lost + (verified.ok ? 0 : 1_000_000)],
        baseline: null,
        baselineName: "",
        target: { kind: "abs-max", value: 0 },
        notes: `exits ${codes.join(",")}; ${stored} stored; verify: ${verified.ok ? `ok, ${verified.records} records` : verified.problem}; ${Math.round((processes * each * 1000) / ms)} events/s in all`,
      });
    } finally {
      await log.close();
    }
  } finally {
    await db.drop();
  }
}

/** 8f: what logging one dispatched event costs, appended alone and awaited, on PostgreSQL and on SQLite. */
async function dispatchCostCase(config: BenchConfig, dir: BenchDir): Promise<CaseResult> {
  const n = config.quick ? 300 : 2_000;
  const entries = [...generateEntries(n, 5)];
  const db = await newDatabase("dispatch");
  try {
    progress(`case 8f: ${n} dispatched events appended one at a time, PostgreSQL vs SQLite`);
    const pgLog = openPostgresLog(db.url);
    const sqlite = openSqliteLog(dir.path("dispatch.db"));
    await pgLog.append([entries[0]!]);
    await sqlite.append([entries[0]!]);
    const pgMs: number[] = [];
    const sqliteMs: number[] = [];
    for (let i = 1; i < n; i++) {
      const entry = entries[i]!;
      if (i % 2) pgMs.push(await timeMs(() => pgLog.append([entry])));
      else sqliteMs.push(await timeMs(() => sqlite.append([entry])));
    }
    await pgLog.close();
    await sqlite.close();
    return caseResult({
      id: "8f",
      name: "log one dispatched event, PostgreSQL (loopback) vs SQLite",
      unit: "ms",
      qhooks: pgMs,
      baseline: sqliteMs,
      baselineName: "SQLite file",
      target: null,
      notes: `per event, medians: PostgreSQL ${median(pgMs).toFixed(2)} ms, SQLite ${median(sqliteMs).toFixed(2)} ms (a qhooks run connecting anew pays the connection too)`,
    });
  } finally {
    await db.drop();
  }
}
