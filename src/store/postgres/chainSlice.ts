import type pg from "pg";
import { QhooksError } from "../../errors.js";
import type { ChainSlice, EvidenceSelection } from "../eventLog.js";
import type { PartDigests } from "../journal/hashFormat.js";
import type { JournalRow } from "../journal/record.js";
import { keyMaySign, keyPeriods } from "../keyChange.js";
import { keyFingerprint } from "../logKey.js";
import { headSignatureHolds, type SignedHeadLine } from "../signedHeads.js";
import { bytes } from "./filterSql.js";
import { chainKeyChanges } from "./keyRecords.js";
import type { ChainErasureBody, ChainPruneBody } from "./maintenance.js";
import { journalRowOf } from "./placeRows.js";

/**
 * Evidence from the central database: one writer's chain, from its first selected record to the newest head its
 * writer signed (the laptop's key signed it when it shipped; the database holds no private key and signs nothing).
 * The chain is the laptop's own numbering and hashes, so the file is the one the laptop would give for those
 * records, checked by `verify --evidence` the same way. Read in one repeatable-read transaction.
 *
 * User mistakes are one line each: several writers hold matching events and `--writer` names none of them, a writer
 * that does not exist, a chain written here directly (no key signed it), no signed head at or after the selected
 * records, records in the slice that never came here (pruned on the laptop before it shipped them).
 */
export async function writerChainSlice(client: pg.Client, selection: EvidenceSelection): Promise<ChainSlice | null> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const slice = await readSlice(client, selection);
    await client.query("COMMIT");
    return slice;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

interface WriterRow {
  readonly writer_id: string;
  readonly origin: string;
  readonly label: string;
  readonly anchor_seq: string;
  readonly anchor_hash: string;
  readonly public_key: string | null;
}

const named = (w: WriterRow): string => `${w.writer_id} (${w.label})`;

async function readSlice(client: pg.Client, selection: EvidenceSelection): Promise<ChainSlice | null> {
  const { rows: writers } = await client.query<WriterRow>(
    "SELECT writer_id, origin, label, anchor_seq, anchor_hash, public_key FROM qhooks_writers ORDER BY writer_id",
  );
  const terms = ["kind = 'event'"];
  const params: unknown[] = [];
  if (selection.sessions.length) {
    params.push(selection.sessions.map(bytes));
    terms.push(`session_id = ANY($${params.length}::bytea[])`);
  }
  if (selection.since !== null) {
    params.push(selection.since.toISOString());
    terms.push(`ts >= $${params.length}`);
  }
  let writer: WriterRow;
  if (selection.writer != null) {
    const found = writers.find((w) => w.writer_id === selection.writer);
    if (!found)
      throw new QhooksError("usage", `--writer ${selection.writer}: no such writer in this log (its writers: ${writers.map(named).join(", ") || "none"})`);
    writer = found;
  } else {
    // Evidence is one chain's: unambiguous when the matching events are all of one writer.
    const { rows } = await client.query<{ writer_id: string }>(`SELECT DISTINCT writer_id FROM qhooks_journal WHERE ${terms.join(" AND ")}`, params);
    if (rows.length === 0) return null;
    if (rows.length > 1) {
      const holding = new Set(rows.map((r) => r.writer_id));
      throw new QhooksError(
        "usage",
        `the matching events are in ${holding.size} writers' chains, and evidence is one chain's: choose one with --writer (${writers
          .filter((w) => holding.has(w.writer_id))
          .map(named)
          .join(", ")})`,
      );
    }
    writer = writers.find((w) => w.writer_id === rows[0]!.writer_id)!;
  }
  const id = writer.writer_id;
  params.push(id);
  const { rows: eventRows } = await client.query<{ seq: string }>(
    `SELECT seq FROM qhooks_journal WHERE ${terms.join(" AND ")} AND writer_id = $${params.length} ORDER BY seq`,
    params,
  );
  if (eventRows.length === 0) return null;
  if (writer.origin !== "shipped")
    throw new QhooksError(
      "usage",
      `writer ${named(writer)} writes to this database directly: no key of its own signed its chain, so there is no evidence to take of it (a laptop's log shipped here has one)`,
    );
  const selected = new Set(eventRows.map((r) => Number(r.seq)));
  // Their outcome and async hook records, then the erasure records about any of them: in the chain's numbering.
  const referring = async (kinds: readonly string[]): Promise<number[]> =>
    (
      await client.query<{ seq: string }>("SELECT seq FROM qhooks_journal WHERE writer_id = $1 AND kind = ANY($2::text[]) AND ref = ANY($3::bigint[])", [
        id,
        kinds,
        [...selected],
      ])
    ).rows.map((r) => Number(r.seq));
  for (const seq of await referring(["outcome", "hook"])) selected.add(seq);
  for (const seq of await referring(["erasure"])) selected.add(seq);
  const first = Math.min(...selected);
  const last = Math.max(...selected);

  const head = await coveringHead(client, writer, last);
  const { rows: raw } = await client.query("SELECT * FROM qhooks_journal WHERE writer_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq", [
    id,
    first,
    head.head.seq,
  ]);
  const rows: JournalRow[] = raw.map(journalRowOf);
  for (const [i, row] of rows.entries()) {
    const expected = first + i;
    if (row.seq !== expected)
      throw new QhooksError(
        "usage",
        `records ${expected} to ${row.seq - 1} of writer ${named(writer)} never came here (its log pruned them before it shipped them): evidence cannot link through them; select records after them (--since), or take the evidence from that log`,
      );
  }
  if (rows.length === 0 || rows[rows.length - 1]!.seq !== head.head.seq)
    throw new QhooksError("integrity", `record ${head.head.seq} of writer ${named(writer)}, whose head its writer signed, is gone (run qhooks verify)`);

  // The erasures of these records: those of the chain itself (the laptop's, shipped), and those made here, which
  // are in the maintaining writer's chain and name this one.
  // A selected record erased here has its erasure record outside the chain the writer signed: it goes in the file
  // beside the chain (`erasedHere`), and verify says which records were erased here, on whose word.
  const erasures = new Map<number, PartDigests>();
  const here = new Map<number, { writer: string; record: JournalRow }>();
  const { rows: notes } = await client.query("SELECT * FROM qhooks_journal WHERE kind = 'erasure' ORDER BY writer_id = $1 DESC, gid", [id]);
  for (const note of notes) {
    const record = journalRowOf(note);
    const writerId = note.writer_id as string;
    const body = parseJson<ChainErasureBody>(record.body);
    if (!body || typeof body.seq !== "number" || (body.chain ?? writerId) !== id || body.seq < first || erasures.has(body.seq)) continue;
    erasures.set(body.seq, body.parts);
    if (!(writerId === id && body.chain === undefined) && selected.has(body.seq)) here.set(body.seq, { writer: writerId, record });
  }
  const erasedHere = [...here.entries()].sort(([a], [b]) => a - b).map(([, e]) => e);
  return {
    logId: id,
    from: await recordBefore(client, writer, first),
    rows,
    selected,
    erasures,
    signed: head,
    ...(erasedHere.length ? { erasedHere } : {}),
  };
}

