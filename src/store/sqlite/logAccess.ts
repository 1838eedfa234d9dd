import type { Database as Db } from "better-sqlite3";
import { QhooksError } from "../../errors.js";
import { oneLineText } from "../../text/oneLine.js";
import { APPEND_BUDGET_MS, isBusy, isLocked, READ_SPIN_MS, whileBusy, WRITE_SPIN_MS } from "./busy.js";
import { describeSqliteError } from "./openErrors.js";
import { catchUpStep, projectionLag } from "./projections.js";

/**
 * How the read side and maintenance of an open SQLite log reach its file: reads that wait out a lock and say a
 * damaged file as such, write steps that wait for other writers as an append would, and the projections brought
 * up to date before a query.
 */

/** What these need of an open log (sqliteEventLog.ts's SqliteLog). */
export interface OpenLog {
  readonly path: string;
  /** The open connection (another one after the file was replaced and reopened). */
  readonly db: Db;
  /** Runs `work` while the projector thread keeps off the file's write lock. */
  exclusive<T>(work: () => T): T;
}

/** Records per transaction when a reader catches the projections up. */
const READER_CATCH_UP_RECORDS = 5_000;

/** A file that opened but cannot be read (a damaged page) is the user's problem to see, not an internal error. */
export function guarded<T>(log: OpenLog, query: () => T): T {
  try {
    return whileBusy(query, READ_SPIN_MS);
  } catch (e) {
    throw readError(log, e);
  }
}

export async function* guardedRows<T>(log: OpenLog, rows: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* rows;
  } catch (e) {
    throw readError(log, e);
  }
}

export function readError(log: OpenLog, e: unknown): unknown {
  // A record whose JSON body was damaged in the file (SQLite itself saw nothing wrong with the page).
  if (e instanceof SyntaxError) {
    return new QhooksError("log", `cannot read the event log ${log.path}: a record is damaged (${oneLineText(e.message, 80)}); qhooks verify names it`, {
      cause: e,
    });
  }
  if (e instanceof QhooksError || typeof (e as { code?: unknown }).code !== "string" || !String((e as { code: string }).code).startsWith("SQLITE_")) return e;
  return new QhooksError("log", `cannot read the event log ${log.path}: ${describeSqliteError(e)}`, { cause: e });
}

/** A write transaction of maintenance: waits for other writers' locks as long as an append would. */
export async function writeStep<T>(log: OpenLog, step: () => T): Promise<T> {
  const deadline = performance.now() + APPEND_BUDGET_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return log.exclusive(() => whileBusy(step, WRITE_SPIN_MS));
    } catch (e) {
      if (!(isBusy(e) || isLocked(e)) || performance.now() > deadline) throw readError(log, e);
      await new Promise((r) => setTimeout(r, Math.min(2 << Math.min(attempt, 4), 20)));
    }
  }
}

/**
 * Brings the projections up to date before a query: in short transactions, letting other writers in between, so
 * that a reader far behind (a log only `qhooks run` wrote to) never holds the lock for long.
 */
export async function upToDate(log: OpenLog): Promise<void> {
  let applied = 0;
  try {
    for (let attempt = 0; ; ) {
      let step;
      try {
        step = whileBusy(() => catchUpStep(log.db, READER_CATCH_UP_RECORDS), WRITE_SPIN_MS);
      } catch (e) {
        if (!(isBusy(e) || isLocked(e)) || attempt >= 250) throw e;
        await new Promise((r) => setTimeout(r, Math.min(2 << attempt++, 20)));
        continue;
      }
      applied += step.applied;
      if (step.behind === 0) break;
      await new Promise((r) => setImmediate(r));
    }
  } catch (e) {
    // A log that cannot be written (a read-only file) can still be read while nothing is left to apply.
    const readOnly = String((e as { code?: unknown }).code).startsWith("SQLITE_READONLY");
    if (readOnly && projectionLag(log.db) === 0) return;
    if (readOnly || isBusy(e))
      throw new QhooksError("log", `cannot bring the audit indexes of the event log ${log.path} up to date: ${describeSqliteError(e)}`, { cause: e });
    throw readError(log, e);
  }
  // This writing reader has no automatic checkpoint either.
  if (applied > 0) log.db.pragma("wal_checkpoint(PASSIVE)");
}
