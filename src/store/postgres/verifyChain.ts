import type pg from "pg";
import type { VerifyResult } from "../../schema/logRecord.js";
import { CURRENT_FORMAT, recordHash, type PartDigests } from "../journal/hashFormat.js";
import type { ChainErasureBody, ChainPruneBody } from "./maintenance.js";
import { journalRowOf } from "./placeRows.js";
import { headSignatureHolds, type SignedHeadLine } from "../signedHeads.js";
import { keyFingerprint } from "../logKey.js";
import { keyMaySign, keyPeriods } from "../keyChange.js";
import { chainKeyChanges } from "./keyRecords.js";

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
  const { rows: writers } = await client.query<{
    writer_id: string;
    label: string;
    head_seq: number;
    anchor_seq: number;
    anchor_hash: string;
    public_key: string | null;
  }>("SELECT writer_id, label, head_seq, anchor_seq, anchor_hash, public_key FROM qhooks_writers ORDER BY writer_id");
  // The heads each shipped chain's key signed (sent by ship with its batches).
  const signedHeads = new Map<string, SignedHeadLine[]>();
  const { rows: headRows } = await client.query<{ writer_id: string; seq: string; hash: string; signed_at: string; public_key: string; signature: string }>(
    "SELECT writer_id, seq, hash, signed_at, public_key, signature FROM qhooks_signed_heads ORDER BY writer_id, seq, signed_at",
  );
  for (const h of headRows) {
    const head = { log: h.writer_id, seq: Number(h.seq), hash: h.hash, time: h.signed_at, publicKey: h.public_key, signature: h.signature };
    const ofWriter = signedHeads.get(h.writer_id);
    if (ofWriter) ofWriter.push(head);
    else signedHeads.set(h.writer_id, [head]);
  }
  // Key records of each chain: which keys may sign its heads, and where a lost key broke what vouches for it.
  // Those a central prune deleted are there as copies in the maintaining writer's chain, naming their chain and seq.
  const keyChanges = await chainKeyChanges(client);
  const keyBreaks: { seq: number; key: string; chain: string }[] = [];
  let signedChecked = 0;
  let unsigned = 0;
  // Records of a signed chain after its newest head: their links hold, but nothing the writer signed covers them.
  const uncovered: { chain: string; from: number; to: number }[] = [];
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
    const heads = signedHeads.get(writer.writer_id) ?? [];
    const headSeqs = new Set(heads.map((h) => h.seq));
    const hashesAtHeads = new Map<number, string>();
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
        if (headSeqs.has(row.seq)) hashesAtHeads.set(row.seq, hash);
        previous = hash;
        previousFormat = row.format;
        expected++;
        records++;
      }
      if (rows.length < PAGE) break;
    }
    if (expected - 1 < writer.head_seq)
      return broken(expected, `records ${expected} to ${writer.head_seq} are missing (the chain's head is ${writer.head_seq})`);
    // The chain links; the heads its writer's key signed say whether it is the chain the writer wrote.
    const keys = keyPeriods(writer.writer_id, writer.public_key, keyChanges.get(writer.writer_id) ?? []);
    if ("problem" in keys) return broken(keys.seq, keys.problem);
    for (const b of keys.breaks) keyBreaks.push({ seq: b.seq, key: keyFingerprint(b.key), chain });
    if (heads.length === 0) {
      if (writer.public_key !== null) return broken(expected, `its writer's key ${keyFingerprint(writer.public_key)} signed heads that are gone: removed here`);
      unsigned++;
      continue;
    }
    let covered = anchorSeq;
    for (const head of heads) {
      if (!headSignatureHolds(head)) return broken(head.seq, `the head signed at ${head.time} fails its signature: edited here`);
      if (writer.public_key !== null && !keyMaySign(keys, head.publicKey, head.seq))
        return broken(
          head.seq,
          `the head signed at ${head.time} is signed by key ${keyFingerprint(head.publicKey)}, not the writer's key ${keyFingerprint(writer.public_key)} nor one a key record vouches for: a key changed without a rotation record`,
        );
      if (head.seq <= anchorSeq) continue;
      const hash = hashesAtHeads.get(head.seq);
      if (hash === undefined)
        return broken(head.seq, `record ${head.seq}, whose head its writer signed at ${head.time}, is gone: records cut off the chain after it was signed`);
      if (hash !== head.hash)
        return broken(
          head.seq,
          `record ${head.seq} is not the one whose head its writer signed at ${head.time}: rows edited here and the chain recomputed without the writer's key`,
        );
      signedChecked++;
      covered = Math.max(covered, head.seq);
    }
    if (expected - 1 > covered) uncovered.push({ chain, from: covered + 1, to: expected - 1 });
  }
  return {
    ok: true,
    records,
    erased,
    from: from ?? 1,
    ...(signedChecked > 0 ? { signedHeads: signedChecked } : {}),
    ...(unsigned > 0 ? { unsignedChains: unsigned } : {}),
    ...(keyBreaks.length > 0 ? { keyBreaks } : {}),
    ...(uncovered.length > 0 ? { uncovered } : {}),
  };
}
