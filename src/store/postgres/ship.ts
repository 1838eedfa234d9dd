import { hostname } from "node:os";
import type pg from "pg";
import { QhooksError } from "../../errors.js";
import { recordHash } from "../journal/hashFormat.js";
import type { JournalRow } from "../journal/record.js";
import { openSqliteLog } from "../sqlite/sqliteEventLog.js";
import { connect, describePgError, isConnectionError, shownUrl } from "./connect.js";
import { migratePg } from "./migrations.js";
import { allocateGids, insertPlaced, lockWriter, setHead, type PlacedRow } from "./placeRows.js";

export interface ShipOptions {
  /** The local SQLite log. */
  readonly from: string;
  /** The central PostgreSQL database. */
  readonly to: string;
  /** Records per transaction. */
  readonly batch?: number;
  /** Told after each batch is committed. */
  readonly onBatch?: (progress: ShipProgress) => void;
}

export interface ShipProgress {
  /** The local log's id: the name of its chain in the central database. */
  readonly logId: string;
  /** Records copied by this call so far. */
  readonly shipped: number;
  /** The last record of the local log now in the central database. */
  readonly head: number;
}

export const DEFAULT_SHIP_BATCH = 5_000;

/**
 * Copies the records of a local log that the central database does not have yet, in batches of one transaction
 * each, after the chain head the central database holds for this log (so a second run, or one after a kill, goes
 * on from there: nothing is lost or copied twice, and two at once take turns on the head's row lock). Each batch is
 * checked link by link against that head before it is written: a local log edited after it was written is refused,
 * naming the record where its chain breaks, and nothing from there on is copied.
 */
export async function shipLog(options: ShipOptions, client?: pg.Client): Promise<ShipProgress> {
  const local = openSqliteLog(options.from, { mustExist: true });
  const own = client === undefined;
  const shown = shownUrl(options.to);
  let pgClient: pg.Client | undefined = client;
  try {
    const db = local.db;
    const logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string } | undefined)?.value;
    if (logId === undefined) throw new QhooksError("log", `the log ${options.from} has no log id`);
    pgClient ??= await connect(options.to);
    const pgc = pgClient;
    try {
      await migratePg(pgc, shown, false);
    } catch (e) {
      if (e instanceof QhooksError) throw e;
      throw new QhooksError("log", `cannot use the event log ${shown}: ${describePgError(e)}`, { cause: e });
    }
    const batch = Math.max(1, options.batch ?? DEFAULT_SHIP_BATCH);
    const label = `${hostname()}:${options.from}`;
    const rowsAfter = db.prepare("SELECT * FROM journal WHERE seq > ? ORDER BY seq LIMIT ?");
    const hashAt = db.prepare("SELECT hash, format FROM journal WHERE seq = ?");
    let shipped = 0;
    for (;;) {
      await pgc.query("BEGIN");
      let done = false;
      try {
        const head = await lockWriter(pgc, logId, "shipped", label);
        const { rows: origin } = await pgc.query<{ origin: string }>("SELECT origin FROM qhooks_writers WHERE writer_id = $1", [logId]);
        if (origin[0]?.origin !== "shipped") throw new QhooksError("log", `the chain ${logId} in ${shown} is written directly by a machine, not shipped: refusing to mix them`);
        let previous = head.hash;
        let previousFormat = 0;
        if (head.seq > 0) {
          const mine = hashAt.get(head.seq) as { hash: string; format: number } | undefined;
          if (mine?.hash !== head.hash) {
            throw new QhooksError("integrity", `the log ${options.from} no longer has record ${head.seq} as it was shipped to ${shown} (edited, or another file with the same log id): refusing to ship from it`);
          }
          previousFormat = mine.format;
        }
        const rows = rowsAfter.all(head.seq, batch) as JournalRow[];
        if (rows.length === 0) {
          await pgc.query("COMMIT");
          return { logId, shipped, head: head.seq };
        }
        let expected = head.seq + 1;
        for (const row of rows) {
          if (row.seq !== expected) throw brokenAt(options.from, expected, `record ${expected} is missing (the next one is ${row.seq})`, shipped);
          const { hash, ...content } = row;
          if (row.format < previousFormat || recordHash(content, previous, logId) !== hash) {
            throw brokenAt(options.from, row.seq, `record ${row.seq} (${row.kind}) does not match its hash`, shipped);
          }
          previous = hash;
          previousFormat = row.format;
          expected++;
        }
        const gids = await allocateGids(pgc, rows.length);
        const gidOf = new Map(rows.map((r, i) => [r.seq, gids[i]!]));
        // What a record refers to (an outcome's event, a replayed event's live one) in the same chain, by its gid.
        const refers = (r: JournalRow) => r.ref !== null && (r.kind === "outcome" || r.kind === "hook" || (r.kind === "event" && r.run_id !== null));
        const outside = [...new Set(rows.filter((r) => refers(r) && !gidOf.has(r.ref!)).map((r) => r.ref!))];
        if (outside.length > 0) {
          const { rows: found } = await pgc.query<{ seq: number; gid: number }>("SELECT seq, gid FROM qhooks_journal WHERE writer_id = $1 AND seq = ANY($2::bigint[])", [logId, outside]);
          for (const f of found) gidOf.set(f.seq, f.gid);
        }
        const placed: PlacedRow[] = rows.map((row, i) => ({ gid: gids[i]!, writer: logId, row, refGid: refers(row) ? (gidOf.get(row.ref!) ?? null) : null }));
        await insertPlaced(pgc, placed);
        const last = rows[rows.length - 1]!;
        await setHead(pgc, logId, { seq: last.seq, hash: last.hash });
        await pgc.query("COMMIT");
        done = true;
        shipped += rows.length;
        options.onBatch?.({ logId, shipped, head: last.seq });
      } finally {
        if (!done) await pgc.query("ROLLBACK").catch(() => undefined);
      }
    }
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("log", `cannot ship to ${shown}: ${describePgError(e)}`, { cause: e });
  } finally {
    await local.close();
    if (own) await pgClient?.end().catch(() => undefined);
  }
}

function brokenAt(path: string, seq: number, problem: string, shipped: number): QhooksError {
  return new QhooksError("integrity", `the log ${path} was changed after it was written: ${problem}; nothing from record ${seq} on was shipped${shipped ? ` (${shipped} records before it were)` : ""}`);
}

export { isConnectionError };
