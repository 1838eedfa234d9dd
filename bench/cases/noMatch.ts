import { existsSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { PAYLOAD_SCHEMAS } from "../../src/schema/events.js";
import type { Outcome } from "../../src/schema/outcome.js";
import type { EventEntry } from "../../src/store/eventLog.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { caseResult, interleave, progress, rate, withPeer, type CaseResult } from "../harness.js";
import { BenchDir, preToolUsePayload } from "../fixtures.js";
import type { BenchConfig } from "../config.js";
import type { Peer } from "../peer/peer.js";
import { hookBus } from "./dispatchHooks.js";

/** A plain table, WAL and synchronous=NORMAL like the log: the floor of one-row-per-transaction writes. */
export function plainTable(path: string): { insert: (body: string) => void; close: () => void; db: Database.Database } {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const stmt = db.prepare("INSERT INTO events (body) VALUES (?)");
  return { insert: (body) => void stmt.run(body), close: () => db.close(), db };
}

/**
 * Case 4: events that match no hook (the settings hook Write|Edit, the events are Bash), dispatched one after the
 * other. Logging on against bare one-row inserts of the same payload, each its own transaction; logging off
 * against JSON.parse + the zod payload schema alone.
 */
export async function noMatchCases(config: BenchConfig, peer: Peer | null): Promise<CaseResult[]> {
  const dir = new BenchDir("nomatch");
  const payload = preToolUsePayload();
  const settings = [dir.settings("edits", [{ matcher: "Write|Edit", command: "true" }])];
  const logged = hookBus(dir, settings, dir.path("events.db"));
  const unlogged = hookBus(dir, settings, false);
  const plain = plainTable(dir.path("plain.db"));
  try {
    const dispatchAll = async (bus: typeof logged, n: number, logging: boolean) =>
      rate(n, async () => {
        for (let i = 0; i < n; i++) {
          const outcome = await bus.dispatch(payload);
          if (outcome.hooks.length !== 0 || (logging && outcome.seq === null)) throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
        }
      });

    const n = config.noMatchEvents;
    progress(`case 4a: ${n} no-match dispatches, log on, vs one-row transactions; ${config.noMatchReps} samples`);
    const a = await interleave(
      {
        qhooks: () => dispatchAll(logged, n, true),
        bare: () =>
          rate(n, () => {
            for (let i = 0; i < n; i++) plain.insert(payload);
          }),
      },
      config.noMatchReps,
      1,
    );

    // The log alone: what one such event costs the store (its one record), without the per-event pipeline.
    progress(`case 4l: ${n} appends of a no-match event's record, one per call, vs one-row transactions; ${config.noMatchReps} samples`);
    const entry = noMatchEntry(dir, payload, await logged.dispatch(payload));
    const alone = openSqliteLog(dir.path("alone.db"));
    const l = await interleave(
      {
        qhooks: () =>
          rate(n, async () => {
            for (let i = 0; i < n; i++) await alone.append([entry]);
          }),
        bare: () =>
          rate(n, () => {
            for (let i = 0; i < n; i++) plain.insert(payload);
          }),
      },
      config.noMatchReps,
      1,
    );
    await alone.close();

    const m = config.noMatchEventsNoLog;
    progress(`case 4b: ${m} no-match dispatches, log off, vs JSON.parse + zod; ${config.noMatchReps} samples`);
    const schema = PAYLOAD_SCHEMAS.PreToolUse;
    const b = await interleave(
      {
        qhooks: () => dispatchAll(unlogged, m, false),
        parse: () =>
          rate(m, () => {
            for (let i = 0; i < m; i++) if (!schema.safeParse(JSON.parse(payload)).success) throw new Error("invalid payload");
          }),
        // The peer keeps no log: its no-match rate belongs next to qhooks with logging off.
        peer: peer ? () => peer.dispatchNoMatch(payload, m) : undefined,
      },
      config.noMatchReps,
      1,
    );

    const wal = await walBytesPerEvent(dir, payload, await logged.dispatch(payload));

    const logOn = caseResult({
      id: "4a",
      name: "no-match dispatch, log on",
      unit: "events/s",
      qhooks: a.qhooks,
      baseline: a.bare,
      baselineName: "1-row txns",
      target: { kind: "ratio-min", value: 0.5 },
    });
    const logAlone = caseResult({
      id: "4l",
      name: "  the log alone: append of a no-match event's record",
      unit: "events/s",
      qhooks: l.qhooks,
      baseline: l.bare,
      baselineName: "1-row txns",
      target: null,
    });
    let logOff = caseResult({
      id: "4b",
      name: "no-match dispatch, log off",
      unit: "events/s",
      qhooks: b.qhooks,
      baseline: b.parse,
      baselineName: "JSON.parse+zod",
      target: { kind: "ratio-min", value: 0.5 },
    });
    if (peer) logOff = withPeer(logOff, peer.name, b.peer);
    return [
      logOn,
      logAlone,
      logOff,
      caseResult({
        id: "4i",
        name: "  WAL bytes written per no-match event (log on)",
        unit: "bytes",
        qhooks: [wal.log],
        baseline: [wal.plain],
        baselineName: "1-row txn",
        target: null,
        notes: `each logged no-match event commits ${(wal.log / 4120).toFixed(1)} WAL pages (4 KB + 24 B frame header), the bare one-row transaction ${(wal.plain / 4120).toFixed(1)}`,
      }),
    ];
  } finally {
    await logged.close();
    await unlogged.close();
    plain.close();
    dir.dispose();
  }
}

/** The entry a no-match dispatch appends: its arrival and its outcome in one record. */
function noMatchEntry(dir: BenchDir, payload: string, outcome: Outcome): EventEntry {
  return {
    kind: "event",
    ts: new Date(),
    source: "dispatch",
    event: "PreToolUse",
    sessionId: outcome.sessionId,
    matchValue: "Bash",
    projectDir: dir.project,
    payload,
    snapshot: { hash: outcome.configHash, document: [], warnings: [] },
    rejection: null,
    replay: null,
    outcome: { ...outcome, seq: null },
  };
}

/**
 * What one no-match event costs the disk: the WAL bytes its transaction writes (checkpoints off), through the store
 * with the entry a no-match dispatch appends, and for the bare one-row insert. Independent of machine load.
 */
async function walBytesPerEvent(dir: BenchDir, payload: string, outcome: Outcome): Promise<{ log: number; plain: number }> {
  const N = 200; // twice, under the 500 records after which a log starts its projector thread (whose checkpoints would reuse the WAL)
  const walSize = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  const logPath = dir.path("wal-log.db");
  const log = openSqliteLog(logPath);
  const entry = noMatchEntry(dir, payload, outcome);
  for (let i = 0; i < N; i++) await log.append([entry]); // the indexes' pages exist, as in a log in use
  log.db.pragma("wal_checkpoint(TRUNCATE)");
  log.db.pragma("wal_autocheckpoint = 0");
  for (let i = 0; i < N; i++) await log.append([entry]);
  const logBytes = walSize(logPath) / N;
  await log.close();

  const plainPath = dir.path("wal-plain.db");
  const plain = plainTable(plainPath);
  for (let i = 0; i < N; i++) plain.insert(payload);
  plain.db.pragma("wal_checkpoint(TRUNCATE)");
  plain.db.pragma("wal_autocheckpoint = 0");
  for (let i = 0; i < N; i++) plain.insert(payload);
  const plainBytes = walSize(plainPath) / N;
  plain.close();
  return { log: logBytes, plain: plainBytes };
}
