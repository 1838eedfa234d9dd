import { hostname } from "node:os";
import type pg from "pg";
import { QhooksError } from "../errors.js";
import { erasedParts, type ErasureBody, type PruneBody } from "./journal/erasure.js";
import { recordHash, type PartDigests } from "./journal/hashFormat.js";
import type { JournalRow } from "./journal/record.js";
import { chainAnchor } from "./sqlite/maintenance.js";
import { openSqliteLog } from "./sqlite/sqliteEventLog.js";
import { connect, describePgError, isConnectionError, shownUrl } from "./postgres/connection.js";
import { migratePg } from "./postgres/migrations.js";
import { allocateGids, insertPlaced, journalRowOf, lockWriter, setHead, type PlacedRow } from "./postgres/placeRows.js";
import { confirmedHeads, keepSignedHead, rememberConfirmedHeads, sendLocalHeads } from "./shipHeads.js";
import { readSignedHeads, type SignedHeadLine } from "./signedHeads.js";

export interface ShipOptions {
  /** The local SQLite log. */
  readonly from: string;
  /** The central PostgreSQL database. */
  readonly to: string;
  /** Records per transaction. */
  readonly batch?: number;
  /** Told after each batch is committed. */
  readonly onBatch?: (progress: ShipProgress) => void;
  /**
   * Signs the local chain's head with the local log's key (null when it cannot: the records ship unsigned). Each
   * batch's head is signed and kept centrally in the batch's transaction, so that the central copy is held to it.
   */
  readonly sign?: (head: { readonly log: string; readonly seq: number; readonly hash: string }) => SignedHeadLine | null;
}

export interface ShipProgress {
  /** The local log's id: the name of its chain in the central database. */
  readonly logId: string;
  /** Records copied by this call so far. */
  readonly shipped: number;
  /** The last record of the local log now in the central database. */
  readonly head: number;
  /**
   * Records the local log pruned before they were shipped (they never reach the central database; the chain
   * there goes on after them from the hash its prune record keeps).
   */
  readonly skipped: number;
  /** Other logs shipped here from a machine of the same host name (their ids): their origin alone does not tell them apart. */
  readonly sameHost: readonly string[];
  /** How far this machine's clock is ahead of the database server's (negative: behind), in milliseconds. */
  readonly clockAheadMs: number;
  /** The newest record shipped by this call whose time is more than an hour after the server's clock, if any. */
  readonly futureRecord: { readonly seq: number; readonly ts: string } | null;
  /** Heads the local log signed (`<log>.heads`) that the central database lacked, sent by this call. */
  readonly headsSent: number;
  /** Of those, heads an earlier ship had seen there: removed from the central database since. */
  readonly headsRestored: number;
  /**
   * The central database had nothing of this log, though an earlier ship to this URL saw its heads there: removed
   * there whole (records, heads and writer), or the URL now names another database. Shipped again from the start.
   */
  readonly emptied: boolean;
  /** What is wrong with `<log>.heads` (a line edited, unreadable): the heads from there on were not sent. */
  readonly headsProblem: string | null;
}

