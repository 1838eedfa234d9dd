/**
 * `node dist/bench/teamCost.js [--runs 300]`: what each tool call pays for the team log, measured as an agent pays
 * it: `qhooks run PreToolUse` as a process (fresh HOME, no hook, logging on), wall time from spawn to exit, in three
 * set-ups taken in turn (round-robin, the order rotating each round, so that machine load hits all three alike):
 *
 * - local: the local SQLite log, nothing else running;
 * - local + ship --watch: the same, with `qhooks ship --to <db> --watch --interval 1s` running beside it;
 * - direct: `QHOOKS_DB=postgres://...` (each call connects, checks the schema and appends).
 *
 * PostgreSQL: $QHOOKS_BENCH_PG, else $QHOOKS_TEST_PG, else postgres://postgres@127.0.0.1:5432/postgres; a database of
 * its own is created and dropped. Prints a table and the machine's state; docs/team.md quotes a run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { CLI, benchEnv, preToolUsePayload, runChild } from "./fixtures.js";
import { median, percentile } from "./harness.js";

const argv = process.argv.slice(2);
const runsAt = argv.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 300;
const WARMUP = 10;
const SERVER = process.env.QHOOKS_BENCH_PG ?? process.env.QHOOKS_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const name = `qhooks_cost_${process.pid}_${randomBytes(3).toString("hex")}`;
const url = new URL(SERVER);
url.pathname = `/${name}`;
const central = url.toString();
const root = mkdtempSync(join(tmpdir(), "qhooks-cost-"));
const home = join(root, "home");
const project = join(root, "project");
mkdirSync(home);
mkdirSync(project);
const env = benchEnv(home);
const setups = {
  local: join(root, "local.db"),
  "local + ship --watch": join(root, "shipped.db"),
  direct: central,
} as const;
type Setup = keyof typeof setups;

let shipper: ChildProcess | null = null;
const samples = new Map<Setup, number[]>(Object.keys(setups).map((s) => [s as Setup, []]));
const load0 = loadavg()[0]!;
const pgVersion = await admin(async (c) => {
  await c.query(`CREATE DATABASE ${name}`);
  return (await c.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
});
try {
  const call = async (setup: Setup, n: number): Promise<number> => {
    const r = await runChild(process.execPath, [CLI, "run", "PreToolUse"], {
      input: preToolUsePayload({ n }),
      env: { ...env, QHOOKS_DB: setups[setup] },
      cwd: project,
    });
    if (r.code !== 0 || r.stderr.trim() !== "") throw new Error(`${setup}: exit ${r.code}: ${r.stderr.trim()}`);
    return r.ms;
  };
  const order = Object.keys(setups) as Setup[];
  // The shipped log exists before the shipper starts (ship needs a log), then the shipper runs throughout.
  for (const setup of order) for (let i = 0; i < WARMUP; i++) await call(setup, i);
  shipper = spawn(process.execPath, [CLI, "ship", "--to", central, "--watch", "--interval", "1s"], {
    env: { ...env, QHOOKS_DB: setups["local + ship --watch"] },
    stdio: "ignore",
  });
  await new Promise((r) => setTimeout(r, 1_500));
  for (let round = 0; round < RUNS; round++) {
    for (let k = 0; k < order.length; k++) {
      const setup = order[(round + k) % order.length]!;
      samples.get(setup)!.push(await call(setup, WARMUP + round));
    }
  }
  shipper.kill("SIGINT");
  await new Promise((r) => shipper!.once("exit", r));
  shipper = null;
  const shipped = await admin(async () => {
    const c = new pg.Client({ connectionString: central });
    await c.connect();
    try {
      return (await c.query<{ n: string }>("SELECT count(*) AS n FROM qhooks_journal WHERE kind = 'event'")).rows[0]!.n;
    } finally {
      await c.end();
    }
  });
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const base = median(samples.get("local")!);
  process.stdout.write(
    `team log cost per call: qhooks run PreToolUse (no hook, logging on), ${RUNS} calls each, interleaved; ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), node ${process.version}, PostgreSQL ${pgVersion} on loopback, load average ${load0.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end\n\n`,
  );
  process.stdout.write("setup                  median     mean       p90        p99        vs local (median)\n");
  for (const [setup, values] of samples) {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    process.stdout.write(
      `${setup.padEnd(22)} ${ms(median(values)).padEnd(10)} ${ms(mean).padEnd(10)} ${ms(percentile(values, 90)).padEnd(10)} ${ms(percentile(values, 99)).padEnd(10)} ${`+${(median(values) - base).toFixed(1)} ms`}\n`,
    );
  }
  process.stdout.write(`\nevents in the central database at the end: ${shipped} (direct calls and the shipped log's, as far as shipped)\n`);
} finally {
  shipper?.kill("SIGKILL");
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  rmSync(root, { recursive: true, force: true });
}
