import type pg from "pg";
import type { VerifyResult } from "../../schema/logRecord.js";
import { CURRENT_FORMAT, recordHash, type PartDigests } from "../journal/hashFormat.js";
import type { ChainErasureBody, ChainPruneBody } from "./maintenance.js";
import { journalRowOf } from "./placeRows.js";

const PAGE = 5_000;

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * Every writer's chain, record by record, by the rules of each record's own format: an edited record fails its
 * hash, a deleted one leaves a gap, records cut off a chain's end leave it short of the head its writer recorded.
 * The first chain that breaks is named, with the place in it (its own numbering) where it breaks.
 *
 * Erased records are checked through the digests their parts had, which their erasure records keep; a chain
 * starts after its anchor when its oldest records were pruned here, which a prune record must name; and a chain
 * may skip records where a prune record says they were deleted before they came here (a laptop's log pruned before
 * it shipped them), from the hash that record keeps. Erasure and prune records name their chain (`chain` in their
 * body) or, without it, are about the chain they are in.
 */
export async function verifyChains(client: pg.Client): Promise<VerifyResult> {
  const { rows: writers } = await client.query<{ writer_id: string; label: string; head_seq: number; anchor_seq: number; anchor_hash: string }>(
    "SELECT writer_id, label, head_seq, anchor_seq, anchor_hash FROM qhooks_writers ORDER BY writer_id",
  );
  // A record may have more than one: erased here, and on the laptop it was shipped from (whose erasure record
  // arrives later). The digests of its parts before any erasure are in at least one of them.
  const erasures = new Map<string, ChainErasureBody[]>();
  const prunes = new Map<string, ChainPruneBody[]>();
  const key = (chain: string, seq: number) => `${seq}\n${chain}`;
  const { rows: notes } = await client.query<{ writer_id: string; kind: string; body: Buffer }>(
    "SELECT writer_id, kind, body FROM qhooks_journal WHERE kind IN ('erasure', 'prune')",
  );
  for (const note of notes) {
    if (note.kind === "erasure") {
      const body = parseJson<ChainErasureBody>(note.body.toString("utf8"));
      if (body && typeof body.seq === "number") {
        const at = key(body.chain ?? note.writer_id, body.seq);
        erasures.set(at, [...(erasures.get(at) ?? []), body]);
      }
    } else {
      const body = parseJson<ChainPruneBody>(note.body.toString("utf8"));
      if (body && typeof body.through === "number" && typeof body.hash === "string") {
        const chain = body.chain ?? note.writer_id;
        prunes.set(chain, [...(prunes.get(chain) ?? []), body]);
      }
    }
  }
  const declared = (chain: string, through: number): ChainPruneBody | undefined => prunes.get(chain)?.find((p) => p.through === through);
  let records = 0;
  let erased = 0;
  // The first record checked: 1, or the first one kept of a chain whose oldest records were pruned.
  let from: number | null = null;
  for (const writer of writers) {
    const chain = `${writer.writer_id} (${writer.label})`;
    const broken = (firstBad: number, problem: string): VerifyResult => ({
      ok: false,
      records,
      firstBad,
      problem: `chain ${chain}: ${problem}`,
      chain: writer.writer_id,
    });
    const anchorSeq = Number(writer.anchor_seq);
    if (anchorSeq > 0 && declared(writer.writer_id, anchorSeq)?.hash !== writer.anchor_hash) {
      return broken(anchorSeq + 1, `the chain starts after record ${anchorSeq}, but no prune record says so: records deleted outside qhooks prune`);
    }
    let previous = writer.anchor_hash;
    let previousFormat = 0;
    let expected = anchorSeq + 1;
    let first = true;
    for (;;) {
      const { rows } = await client.query("SELECT * FROM qhooks_journal WHERE writer_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3", [
        writer.writer_id,
        expected,
        PAGE,
      ]);
      for (const r of rows) {
        const row = journalRowOf(r);
        if (row.seq !== expected) {
          // Records that never came here: a prune record of this chain says so, and from which hash it goes on.
          const gap = row.seq > expected ? declared(writer.writer_id, row.seq - 1) : undefined;
          if (!gap) return broken(expected, `record ${expected} is missing (the next one is ${row.seq})`);
          previous = gap.hash;
          expected = row.seq;
        }
        if (first && row.seq > 1) from = Math.min(from ?? Number.MAX_SAFE_INTEGER, Number(r.gid));
        first = false;
        const { hash, ...content } = row;
        if (row.format < previousFormat || row.format > CURRENT_FORMAT) {
          return broken(
            row.seq,
            `record ${row.seq} (${row.kind}) has hash format ${row.format} after format ${previousFormat}: edited, or moved from elsewhere`,
          );
        }
        const erasure = erasures.get(key(writer.writer_id, row.seq));
        if (erasure) erased++;
        const matches = erasure
          ? row.format === 3 || erasure.some((e) => recordHash(content, previous, writer.writer_id, e.parts as PartDigests) === hash)
          : recordHash(content, previous, writer.writer_id) === hash;
        if (!matches) return broken(row.seq, `record ${row.seq} (${row.kind}) does not match its hash: edited, or moved from elsewhere`);
        previous = hash;
        previousFormat = row.format;
        expected++;
        records++;
      }
      if (rows.length < PAGE) break;
    }
    if (expected - 1 < writer.head_seq)
      return broken(expected, `records ${expected} to ${writer.head_seq} are missing (the chain's head is ${writer.head_seq})`);
  }
  return { ok: true, records, erased, from: from ?? 1 };
}
