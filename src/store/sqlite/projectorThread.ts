import type { Database as Db } from "better-sqlite3";
import type { CatchUpStep } from "./projections.js";

/** What the projector thread is given. */
export interface ProjectorData {
  readonly path: string;
  /** The file the writer has open: the thread stops when the path names another one (the writer reopens). */
  readonly dev: number;
  readonly ino: number;
  /** better-sqlite3's entry point and native addon, resolved by the writer (the same ones it uses). */
  readonly betterSqlite: string;
  readonly addon: string | undefined;
  /**
   * [0]: commits so far (the writer adds one and notifies); [1]: 1 when the thread must stop; [2]: the write lock
   * between this thread and the writer's (1 while one of them is in a transaction); [3]: 1 when the thread left
   * because the file at the path is no longer the one open (any other exit nobody asked for is a death). SQLite serialises them anyway,
   * but its busy handler sleeps 1, 2, 5, 10 ms... between attempts: a waiter here wakes the moment the lock is free.
   */
  readonly signal: SharedArrayBuffer;
  /** Records per catch-up transaction: short, so that writers (this process's and others) wait little for the lock. */
  readonly batch: number;
  /** How long the writer must pause before a catch-up (one batch for many events)... */
  readonly gatherMs: number;
  /** ...unless the projections are this many records behind. */
  readonly maxLag: number;
  /** The longest sleep without a commit. */
  readonly idleMs: number;
  /** WAL frames past which the WAL is started over (a RESTART checkpoint). */
  readonly restartFrames: number;
  /** Its connection's page cache, in KiB: the thread lives as long as its writer (see LONG_LIVED_CACHE_KIB). */
  readonly cacheKib: number;
}

type Require = (id: string) => unknown;
type DatabaseConstructor = new (path: string, options: { fileMustExist: boolean; timeout: number; nativeBinding?: string }) => Db;

/**
 * The projector thread's whole program: wait for commits, bring the projections up to date in short
 * transactions, run passive checkpoints (the writer's own automatic checkpoint is off, so that no commit on the
 * dispatch path ever pays for one), and stop when asked or when the file at the path is no longer the one open.
 * It runs from its source text (see projector.ts), so it refers to nothing outside its parameters.
 */
export function projectorMain(require: Require, data: ProjectorData, catchUpStep: (db: Db, max: number) => CatchUpStep): void {
  const fs = require("node:fs") as typeof import("node:fs");
  const Database = require(data.betterSqlite) as DatabaseConstructor;
  const signal = new Int32Array(data.signal);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const sleep = (ms: number) => void Atomics.wait(pause, 0, 0, ms);
  const busy = (e: unknown) => /^SQLITE_BUSY/.test(String((e as { code?: unknown }).code));
  const stopping = () => Atomics.load(signal, 1) !== 0;
  // No busy handler: a lock held by another process is waited for below, with the writer's turn given back.
  const db = new Database(data.path, { fileMustExist: true, timeout: 0, ...(data.addon ? { nativeBinding: data.addon } : {}) });
  // A passive checkpoint never waits; but under a steady flood the writer never finds one complete, so the WAL would
  // never start again from its beginning and would grow without bound. Past a size, a RESTART one holds the
  // writer back for a moment, copies the little a passive one left, and lets the next commit start the WAL over
  // (the writer's journal_size_limit then trims the file).
  const checkpoint = () => {
    const [done] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
    if ((done?.log ?? 0) < data.restartFrames) return;
    // This process's writer waits for it (its turn, below); another process's is waited for briefly.
    while (Atomics.compareExchange(signal, 2, 0, 1) !== 0) Atomics.wait(signal, 2, 1, 50);
    db.pragma("busy_timeout = 20");
    try {
      db.pragma("wal_checkpoint(RESTART)");
    } catch (e) {
      if (!busy(e)) throw e;
    } finally {
      db.pragma("busy_timeout = 0");
      Atomics.store(signal, 2, 0);
      Atomics.notify(signal, 2);
    }
  };
  try {
    db.pragma("wal_autocheckpoint = 0");
    db.pragma(`cache_size = -${data.cacheKib}`);
    const lag = db.prepare("SELECT (SELECT coalesce(max(seq), 0) FROM journal) - through AS n FROM proj_state");
    let seen = -1;
    while (!stopping()) {
      if (Atomics.load(signal, 0) === seen) Atomics.wait(signal, 0, seen, data.idleMs);
      if (stopping()) break;
      // Let the writer's burst end first (the catch-up competes with it for the lock and for a core), unless the
      // projections fall too far behind: a reader would then have that much to apply itself. Checkpoints go on.
      for (let before = Atomics.load(signal, 0); !stopping(); before = Atomics.load(signal, 0)) {
        sleep(data.gatherMs);
        if (Atomics.load(signal, 0) === before || (lag.get() as { n: number }).n >= data.maxLag) break;
        checkpoint();
      }
      seen = Atomics.load(signal, 0);
      const file = fs.statSync(data.path, { throwIfNoEntry: false });
      if (!file || file.dev !== data.dev || file.ino !== data.ino) {
        Atomics.store(signal, 3, 1);
        break;
      }
      for (let behind = 1; behind > 0 && !stopping(); ) {
        while (Atomics.compareExchange(signal, 2, 0, 1) !== 0) Atomics.wait(signal, 2, 1, 50);
        let locked = false;
        try {
          behind = catchUpStep(db, data.batch).behind;
        } catch (e) {
          if (!busy(e)) throw e;
          locked = true;
        } finally {
          Atomics.store(signal, 2, 0);
          Atomics.notify(signal, 2);
        }
        // Between two transactions, a moment in which writers waiting for the lock get it; when another process
        // holds it, this thread waits without holding up this process's writer.
        sleep(locked ? 0.2 : 1);
      }
      checkpoint();
    }
  } finally {
    db.close();
  }
}