/** How far clocks may disagree before ship says so. */
export const CLOCK_TOLERANCE_MS = 3_600_000;

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
    // Erased records are checked through the digests their parts had, as verify does; a pruned log starts after
    // its anchor, which one of its prune records names.
    const erasures = new Map<number, ErasureBody>();
    for (const r of db.prepare("SELECT body FROM journal WHERE kind = 'erasure'").all() as { body: string }[]) {
      const body = parseJson<ErasureBody>(r.body);
      if (body && typeof body.seq === "number") erasures.set(body.seq, body);
    }
    const erasureAt = db.prepare("SELECT body FROM journal WHERE kind = 'erasure' AND ref = ?");
    const erasureOf = (seq: number): ErasureBody | undefined => {
      const found = (erasureAt.all(seq) as { body: string }[]).map((r) => parseJson<ErasureBody>(r.body)).find((b) => b?.seq === seq);
      return found ?? undefined;
    };
    // Read again for each batch: the local log may be pruned while it ships.
    const prunesAt = db.prepare("SELECT body FROM journal WHERE kind = 'prune' AND ref = ?");
    let anchor = { seq: 0, hash: "" };
    let anchorNamed = true;
    const readAnchor = () => {
      const now = chainAnchor(db);
      if (now.seq === anchor.seq && now.hash === anchor.hash) return;
      anchor = now;
      anchorNamed = (prunesAt.all(anchor.seq) as { body: string }[]).some((r) => {
        const body = parseJson<PruneBody>(r.body);
        return body?.through === anchor.seq && body.hash === anchor.hash;
      });
    };
    let shipped = 0;
    let skipped = 0;
    // Two laptops named alike, and clocks that disagree by hours, ship fine but mislead whoever reads the log.
    const { rows: alike } = await pgc.query<{ writer_id: string }>(
      "SELECT writer_id FROM qhooks_writers WHERE writer_id <> $1 AND origin = 'shipped' AND split_part(label, ':', 1) = $2 ORDER BY writer_id",
      [logId, hostname()],
    );
    const sameHost = alike.map((r) => r.writer_id);
    const before = Date.now();
    const { rows: clock } = await pgc.query<{ now: string }>("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now");
    const serverNow = Number(clock[0]!.now);
    const clockAheadMs = Math.round((before + Date.now()) / 2 - serverNow);
    let futureRecord: { seq: number; ts: string } | null = null;
    // What the database held of this log when this call began: none, though an earlier ship saw its heads there,
    // means the log was removed there whole (or the URL names a new database).
    let startHead: number | null = null;
    const confirmedBefore = confirmedHeads(db, shown);
    /** The next batch after `after`, each link checked; a broken one throws, naming the record. */
    const prepare = (after: { seq: number; hash: string; format: number }): Segment => {
      const rows = rowsAfter.all(after.seq, batch) as JournalRow[];
      let previous = after.hash;
      let previousFormat = after.format;
      let expected = after.seq + 1;
      let gap = 0;
      for (const row of rows) {
        if (row.seq !== expected) {
          // Pruned here before it shipped: the chain goes on after the anchor, from its hash.
          if (expected !== after.seq + 1 || row.seq !== anchor.seq + 1 || !anchorNamed)
            throw brokenAt(options.from, expected, `record ${expected} is missing (the next one is ${row.seq})`, shipped);
          gap = row.seq - expected;
          previous = anchor.hash;
          expected = row.seq;
        }
        const { hash, ...content } = row;
        const linked = (erasure: ErasureBody | undefined) =>
          (erasure ? recordHash(content, previous, logId, erasure.parts as PartDigests) : recordHash(content, previous, logId)) === hash;
        // An erasure made while this ship runs is read when its record is met.
        let matches = linked(erasures.get(row.seq));
        if (!matches && !erasures.has(row.seq)) {
          const late = erasureOf(row.seq);
          if (late) erasures.set(row.seq, late);
          matches = late !== undefined && linked(late);
        }
        if (row.format < previousFormat || !matches) throw brokenAt(options.from, row.seq, `record ${row.seq} (${row.kind}) does not match its hash`, shipped);
        previous = hash;
        previousFormat = row.format;
        expected++;
      }
      return { after, rows, gap };
    };
    // The next batch is read and checked while the server writes this one: what a batch costs here (reading the
    // file, a SHA-256 link per record) overlaps with what it costs there. Used when the head is where it expects.
    let next: Segment | null = null;
    for (;;) {
      await pgc.query("BEGIN");
      let done = false;
      try {
        const head = await lockWriter(pgc, logId, "shipped", label);
        startHead ??= head.seq;
        const { rows: origin } = await pgc.query<{ origin: string }>("SELECT origin FROM qhooks_writers WHERE writer_id = $1", [logId]);
        if (origin[0]?.origin !== "shipped")
          throw new QhooksError("log", `the chain ${logId} in ${shown} is written directly by a machine, not shipped: refusing to mix them`);
        let previousFormat = 0;
        readAnchor();
        if (head.seq > 0 && head.seq > anchor.seq) {
          const mine = hashAt.get(head.seq) as { hash: string; format: number } | undefined;
          if (mine?.hash !== head.hash) {
            throw new QhooksError(
              "integrity",
              `the log ${options.from} no longer has record ${head.seq} as it was shipped to ${shown} (edited, or another file with the same log id): refusing to ship from it`,
            );
          }
          previousFormat = mine.format;
        } else if (head.seq > 0 && head.seq === anchor.seq && anchor.hash !== head.hash) {
          throw new QhooksError(
            "integrity",
            `the log ${options.from} was pruned through record ${head.seq}, but with another hash than the one shipped to ${shown} (edited, or another file with the same log id): refusing to ship from it`,
          );
        }
        const ready: Segment | null = next;
        next = null;
        const segment =
          ready !== null && ready.after.seq === head.seq && ready.after.hash === head.hash
            ? ready
            : prepare({ seq: head.seq, hash: head.hash, format: previousFormat });
        const { rows, gap } = segment;
        if (rows.length === 0) {
          // The heads signed between ships, and those removed here since an earlier ship saw them: the central
          // verify holds the chain to every head the laptop holds it to.
          const { rows: anchored } = await pgc.query<{ anchor_seq: string }>("SELECT anchor_seq FROM qhooks_writers WHERE writer_id = $1", [logId]);
          const emptied = startHead === 0 && confirmedBefore > 0;
          const localHeads = readSignedHeads(options.from);
          const heads = await sendLocalHeads(
            pgc,
            logId,
            localHeads.heads,
            { head: head.seq, anchor: Number(anchored[0]?.anchor_seq ?? 0) },
            emptied ? 0 : confirmedBefore,
          );
          // Shipped before its heads were signed (or by a ship that could not use the key, or its head removed
          // here): signed now, after the laptop's own heads are back (a head it already signed is not signed twice).
          if (head.seq > 0 && options.sign) {
            const { rows: signed } = await pgc.query("SELECT 1 FROM qhooks_signed_heads WHERE writer_id = $1 AND seq = $2 LIMIT 1", [logId, head.seq]);
            if (signed.length === 0) await keepSignedHead(pgc, logId, options.sign({ log: logId, seq: head.seq, hash: head.hash }));
          }
          await pgc.query("COMMIT");
          if (heads.confirmed !== confirmedBefore) rememberConfirmedHeads(db, shown, heads.confirmed);
          return {
            logId,
            shipped,
            head: head.seq,
            skipped,
            sameHost,
            clockAheadMs,
            futureRecord,
            headsSent: heads.sent,
            headsRestored: heads.restored,
            emptied,
            headsProblem: localHeads.problem,
          };
        }
        const gids = await allocateGids(pgc, rows.length);
        const gidOf = new Map(rows.map((r, i) => [r.seq, gids[i]!]));
        // What a record refers to (an outcome's event, a replayed event's live one) in the same chain, by its gid.
        const refers = (r: JournalRow) =>
          r.ref !== null && (r.kind === "outcome" || r.kind === "hook" || r.kind === "erasure" || (r.kind === "event" && r.run_id !== null));
        const outside = [...new Set(rows.filter((r) => refers(r) && !gidOf.has(r.ref!)).map((r) => r.ref!))];
        if (outside.length > 0) {
          const { rows: found } = await pgc.query<{ seq: number; gid: number }>(
            "SELECT seq, gid FROM qhooks_journal WHERE writer_id = $1 AND seq = ANY($2::bigint[])",
            [logId, outside],
          );
          for (const f of found) gidOf.set(f.seq, f.gid);
        }
        const placed: PlacedRow[] = rows.map((row, i) => ({ gid: gids[i]!, writer: logId, row, refGid: refers(row) ? (gidOf.get(row.ref!) ?? null) : null }));
        const last = rows[rows.length - 1]!;
        const inserting = insertPlaced(pgc, placed);
        try {
          next = prepare({ seq: last.seq, hash: last.hash, format: last.format });
        } catch {
          // Said when that batch is prepared again, once this one is committed.
          next = null;
        }
        await inserting;
        // Erased here after they were shipped: the central copies lose their text too.
        const erasedLater = rows.filter((r) => r.kind === "erasure" && r.ref !== null && r.ref <= head.seq).map((r) => r.ref!);
        if (erasedLater.length > 0) await eraseShipped(pgc, logId, erasedLater);
        await setHead(pgc, logId, { seq: last.seq, hash: last.hash });
        if (options.sign) await keepSignedHead(pgc, logId, options.sign({ log: logId, seq: last.seq, hash: last.hash }));
        await pgc.query("COMMIT");
        done = true;
        shipped += rows.length;
        skipped += gap;
        for (const r of rows) {
          const at = Date.parse(r.ts);
          if (at - serverNow > CLOCK_TOLERANCE_MS && (futureRecord === null || r.seq > futureRecord.seq)) futureRecord = { seq: r.seq, ts: r.ts };
        }
        options.onBatch?.({
          logId,
          shipped,
          head: last.seq,
          skipped,
          sameHost,
          clockAheadMs,
          futureRecord,
          headsSent: 0,
          headsRestored: 0,
          emptied: false,
          headsProblem: null,
        });
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

/** A batch of a local log, checked link by link from the record before it. */
interface Segment {
  readonly after: { readonly seq: number; readonly hash: string; readonly format: number };
  readonly rows: JournalRow[];
  /** Records pruned from the local log before they shipped, skipped at the start of this batch. */
  readonly gap: number;
}

/** The central copies of records of a shipped chain, with their text erased as the local log erased it. */
async function eraseShipped(client: pg.Client, logId: string, seqs: readonly number[]): Promise<void> {
  const { rows } = await client.query("SELECT * FROM qhooks_journal WHERE writer_id = $1 AND seq = ANY($2::bigint[])", [logId, seqs]);
  const bytes = (text: string | null) => (text === null ? null : Buffer.from(text, "utf8"));
  for (const r of rows) {
    const row = journalRowOf(r);
    const parts = erasedParts(row);
    if (parts.reason === row.reason && parts.body === row.body && parts.outcome === row.outcome) continue;
    await client.query("UPDATE qhooks_journal SET reason = $2, body = $3, outcome = $4 WHERE gid = $1", [
      r.gid,
      bytes(parts.reason),
      bytes(parts.body),
      bytes(parts.outcome),
    ]);
  }
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function brokenAt(path: string, seq: number, problem: string, shipped: number): QhooksError {
  return new QhooksError(
    "integrity",
    `the log ${path} was changed after it was written: ${problem}; nothing from record ${seq} on was shipped${shipped ? ` (${shipped} records before it were)` : ""}`,
  );
}

export { isConnectionError };
