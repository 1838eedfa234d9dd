import type { Database } from "better-sqlite3";
import type { EraseResult, EraseSelector } from "../eventLog.js";
import { erasedParts, erasureRow, pruneRow } from "../journal/erasure.js";
import { contentDigest, linkHash, wellFormed } from "../journal/hashFormat.js";
import { JOURNAL_COLUMNS, journalValues, type JournalRow } from "../journal/record.js";
import { storedSnapshotRow, type PendingRow } from "../journal/rows.js";
import { keyChangeRow, type KeyChangeBody } from "../keyChange.js";

/**
 * Erasure and retention on a SQLite log: each step one IMMEDIATE transaction, so that appends of other processes
 * wait for it (within their budget) and then go on after it, on one valid chain.
 */

/** Appends rows after the chain's head, inside the caller's transaction. */
function place(db: Database, logId: string, rows: readonly PendingRow[], after?: { seq: number; hash: string }): number[] {
  const head = after ?? (db.prepare("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").get() as { seq: number; hash: string } | undefined);
  let seq = head?.seq ?? 0;
  let hash = head?.hash ?? "";
  const insert = db.prepare(`INSERT INTO journal (${JOURNAL_COLUMNS.join(", ")}) VALUES (${JOURNAL_COLUMNS.map(() => "?").join(", ")})`);
  const seqs: number[] = [];
  for (const row of rows) {
    hash = linkHash(logId, ++seq, hash, contentDigest(row));
    insert.run(journalValues(row, seq, hash));
    seqs.push(seq);
  }
  return seqs;
}

