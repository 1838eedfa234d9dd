import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { EvidenceSchema, type Evidence, type EvidenceEntry } from "../schema/evidence.js";
import { linkHash, linksByDigest, recordHash } from "../store/journal/hashFormat.js";
import { erasedParts, type ErasureBody } from "../store/journal/erasure.js";
import { keyFingerprint, publicKeyText, signedHeadText } from "../store/logKey.js";
import { keyPeriods, type KeyChangeAt } from "../store/keyChange.js";

/**
 * Checks a `qhooks.evidence/1` file with nothing but the file (and, when given, the public key it must be signed
 * with): the chain is recomputed record by record with the journal's own hash rules (hashFormat.ts, each record by
 * its own format), from the record before the first one to the head, whose signature is then checked.
 */
export type EvidenceVerdict =
  | {
      readonly ok: true;
      readonly log: string;
      /** The selected records' seqs, in order. */
      readonly records: readonly number[];
      /** Of which erased (their text replaced; the digests it had are in the file, kept by their erasure records). */
      readonly erased: readonly number[];
      /**
       * Of those, the ones erased on the central database the file was taken from, not in their writer's log: their
       * erasure record is that database's (`erasedHere` of the file), in the chain of `writer`, made at `time`.
       */
      readonly erasedHere: readonly { readonly seq: number; readonly writer: string; readonly time: string }[];
      /** Records in between and after, present as links only. */
      readonly links: number;
      readonly from: number;
      readonly head: { readonly seq: number; readonly hash: string; readonly time: string; readonly key: string };
      /** The earliest head signed at or after the last record (the head itself when no earlier one is in the file). */
      readonly since: { readonly seq: number; readonly time: string };
      /** The key was the one given (--key), not only the one the file names. */
      readonly keyPinned: boolean;
      readonly sessions: readonly string[];
      /** Key records in the chain (shown whole): rotations checked, the given key followed through them to the head's. */
      readonly keyChanges: number;
      /** Key records saying a key was lost: from each seq on, the key named vouches without its predecessor's signature. */
      readonly keyBreaks: readonly { readonly seq: number; readonly key: string }[];
    }
  | { readonly ok: false; readonly problem: string };

const fail = (problem: string): Extract<EvidenceVerdict, { ok: false }> => ({ ok: false, problem });

/** The evidence in `text`, checked; `pinnedKey` is the public key it must be signed with (SPKI DER base64), if any. */
export function verifyEvidence(text: string, pinnedKey: string | null): EvidenceVerdict {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return fail(`not JSON, or cut short: ${(e as Error).message.split("\n", 1)[0]}`);
  }
  const parsed = EvidenceSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? issue.path.join(".") : "the file";
    return fail(`not a qhooks.evidence/1 file (cut short or edited?): ${at}: ${issue.message}`);
  }
  return checkEvidence(parsed.data, pinnedKey);
}

