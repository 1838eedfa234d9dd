import { hostname } from "node:os";
import type pg from "pg";
import { refusal } from "../journal/appendRules.js";
import { contentDigest, linkHash } from "../journal/hashFormat.js";
import type { AppendOutcome, PreparedAppend } from "../journal/prepareAppend.js";
import type { JournalRow } from "../journal/record.js";
import { snapshotRow, type PendingRow } from "../journal/rows.js";
import { bytes } from "./filterSql.js";
import { allocateGids, insertPlaced, type PlacedRow } from "./placeRows.js";

/** What appending needs of an open log: the chain it appends to, and what it knows of it. */
export interface AppendTarget {
  readonly writer: string;
  /** Snapshot hashes known to be in this writer's chain. */
  readonly knownSnapshots: { has(hash: string): boolean };
  /** This writer's row exists (no need to create it again); set once a transaction made sure of it. */
  writerKnown: boolean;
}

/** What one transaction did: each append's outcome, and the snapshot hashes it added (once it commits). */
export interface AppendedRecords {
  readonly outcomes: AppendOutcome[];
  readonly snapshots: string[];
}

/** The records of a batch of appends, after this writer's head: checked, numbered, linked and inserted. */
export async function appendRecords(client: pg.Client, chain: AppendTarget, batch: readonly PreparedAppend[]): Promise<AppendedRecords> {
  // Outcomes and async hooks' results name an event of the log: looked up once for the batch.
  const refs = batch.flatMap((a) => a.rows.filter((r) => r.row.kind === "outcome" || r.row.kind === "hook").map((r) => r.row.ref!));
  const events = new Map<number, { live: boolean; judged: boolean }>();
  if (refs.length > 0) {
    const { rows } = await client.query<{ gid: number; live: boolean; judged: boolean }>(
      `SELECT e.gid, e.run_id IS NULL AS live,
              (e.outcome IS NOT NULL OR EXISTS (SELECT 1 FROM qhooks_journal o WHERE o.kind = 'outcome' AND o.ref_gid = e.gid)) AS judged
       FROM qhooks_journal e WHERE e.gid = ANY($1::bigint[]) AND e.kind = 'event'`,
      [refs],
    );
    for (const r of rows) events.set(r.gid, { live: r.live, judged: r.judged });
  }
  const wanted = [...new Set(batch.flatMap((a) => a.snapshots.map((s) => s.snapshot.hash)))].filter((h) => !chain.knownSnapshots.has(h));
  // Round trips are most of what an append costs: the transaction starts, the chain's head is locked and (when
  // no lookup can change how many records there are) the records' numbers are taken in one of them.
  const writer = client.escapeLiteral(chain.writer);
  const certain = refs.length === 0 && wanted.length === 0 ? batch.reduce((n, a) => n + a.rows.length, 0) : null;
  const opening = (await client.query(
    `BEGIN;${chain.writerKnown ? "" : ` INSERT INTO qhooks_writers (writer_id, origin, label) VALUES (${writer}, 'direct', ${client.escapeLiteral(hostname())}) ON CONFLICT (writer_id) DO NOTHING;`}
     SELECT head_seq, head_hash FROM qhooks_writers WHERE writer_id = ${writer} FOR UPDATE` +
      (certain ? `; SELECT nextval('qhooks_journal_gid_seq') AS g FROM generate_series(1, ${certain})` : ""),
  )) as unknown as pg.QueryResult[];
  chain.writerKnown = true;
  const headRow = opening.find((r) => r.command === "SELECT")!.rows[0] as { head_seq: number; head_hash: string };
  const head = { seq: Number(headRow.head_seq), hash: headRow.head_hash };
  const taken = certain ? (opening[opening.length - 1]!.rows as { g: string | number }[]).map((r) => Number(r.g)).sort((a, b) => a - b) : null;
  const present = new Set<string>();
  if (wanted.length > 0) {
    const { rows } = await client.query<{ h: Buffer }>(
      "SELECT DISTINCT config_hash AS h FROM qhooks_journal WHERE kind = 'snapshot' AND writer_id = $1 AND config_hash = ANY($2::bytea[])",
      [chain.writer, wanted.map(bytes)],
    );
    for (const r of rows) present.add(r.h.toString("utf8"));
  }

  let seq = head.seq;
  let hash = head.hash;
  const pending: { row: PendingRow; digest: string }[] = [];
  const added: string[] = [];
  const outcomes = batch.map((append): AppendOutcome => {
    for (const { row } of append.rows) {
      const refused = refusal(row, row.ref === null ? undefined : events.get(row.ref));
      if (refused) return { ok: false, error: refused };
    }
    for (const { row } of append.rows) if (row.kind === "outcome") events.get(row.ref!)!.judged = true;
    for (const { ts, snapshot } of append.snapshots) {
      if (chain.knownSnapshots.has(snapshot.hash) || present.has(snapshot.hash) || added.includes(snapshot.hash)) continue;
      const row = snapshotRow(ts, snapshot);
      pending.push({ row, digest: contentDigest(row) });
      added.push(snapshot.hash);
    }
    const first = pending.length;
    for (const r of append.rows) pending.push({ row: r.row, digest: r.digest });
    // Seqs are known once numbers are taken; remembered here by position.
    return { ok: true, seqs: append.entryRows.map((i) => first + i) };
  });
  const gids = taken ?? (await allocateGids(client, pending.length));
  const placed: PlacedRow[] = pending.map(({ row, digest }, i) => {
    seq++;
    hash = linkHash(chain.writer, seq, hash, digest);
    const full: JournalRow = { ...row, seq, hash };
    return { gid: gids[i]!, writer: chain.writer, row: full, refGid: row.ref };
  });
  const live = new Map([...events].map(([gid, e]) => [gid, e.live]));
  await insertPlaced(client, placed, live);
  // The head moves and the transaction commits in one round trip (a hash is hex: a safe literal).
  await client.query(
    placed.length > 0 ? `UPDATE qhooks_writers SET head_seq = ${seq}, head_hash = '${hash}', updated_at = now() WHERE writer_id = ${writer}; COMMIT` : "COMMIT",
  );
  return {
    outcomes: outcomes.map((o) => (o.ok ? { ok: true, seqs: o.seqs.map((position) => gids[position]!) } : o)),
    snapshots: added,
  };
}