const logIdOf = (db: Database): string => (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value;

/** The events an erasure selects. */
function selectedEvents(db: Database, selector: EraseSelector): number[] {
  if ("seq" in selector)
    return (db.prepare("SELECT seq FROM journal WHERE seq = ? AND kind = 'event'").all(selector.seq) as { seq: number }[]).map((r) => r.seq);
  if ("sessionId" in selector)
    return (db.prepare("SELECT seq FROM journal WHERE kind = 'event' AND session_id = ?").all(wellFormed(selector.sessionId)) as { seq: number }[]).map(
      (r) => r.seq,
    );
  const p = wellFormed(selector.pattern);
  const rows = db
    .prepare(
      `SELECT seq FROM journal WHERE kind = 'event' AND (instr(body, @p) > 0 OR instr(coalesce(reason, ''), @p) > 0 OR instr(coalesce(outcome, ''), @p) > 0)
       UNION SELECT ref FROM journal WHERE kind IN ('outcome', 'hook') AND (instr(body, @p) > 0 OR instr(coalesce(reason, ''), @p) > 0)
       ORDER BY 1`,
    )
    .all({ p }) as { seq: number }[];
  return rows.map((r) => r.seq);
}

/** Rewrites the records in one transaction; the file is scrubbed after (scrub.ts), outside it. */
export function eraseEvents(db: Database, selector: EraseSelector, why: string | null): Omit<EraseResult, "leftovers"> {
  return db
    .transaction(() => {
      const logId = logIdOf(db);
      const ts = new Date().toISOString();
      const events = selectedEvents(db, selector);
      const recordsOf = db.prepare("SELECT * FROM journal WHERE (seq = @seq AND kind = 'event') OR (ref = @seq AND kind IN ('outcome', 'hook')) ORDER BY seq");
      const erasedBefore = db.prepare("SELECT 1 FROM journal WHERE kind = 'erasure' AND ref = ? LIMIT 1");
      const rewrite = db.prepare("UPDATE journal SET reason = @reason, body = @body, outcome = @outcome WHERE seq = @seq");
      const erasures: PendingRow[] = [];
      let erasedEvents = 0;
      for (const seq of events) {
        let any = false;
        for (const row of recordsOf.all({ seq }) as JournalRow[]) {
          if (erasedBefore.get(row.seq)) continue;
          erasures.push(erasureRow(ts, row, why));
          rewrite.run({ seq: row.seq, ...erasedParts(row) });
          any = true;
        }
        if (any) erasedEvents++;
      }
      if (erasures.length) place(db, logId, erasures);
      return { events: erasedEvents, records: erasures.length };
    })
    .immediate();
}

/** What eraseEvents would rewrite, read only: the selected events that have a record not erased before. */
export function erasePlan(db: Database, selector: EraseSelector): { events: number; records: number } {
  const left = db.prepare(
    `SELECT count(*) AS n FROM journal r WHERE ((r.seq = @seq AND r.kind = 'event') OR (r.ref = @seq AND r.kind IN ('outcome', 'hook')))
     AND NOT EXISTS (SELECT 1 FROM journal x WHERE x.kind = 'erasure' AND x.ref = r.seq)`,
  );
  let events = 0;
  let records = 0;
  for (const seq of selectedEvents(db, selector)) {
    const n = (left.get({ seq }) as { n: number }).n;
    if (n > 0) events++;
    records += n;
  }
  return { events, records };
}

/** What pruning before `before` would delete, read only: the records before the cut, and the first one kept. */
export function prunePlan(db: Database, before: Date): { records: number; events: number; from: number | null } {
  const target = pruneCut(db, before);
  if (target === null) return { records: 0, events: 0, from: null };
  const counted = db.prepare("SELECT count(*) AS records, count(*) FILTER (WHERE kind = 'event') AS events FROM journal WHERE seq < ?").get(target.cut) as {
    records: number;
    events: number;
  };
  return { ...counted, from: target.cut };
}

/** Records deleted per transaction: each step holds the write lock briefly, then lets other writers in. */
export const PRUNE_STEP_RECORDS = 20_000;

/** The first record to keep when pruning before `before`; null when nothing is that old. */
export function pruneCut(db: Database, before: Date): { from: number; cut: number } | null {
  const first = (db.prepare("SELECT min(seq) AS seq FROM journal").get() as { seq: number | null }).seq;
  if (first === null) return null;
  const head = (db.prepare("SELECT max(seq) AS seq FROM journal").get() as { seq: number }).seq;
  let cut =
    (
      db.prepare("SELECT min(seq) AS seq FROM journal WHERE ts >= ? AND kind IN ('event', 'outcome', 'hook', 'replay_run')").get(before.toISOString()) as {
        seq: number | null;
      }
    ).seq ?? head + 1;
  // Records qhooks writes for itself (snapshots, erasure and prune records) go by their place, not their time: the
  // snapshots just before the first kept event stay with it.
  cut = (db.prepare("SELECT coalesce(max(seq), 0) + 1 AS seq FROM journal WHERE seq < ? AND kind <> 'snapshot'").get(cut) as { seq: number }).seq;
  // An event goes with its outcome: a kept outcome keeps its event.
  const orphan = (
    db.prepare("SELECT min(ref) AS seq FROM journal WHERE seq >= ? AND kind IN ('outcome', 'hook') AND ref < ?").get(cut, cut) as { seq: number | null }
  ).seq;
  if (orphan !== null) cut = Math.min(cut, orphan);
  return cut > first ? { from: first, cut } : null;
}

/**
 * Deletes records [first, end) in one transaction: their projections with them, configuration snapshots still
 * needed copied to the head first, the anchor moved to record end - 1, and a prune record appended.
 */
export function pruneStep(db: Database, end: number, before: Date): { records: number; events: number } {
  return db
    .transaction(() => {
      const logId = logIdOf(db);
      const ts = new Date().toISOString();
      const anchor = db.prepare("SELECT seq, hash FROM journal WHERE seq < ? ORDER BY seq DESC LIMIT 1").get(end) as { seq: number; hash: string } | undefined;
      if (!anchor) return { records: 0, events: 0 };
      // Snapshots that no kept record holds: copied first, so that kept and later events still name a stored one.
      const snapshots = db
        .prepare(
          `SELECT s.config_hash, s.body FROM journal s WHERE s.seq < @end AND s.kind = 'snapshot'
           AND NOT EXISTS (SELECT 1 FROM journal k WHERE k.kind = 'snapshot' AND k.config_hash = s.config_hash AND k.seq >= @end)
           GROUP BY s.config_hash`,
        )
        .all({ end }) as { config_hash: string; body: string }[];
      // Key records too: verify follows the log's keys from the first one, so the hand-overs must outlive the records
      // they followed (a rotation's signature names no seq, so its copy checks as the original did).
      const keys = db.prepare("SELECT body FROM journal WHERE seq < ? AND kind = 'key' ORDER BY seq").all(end) as { body: string }[];
      const copies = [
        ...snapshots.map((s) => storedSnapshotRow(ts, s.config_hash, s.body)),
        ...keys.map((k) => ({ ...keyChangeRow(ts, JSON.parse(k.body) as KeyChangeBody), body: k.body })),
      ];
      // The projections of the events deleted: counts and sessions recomputed from what stays.
      db.prepare(
        `INSERT INTO proj_counts (event, decision, n)
         SELECT coalesce(event, '?'), coalesce(decision, 'unfinished'), -count(*) FROM proj_events WHERE seq < @end AND run_id IS NULL GROUP BY 1, 2
         ON CONFLICT (event, decision) DO UPDATE SET n = n + excluded.n`,
      ).run({ end });
      db.prepare("DELETE FROM proj_counts WHERE n <= 0").run();
      const sessions = (
        db.prepare("SELECT DISTINCT session_id FROM proj_events WHERE seq < ? AND run_id IS NULL AND session_id IS NOT NULL").all(end) as {
          session_id: string;
        }[]
      ).map((r) => r.session_id);
      db.prepare("DELETE FROM proj_hooks WHERE event_seq < ?").run(end);
      db.prepare("DELETE FROM proj_events WHERE seq < ?").run(end);
      const drop = db.prepare("DELETE FROM proj_sessions WHERE session_id = ?");
      const rebuild = db.prepare(
        `INSERT INTO proj_sessions (session_id, first_seq, last_seq, events, blocked)
         SELECT session_id, min(seq), max(seq), count(*), sum(blocked) FROM proj_events WHERE run_id IS NULL AND session_id = ? GROUP BY session_id`,
      );
      for (const s of sessions) {
        drop.run(s);
        rebuild.run(s);
      }
      const events = (db.prepare("SELECT count(*) AS n FROM journal WHERE seq < ? AND kind = 'event'").get(end) as { n: number }).n;
      // The head before deleting: when every record goes, the next ones still follow it.
      const head = db.prepare("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").get() as { seq: number; hash: string };
      const records = db.prepare("DELETE FROM journal WHERE seq < ?").run(end).changes;
      const meta = db.prepare("INSERT INTO log_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
      meta.run("anchor_seq", String(anchor.seq));
      meta.run("anchor_hash", anchor.hash);
      place(db, logId, [...copies, pruneRow(ts, { through: anchor.seq, hash: anchor.hash, records, before: before.toISOString() })], head);
      return { records, events };
    })
    .immediate();
}

/** Where the chain starts: after the anchor a prune left (its seq and hash), or at record 1. */
export function chainAnchor(db: Database): { seq: number; hash: string } {
  const rows = db.prepare("SELECT key, value FROM log_meta WHERE key IN ('anchor_seq', 'anchor_hash')").all() as { key: string; value: string }[];
  const seq = rows.find((r) => r.key === "anchor_seq")?.value;
  const hash = rows.find((r) => r.key === "anchor_hash")?.value;
  return seq !== undefined && hash !== undefined ? { seq: Number(seq), hash } : { seq: 0, hash: "" };
}

/** Appends one record of the log's own (a key record), chained after the head; its seq. */
export function appendOwnRecord(db: Database, row: PendingRow): number {
  return db.transaction(() => place(db, logIdOf(db), [row])[0]!).immediate();
}

/** The key records of the chain, in order. */
export function keyRecords(db: Database): { seq: number; body: string }[] {
  return db.prepare("SELECT seq, body FROM journal WHERE kind = 'key' ORDER BY seq").all() as { seq: number; body: string }[];
}
