import { spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { BUILD_BATCH, generateEntries } from "../bigLog.js";
import { caseResult, median, percentile, progress, timeMs, type CaseResult } from "../harness.js";
import { BenchDir, preToolUsePayload, REPO_ROOT } from "../fixtures.js";
import type { BenchConfig } from "../config.js";
import { hookBus } from "./dispatchHooks.js";

const SECOND_WRITER = join(REPO_ROOT, "dist", "bench", "probes", "secondWriter.js");
/** How often the second writer appends while a bus floods the log. */
const SECOND_WRITER_INTERVAL_MS = 5;
/** Dispatches a flooding bus keeps in flight: concurrent events, whose appends may share a transaction. */
const FLOOD_CONCURRENCY = 8;

/**
 * The projections and the lock under load: how long a reader takes to catch the projections up over many journal
 * records (5f), how far the projector thread lags while a bus floods the log with events no hook matches (5g), and
 * how long another process's appends wait meanwhile (5h).
 */
export async function projectionCases(config: BenchConfig): Promise<CaseResult[]> {
  const dir = new BenchDir("projections");
  try {
    return [...(await catchUpCase(config, dir)), ...(await floodCases(config, dir))];
  } finally {
    dir.dispose();
  }
}

/**
 * 5f: a log whose projections are `catchUpRecords` journal records behind (as after weeks of `qhooks run` only), then
 * `count({})`, which brings them up to date first; against a bare copy of the same rows into an unindexed table.
 */
async function catchUpCase(config: BenchConfig, dir: BenchDir): Promise<CaseResult[]> {
  const path = dir.path("behind.db");
  const build = openSqliteLog(path);
  const entries = [...generateEntries(config.catchUpEvents, 11)];
  for (let i = 0; i < entries.length; i += BUILD_BATCH) await build.append(entries.slice(i, i + BUILD_BATCH));
  await build.close();
  const raw = new Database(path);
  const records = (raw.prepare("SELECT max(seq) AS n FROM journal").get() as { n: number }).n;
  const behind = () =>
    raw.exec("DELETE FROM proj_events; DELETE FROM proj_hooks; DELETE FROM proj_counts; DELETE FROM proj_sessions; UPDATE proj_state SET through = 0;");
  progress(`case 5f: a reader catches up ${records.toLocaleString("en")} journal records, ${config.catchUpReps} times`);
  const qhooks: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < config.catchUpReps; i++) {
    behind();
    const log = openSqliteLog(path, { mustExist: true });
    qhooks.push(await timeMs(() => log.count({})));
    await log.close();
    bare.push(
      await timeMs(() => {
        raw.exec("DROP TABLE IF EXISTS bare_copy");
        raw.exec("CREATE TABLE bare_copy AS SELECT seq, ts, event, session_id, match_value, run_id, decision, blocked FROM journal WHERE kind = 'event'");
      }),
    );
  }
  raw.exec("DROP TABLE IF EXISTS bare_copy");
  raw.close();
  return [
    caseResult({
      id: "5f",
      name: `reader catches up ${records.toLocaleString("en")} journal records`,
      unit: "ms",
      qhooks,
      baseline: bare,
      baselineName: "bare copy of the rows",
      target: null,
      notes: `${Math.round((records * 1000) / median(qhooks)).toLocaleString("en")} records/s`,
    }),
  ];
}

/** The second writer's latencies, and how many of its appends failed. */
function secondWriter(db: string, durationMs: number, start: Promise<void>): Promise<{ latencies: number[]; failures: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SECOND_WRITER, db, String(durationMs), String(SECOND_WRITER_INTERVAL_MS)], { stdio: ["pipe", "pipe", "inherit"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`second writer exited ${code}`));
      resolve(JSON.parse(Buffer.concat(out).toString("utf8")) as { latencies: number[]; failures: number });
    });
    void start.then(() => child.stdin.write("go\n"));
  });
}

/**
 * 5g and 5h: a bus floods its log with no-match events (`FLOOD_CONCURRENCY` in flight) for `floodMs` while another
 * process appends one recorded event every few ms. The projection lag (journal records not applied yet) is sampled
 * every 10 ms by an independent reader; the second writer's p99 append latency is set against its p99 alone on an
 * idle log.
 */
async function floodCases(config: BenchConfig, dir: BenchDir): Promise<CaseResult[]> {
  const path = dir.path("flood.db");
  const settings = [dir.settings("edits", [{ matcher: "Write|Edit", command: "true" }])];
  // The file exists, so that the second writer can open it before the flood starts.
  await openSqliteLog(path).close();

  progress(`case 5h: a second writer alone for ${config.floodMs} ms`);
  const alone = await secondWriter(path, config.floodMs, new Promise((r) => setTimeout(r, 300)));

  progress(`case 5g/5h: a bus floods the log for ${config.floodMs} ms while the second writer appends`);
  const bus = hookBus(dir, settings, path);
  const payload = preToolUsePayload();
  await bus.dispatch(payload);
  const probe = new Database(path, { readonly: true });
  const lagOf = probe.prepare("SELECT (SELECT max(seq) FROM journal) - through AS lag FROM proj_state");
  let go!: () => void;
  const started = new Promise<void>((r) => (go = r));
  const writer = secondWriter(path, config.floodMs, started);
  await new Promise((r) => setTimeout(r, 300));
  const lags: number[] = [];
  let events = 0;
  let flooding = true;
  go();
  const floodStart = performance.now();
  let nextSample = floodStart;
  // Sampled from the flood's own loop: a flood of events that wait for nothing leaves timers little room.
  await Promise.all(
    Array.from({ length: FLOOD_CONCURRENCY }, async () => {
      while (flooding) {
        await bus.dispatch(payload);
        events++;
        const now = performance.now();
        if (now >= nextSample) {
          lags.push((lagOf.get() as { lag: number }).lag);
          nextSample = now + 10;
        }
        if (now - floodStart > config.floodMs) flooding = false;
      }
    }),
  );
  const floodRate = (events * 1000) / (performance.now() - floodStart);
  const drainStart = performance.now();
  while ((lagOf.get() as { lag: number }).lag > 0 && performance.now() - drainStart < 10_000) await new Promise((r) => setTimeout(r, 5));
  const drainMs = performance.now() - drainStart;
  const withFlood = await writer;
  probe.close();
  await bus.close();

  const p99 = (xs: readonly number[]) => percentile(xs, 99);
  return [
    caseResult({
      id: "5g",
      name: `projection lag while a bus floods no-match events (${FLOOD_CONCURRENCY} in flight)`,
      unit: "records",
      qhooks: [percentile(lags, 50)],
      baseline: null,
      baselineName: "",
      target: null,
      notes: `median of ${lags.length} samples every 10 ms; p99 ${p99(lags)}, max ${Math.max(...lags)} records; the flood ran at ${Math.round(floodRate).toLocaleString("en")} events/s; caught up ${drainMs.toFixed(0)} ms after it stopped`,
    }),
    caseResult({
      id: "5h",
      name: "p99 append latency of a second writer process during that flood",
      unit: "ms",
      qhooks: [p99(withFlood.latencies)],
      baseline: [p99(alone.latencies)],
      baselineName: "same writer, idle log",
      target: null,
      notes: `one append every ${SECOND_WRITER_INTERVAL_MS} ms: ${withFlood.latencies.length} during the flood (median ${median(withFlood.latencies).toFixed(2)} ms, max ${Math.max(...withFlood.latencies).toFixed(1)} ms, ${withFlood.failures} failed), ${alone.latencies.length} alone (median ${median(alone.latencies).toFixed(2)} ms)`,
    }),
  ];
}