/**
 * The newest head the writer signed at or after `last`, with the earlier ones at or after it: each head's signature
 * checked, and its key one the writer's first key or its key records vouch for (else the database was tampered with:
 * verify names how).
 */
async function coveringHead(client: pg.Client, writer: WriterRow, last: number): Promise<NonNullable<ChainSlice["signed"]>> {
  const { rows } = await client.query<{ seq: string; hash: string; signed_at: string; public_key: string; signature: string }>(
    "SELECT seq, hash, signed_at, public_key, signature FROM qhooks_signed_heads WHERE writer_id = $1 AND seq >= $2 ORDER BY seq, signed_at",
    [writer.writer_id, last],
  );
  const heads: SignedHeadLine[] = rows.map((h) => ({
    log: writer.writer_id,
    seq: Number(h.seq),
    hash: h.hash,
    time: h.signed_at,
    publicKey: h.public_key,
    signature: h.signature,
  }));
  if (heads.length === 0)
    throw new QhooksError(
      "usage",
      `no head writer ${named(writer)} signed covers record ${last} yet: run qhooks ship on the machine that holds that log (each ship signs the head it ships through), then export again`,
    );
  const keys = keyPeriods(writer.writer_id, writer.public_key, (await chainKeyChanges(client, writer.writer_id)).get(writer.writer_id) ?? []);
  for (const h of heads) {
    const vouched = !("problem" in keys) && (writer.public_key === null || keyMaySign(keys, h.publicKey, h.seq));
    if (!headSignatureHolds(h) || !vouched)
      throw new QhooksError(
        "integrity",
        `the head of writer ${named(writer)} signed at ${h.time} (record ${h.seq}, key ${keyFingerprint(h.publicKey)}) does not hold: nothing is written (run qhooks verify)`,
      );
  }
  const head = heads[heads.length - 1]!;
  return { head, earlier: heads.slice(0, -1) };
}

/** The record before `first` in the writer's chain: its own, the anchor a prune here left, or the hash a prune record of the chain keeps. */
async function recordBefore(client: pg.Client, writer: WriterRow, first: number): Promise<{ seq: number; hash: string }> {
  const seq = first - 1;
  if (seq === 0) return { seq, hash: "" };
  const { rows } = await client.query<{ hash: string }>("SELECT hash FROM qhooks_journal WHERE writer_id = $1 AND seq = $2", [writer.writer_id, seq]);
  if (rows[0]) return { seq, hash: rows[0].hash };
  if (Number(writer.anchor_seq) === seq) return { seq, hash: writer.anchor_hash };
  const { rows: prunes } = await client.query<{ writer_id: string; body: Buffer }>("SELECT writer_id, body FROM qhooks_journal WHERE kind = 'prune'");
  for (const p of prunes) {
    const body = parseJson<ChainPruneBody>(p.body.toString("utf8"));
    if (body && (body.chain ?? p.writer_id) === writer.writer_id && body.through === seq && typeof body.hash === "string") return { seq, hash: body.hash };
  }
  return { seq, hash: "" };
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