export function checkEvidence(evidence: Evidence, pinnedKey: string | null): EvidenceVerdict {
  const chain = checkChain(evidence);
  if (!chain.ok) return chain;
  const { head } = evidence;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(head.publicKey, "base64"), format: "der", type: "spki" });
  } catch {
    return fail("the head's public key is not a public key");
  }
  if (key.asymmetricKeyType !== "ed25519") return fail(`the head's public key is ${key.asymmetricKeyType}, not Ed25519`);
  const fingerprint = keyFingerprint(publicKeyText(key));
  const signed = verify(null, Buffer.from(signedHeadText({ log: evidence.log, ...head }), "utf8"), key, Buffer.from(head.signature, "base64"));
  if (!signed) return fail(`the head's signature is not that of key ${fingerprint} over this head: the head, its time or its key was changed`);
  // The key records in the file: each rotation signed by the key it retires, followed from the given key (or the
  // first record's) to the key that signed the head.
  const keys = keyPeriods(evidence.log, pinnedKey, chain.keyRecords);
  if ("problem" in keys) return fail(keys.problem);
  const lastKey = keys.periods.at(-1)?.key ?? null;
  if (chain.keyRecords.length > 0 && lastKey !== publicKeyText(key))
    return fail(
      `the head is signed by key ${fingerprint}, not by ${lastKey === null ? "the key" : keyFingerprint(lastKey)} the file's last key record hands the log to`,
    );
  if (pinnedKey !== null && pinnedKey !== publicKeyText(key) && chain.keyRecords.length === 0) {
    return fail(`the head is signed by key ${fingerprint}, not by the key given (${keyFingerprint(pinnedKey)}): re-signed by someone else`);
  }
  const lastRecord = chain.records[chain.records.length - 1]!;
  let since: { seq: number; time: string } = { seq: head.seq, time: head.time };
  for (const point of evidence.checkpoints ?? []) {
    if (point.publicKey !== head.publicKey) return fail(`the head signed at record ${point.seq} is signed by another key than the last head`);
    if (chain.hashes.get(point.seq) !== point.hash) return fail(`the head signed at ${point.time} (record ${point.seq}) does not match the chain: altered`);
    if (!verify(null, Buffer.from(signedHeadText({ log: evidence.log, ...point }), "utf8"), key, Buffer.from(point.signature, "base64"))) {
      return fail(`the head signed at record ${point.seq} has a signature that is not its key's: altered`);
    }
    if (point.seq >= lastRecord && point.seq < since.seq) since = { seq: point.seq, time: point.time };
  }
  const { hashes: _hashes, keyRecords, ...shown } = chain;
  return {
    ...shown,
    head: { seq: head.seq, hash: head.hash, time: head.time, key: fingerprint },
    since,
    keyPinned: pinnedKey !== null,
    sessions: evidence.selection.sessions,
    keyChanges: keyRecords.length,
    keyBreaks: keys.breaks.map((b) => ({ seq: b.seq, key: keyFingerprint(b.key) })),
  };
}

const seqOf = (entry: EvidenceEntry): number => ("record" in entry ? entry.record.seq : entry.seq);

type ChainVerdict =
  | (Omit<Extract<EvidenceVerdict, { ok: true }>, "head" | "keyPinned" | "sessions" | "since" | "keyChanges" | "keyBreaks"> & {
      readonly hashes: ReadonlyMap<number, string>;
      readonly keyRecords: readonly KeyChangeAt[];
    })
  | Extract<EvidenceVerdict, { ok: false }>;

