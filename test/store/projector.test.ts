import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import type { EventEntry } from "../../src/store/eventLog.js";
import { LONG_LIVED_CACHE_KIB, START_AFTER_RECORDS } from "../../src/store/sqlite/projector.js";
import { catchUpStep } from "../../src/store/sqlite/projections.js";
import { projectorMain } from "../../src/store/sqlite/projectorThread.js";
import { openSqliteLog, type SqliteEventLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";
import { makeOutcome, readOnly, waitFor } from "./storeHelpers.js";

const entry = (i: number): EventEntry => {
  const outcome = makeOutcome({ ts: new Date(), event: "PreToolUse", sessionId: `p${i % 3}`, matchValue: "Bash", decision: "none" });
  return {
    kind: "event",
    ts: new Date(),
    source: "dispatch",
    event: "PreToolUse",
    sessionId: `p${i % 3}`,
    matchValue: "Bash",
    projectDir: "/p",
    payload: JSON.stringify({ n: i, text: "x".repeat(900) }),
    snapshot: { hash: "h", document: [], warnings: [] },
    rejection: null,
    replay: null,
    outcome,
  };
};
const lagOf = (file: string) =>
  readOnly(file, (db) => (db.prepare("SELECT (SELECT max(seq) FROM journal) - through AS lag FROM proj_state").get() as { lag: number }).lag);

/** The read model of a SQLite log: kept up to date by a thread of a long-lived log, rebuilt from the journal. */
describe("projections of a SQLite log", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let log: SqliteEventLog | null = null;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    await log?.close();
    log = null;
    await sb.cleanup();
  });

  it(`a log that appended ${START_AFTER_RECORDS} records starts its projector thread, which keeps the projections up to date with no reader and checkpoints, so the WAL stays bounded`, async () => {
    log = openSqliteLog(sb.db);
    for (let i = 0; i < 10; i++) await log.append([entry(i)]);
    expect(log.projection.state, "a short-lived writer starts no thread").to.equal("idle");
    expect(lagOf(sb.db)).to.equal(11); // its snapshot, then ten events
    for (let i = 10; i < 3_000; i++) await log.append([entry(i)]);
    expect(log.projection.state).to.equal("running");
    await waitFor("the projector to catch up", () => lagOf(sb.db) === 0, 20_000);
    // Its checkpoint follows each catch-up; past 1,000 WAL frames, the next commit starts the WAL over (and trims
    // it to 8 MB). Without checkpoints, 3,000 such records take about 24 MB of WAL.
    await new Promise((r) => setTimeout(r, 1_500));
    for (let i = 0; i < 5; i++) await log.append([entry(i)]);
    expect(statSync(`${sb.db}-wal`).size).to.be.below(9 * 1024 * 1024);
    expect(await log.count({})).to.equal(3_005);
  });

  it("a long-lived log's connections keep a small page cache: the writer's once its thread starts, and the thread's own", async () => {
    log = openSqliteLog(sb.db);
    const cacheOf = (db: Database.Database) => db.pragma("cache_size", { simple: true });
    const oneShot = cacheOf(log.db);
    expect(oneShot, "a short-lived log keeps the build's cache for its reads").to.be.below(-LONG_LIVED_CACHE_KIB);
    for (let i = 0; i < START_AFTER_RECORDS + 10; i++) await log.append([entry(i)]);
    expect(log.projection.state).to.equal("running");
    expect(cacheOf(log.db)).to.equal(-LONG_LIVED_CACHE_KIB);
    await log.close();
    log = null;

    // The thread's program, run here once with its stop already asked for: what its connection was set to when it closes.
    let threadCache: unknown = null;
    const Observed = class extends Database {
      override close(): this {
        threadCache = this.pragma("cache_size", { simple: true });
        return super.close();
      }
    };
    const signal = new SharedArrayBuffer(16);
    new Int32Array(signal)[1] = 1;
    const data = {
      path: sb.db,
      dev: 0,
      ino: 0,
      betterSqlite: "better-sqlite3",
      addon: undefined,
      signal,
      batch: 200,
      gatherMs: 20,
      maxLag: 20_000,
      idleMs: 1_000,
      restartFrames: 2_000,
      cacheKib: LONG_LIVED_CACHE_KIB,
    };
    projectorMain((id) => (id === "better-sqlite3" ? Observed : process.getBuiltinModule(id)), data, catchUpStep);
    expect(threadCache).to.equal(-LONG_LIVED_CACHE_KIB);
  });

  it("the projector thread dies: one warning with the next append, later appends as before, the writer checkpoints again, readers still see everything", async () => {
    log = openSqliteLog(sb.db);
    for (let i = 0; i < START_AFTER_RECORDS + 10; i++) await log.append([entry(i)]);
    const thread = log.projection.thread;
    expect(thread).to.not.equal(null);
    await thread!.terminate();
    await waitFor("the death to be noticed", () => log!.projection.state === "dead");
    const first = await log.append([entry(1)]);
    expect(first.warnings.map((w) => w.kind)).to.deep.equal(["projector-stopped"]);
    expect(first.warnings[0]!.message).to.match(/audit indexes .* stopped/);
    const second = await log.append([entry(2)]);
    expect(second.warnings).to.deep.equal([]);
    expect(second[0]).to.equal(first[0]! + 1);
    expect(log.db.pragma("wal_autocheckpoint", { simple: true })).to.equal(1000);
    const reader = openSqliteLog(sb.db, { mustExist: true });
    expect(await reader.count({})).to.equal(START_AFTER_RECORDS + 12);
    await reader.close();
  });

  it("a writer killed in the middle of a flood: every committed record is in the projections once a reader catches up, and the chain verifies", async () => {
    const script = join(sb.root, "flood.mjs");
    const store = join(REPO_ROOT, "dist", "src", "store", "sqlite", "sqliteEventLog.js");
    sb.file(
      script,
      `import { openSqliteLog } from ${JSON.stringify(store)};
       const log = openSqliteLog(process.argv[2]);
       const payload = JSON.stringify({ text: "y".repeat(500) });
       for (let i = 0; ; i++) {
         await log.append([{ kind: "event", ts: new Date(), source: "record", event: "Stop", sessionId: "k" + (i % 5), matchValue: null, projectDir: "/p", payload, snapshot: null, rejection: null, replay: null, outcome: null }]);
         if (i === 1500) process.stdout.write("flooding\\n");
       }`,
    );
    const child = spawn(process.execPath, [script, sb.db], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    await new Promise((r) => setTimeout(r, 150));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("close", r));
    const committed = readOnly(sb.db, (db) => (db.prepare("SELECT count(*) AS n FROM journal WHERE kind = 'event'").get() as { n: number }).n);
    expect(committed).to.be.greaterThan(1500);
    log = openSqliteLog(sb.db, { mustExist: true });
    expect(await log.count({})).to.equal(committed);
    expect((await log.sessions({})).reduce((n, s) => n + s.events, 0)).to.equal(committed);
    expect(await log.verify()).to.deep.equal({ ok: true, records: committed, erased: 0, from: 1 });
  });

  it("projections dropped back to nothing are rebuilt from the journal, to the same answers", async () => {
    log = openSqliteLog(sb.db);
    for (let i = 0; i < 40; i++) {
      const e = entry(i);
      if (i % 4 === 0) {
        const [seq] = await log.append([{ ...e, outcome: null }]);
        const hooks = [{ name: "g", decision: i % 8 === 0 ? ("deny" as const) : ("allow" as const) }];
        await log.append([
          {
            kind: "outcome",
            ts: new Date(),
            eventSeq: seq!,
            outcome: { ...makeOutcome({ ts: new Date(), event: "PreToolUse", sessionId: e.sessionId, decision: hooks[0]!.decision, hooks }), seq: seq! },
          },
        ]);
      } else await log.append([e]);
    }
    const answers = async () => ({
      events: await (async () => {
        const out = [];
        for await (const r of log!.events({}, 100)) out.push(r);
        return out;
      })(),
      sessions: await log!.sessions({}),
      stats: await log!.stats({}),
      denied: await log!.count({ decision: "deny" }),
    });
    const before = await answers();
    expect(before.denied).to.equal(5);
    const raw = new Database(sb.db);
    raw.exec("DELETE FROM proj_events; DELETE FROM proj_hooks; DELETE FROM proj_counts; DELETE FROM proj_sessions; UPDATE proj_state SET through = 0;");
    raw.close();
    expect(await answers()).to.deep.equal(before);
  });

  it("the thread starts in a process started with --input-type=module (which a worker inherits) as in any other", async () => {
    const store = join(REPO_ROOT, "dist", "src", "store", "sqlite", "sqliteEventLog.js");
    const source = `
      const { openSqliteLog } = await import(${JSON.stringify(store)});
      const log = openSqliteLog(process.argv[1]);
      const warnings = [];
      for (let i = 0; i < 600; i++) {
        const result = await log.append([{ kind: "event", ts: new Date(), source: "record", event: "Stop", sessionId: "m", matchValue: null, projectDir: "/p", payload: "{}", snapshot: null, rejection: null, replay: null, outcome: null }]);
        warnings.push(...result.warnings.map((w) => w.message));
      }
      await new Promise((r) => setTimeout(r, 300));
      const state = log.projection.state;
      await log.close();
      process.stdout.write(JSON.stringify({ state, warnings }));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", source, sb.db], { stdio: ["ignore", "pipe", "inherit"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    await new Promise((r) => child.once("close", r));
    expect(JSON.parse(Buffer.concat(out).toString("utf8"))).to.deep.equal({ state: "running", warnings: [] });
  });

  it("qhooks run, a one-shot process, starts no thread and leaves no WAL behind", async () => {
    const r = await sb.runEvent("PreToolUse", { session_id: "one", tool_name: "Bash", tool_input: { command: "ls" } });
    expect(r.code).to.equal(0);
    expect(existsSync(`${sb.db}-wal`)).to.equal(false);
    expect(lagOf(sb.db)).to.equal(2); // its snapshot and its event
  });
});