/** The chain from `from` to the head, recomputed; an erased record must have its erasure record in the file. */
function checkChain(evidence: Evidence): ChainVerdict {
  let previous = evidence.from.hash;
  let expected = evidence.from.seq + 1;
  const records: number[] = [];
  const erased: number[] = [];
  const erasuresShown = new Map<number, string>();
  let links = 0;
  const wanted = new Set((evidence.checkpoints ?? []).map((c) => c.seq));
  const hashes = new Map<number, string>();
  const keyRecords: KeyChangeAt[] = [];
  for (const [index, entry] of evidence.chain.entries()) {
    const seq = seqOf(entry);
    if (seq !== expected) {
      const later = evidence.chain.some((e, i) => i > index && seqOf(e) === expected);
      if (later) return fail(`record ${expected} comes after record ${seq}: reordered`);
      return seq > expected
        ? fail(`record ${expected} is missing (the next one is ${seq}): removed`)
        : fail(`record ${seq} comes again after record ${expected - 1}: reordered or repeated`);
    }
    if ("record" in entry) {
      const { hash, ...content } = entry.record;
      const computed = recordHash(content, previous, evidence.log, entry.erased);
      if (computed === null) return fail(`record ${seq} has hash format ${content.format}, which this qhooks does not know`);
      if (computed !== hash) return fail(`record ${seq} (${content.kind}) does not match its hash: altered, or moved from elsewhere`);
      if (entry.erased) {
        // Its text is not covered by its hash any more: it must read as erased, not as anything someone wrote there.
        const as = erasedParts(content);
        if (as.reason !== content.reason || as.body !== content.body || as.outcome !== content.outcome) {
          return fail(`record ${seq} (${content.kind}) is shown as erased but holds text that is not erased: altered`);
        }
        erased.push(seq);
      }
      if (content.kind === "erasure") {
        const body = parseErasure(content.body);
        if (body) erasuresShown.set(body.seq, digestsText(body.parts));
      }
      // A key record is shown whole so that the key change can be checked; it is not one of the selected records.
      if (content.kind === "key") keyRecords.push({ seq, body: content.body });
      else records.push(seq);
      previous = hash;
    } else {
      if (!linksByDigest(entry.format)) return fail(`record ${seq} is a link in hash format ${entry.format}, which evidence cannot link through`);
      previous = linkHash(evidence.log, seq, previous, entry.digest);
      links++;
    }
    if (wanted.has(seq)) hashes.set(seq, previous);
    expected++;
  }
  const here = erasuresBeside(evidence, new Set(erased));
  if ("problem" in here) return here;
  const erasedHere: { seq: number; writer: string; time: string }[] = [];
  const { head } = evidence;
  if (expected - 1 !== head.seq) return fail(`the chain ends at record ${expected - 1}, not at the signed head (record ${head.seq}): cut short`);
  if (previous !== head.hash) return fail(`the chain does not lead to the signed head's hash (record ${head.seq}): a record or link was altered`);
  for (const seq of erased) {
    const entry = evidence.chain.find((e) => "record" in e && e.record.seq === seq) as Extract<EvidenceEntry, { record: unknown }>;
    const claimed = digestsText(entry.erased!);
    if (erasuresShown.get(seq) === claimed) continue;
    const beside = here.bySeq.get(seq);
    if (beside?.digests === claimed) {
      erasedHere.push({ seq, writer: beside.writer, time: beside.time });
      continue;
    }
    return fail(`record ${seq} is shown as erased, but no erasure record in the file keeps the digests it claims: altered`);
  }
  if (records.length === 0) return fail("the file holds no record, only links");
  return { ok: true, log: evidence.log, records, erased, erasedHere, links, from: evidence.from.seq + 1, hashes, keyRecords };
}

/**
 * The erasure records the file carries beside its chain (`erasedHere`: records erased on the central database it was
 * taken from), by the seq they erased: each must be an erasure record of a record of this log that the file shows as
 * erased. Not covered by any signature: what they add is who erased and when, which verify says is their word.
 */
function erasuresBeside(
  evidence: Evidence,
  erased: ReadonlySet<number>,
): { readonly bySeq: ReadonlyMap<number, { writer: string; time: string; digests: string }> } | Extract<EvidenceVerdict, { ok: false }> {
  const bySeq = new Map<number, { writer: string; time: string; digests: string }>();
  for (const { writer, record } of evidence.erasedHere ?? []) {
    const body = record.kind === "erasure" ? (parseErasure(record.body) as (ErasureBody & { chain?: unknown }) | null) : null;
    if (body === null || body.chain !== evidence.log)
      return fail(`the erasure record beside the chain (writer ${writer}, record ${record.seq}) is not one of a record of log ${evidence.log}: altered`);
    if (!erased.has(body.seq) || bySeq.has(body.seq))
      return fail(
        `the erasure record beside the chain (writer ${writer}, record ${record.seq}) names record ${body.seq}, which the file does not show as erased once: altered`,
      );
    bySeq.set(body.seq, { writer, time: record.ts, digests: digestsText(body.parts) });
  }
  return { bySeq };
}

const digestsText = (parts: { readonly reason: string; readonly body: string; readonly outcome: string }): string =>
  `${parts.reason} ${parts.body} ${parts.outcome}`;

function parseErasure(body: string): ErasureBody | null {
  try {
    const parsed = JSON.parse(body) as ErasureBody;
    return typeof parsed?.seq === "number" && parsed.parts ? parsed : null;
  } catch {
    return null;
  }
}
