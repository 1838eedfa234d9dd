import type { KeyObject } from "node:crypto";
import { QhooksError } from "../errors.js";
import { EVIDENCE_FORMAT, type Evidence, type EvidenceEntry } from "../schema/evidence.js";
import type { AuditLog, EvidenceSelection } from "../store/eventLog.js";
import { contentDigest, linksByDigest } from "../store/journal/hashFormat.js";
import { publicKeyText, signHead } from "../store/logKey.js";
import type { SignedHeadLine } from "../store/signedHeads.js";
import { checkEvidence } from "./verifyEvidence.js";

/**
 * Evidence of the selected events (docs/evidence.md): their records whole, the records between them and after
 * them up to the head as links (seq, format, content digest), and the signed head. A SQLite log's head is signed
 * now with the log's key (`key`); the central database's slice ends at a head its writer signed when it shipped
 * (`slice.signed`), and nothing is signed here. The chain is checked first: a log that does not verify is never
 * signed, and a central slice that does not lead to its writer's head is not written.
 */
export async function buildEvidence(
  log: AuditLog,
  selection: EvidenceSelection,
  key: { readonly privateKey: KeyObject; readonly publicKey: KeyObject } | null,
  now: Date = new Date(),
  earlier: readonly SignedHeadLine[] = [],
): Promise<Evidence | null> {
  if (!log.chainSlice) throw new QhooksError("usage", "--evidence does not work on this log");
  const slice = await log.chainSlice(selection);
  if (slice === null) return null;
  const chain: EvidenceEntry[] = slice.rows.map((row) => {
    const erased = slice.erasures.get(row.seq);
    // Key records are shown whole: whoever checks the file can follow the key from the one they trust to the head's.
    if (slice.selected.has(row.seq) || row.kind === "key") return erased ? { record: { ...row }, erased: { ...erased } } : { record: { ...row } };
    if (!linksByDigest(row.format)) {
      throw new QhooksError(
        "usage",
        `record ${row.seq} is in hash format ${row.format}, which evidence cannot link through: select records from after it (--since)`,
      );
    }
    return { seq: row.seq, format: row.format, digest: contentDigest(row, erased) };
  });
  const last = slice.rows[slice.rows.length - 1]!;
  const head = slice.signed?.head ?? signedNow(slice.logId, last, key, now);
  const lastSelected = Math.max(...slice.selected);
  const seen = new Set<number>();
  const checkpoints = (slice.signed?.earlier ?? earlier)
    .filter((h) => h.log === slice.logId && h.publicKey === head.publicKey && h.seq >= lastSelected && h.seq < last.seq && !seen.has(h.seq) && seen.add(h.seq))
    .sort((a, b) => a.seq - b.seq)
    .map(({ seq, hash, time, publicKey, signature }) => ({ seq, hash, time, publicKey, signature }));
  const evidence: Evidence = {
    format: EVIDENCE_FORMAT,
    log: slice.logId,
    selection: { sessions: [...selection.sessions], since: selection.since?.toISOString() ?? null },
    from: { seq: slice.from.seq, hash: slice.from.hash },
    chain,
    head: { seq: head.seq, hash: head.hash, time: head.time, publicKey: head.publicKey, signature: head.signature },
    ...(checkpoints.length ? { checkpoints } : {}),
    ...(slice.erasedHere?.length ? { erasedHere: slice.erasedHere.map((e) => ({ writer: e.writer, record: { ...e.record } })) } : {}),
  };
  const check = checkEvidence(evidence, null);
  if (!check.ok)
    throw new QhooksError(
      "integrity",
      slice.signed
        ? `writer ${slice.logId}'s chain here does not lead to the head its writer signed, so no evidence is written: ${check.problem} (run qhooks verify)`
        : `the log does not verify, so no evidence is signed: ${check.problem} (run qhooks verify)`,
    );
  return evidence;
}

/** The log's head signed now with its key. */
function signedNow(
  log: string,
  last: { readonly seq: number; readonly hash: string },
  key: { readonly privateKey: KeyObject; readonly publicKey: KeyObject } | null,
  now: Date,
): SignedHeadLine {
  if (key === null) throw new QhooksError("usage", "--evidence needs the log's key to sign its head");
  const head = { log, seq: last.seq, hash: last.hash, time: now.toISOString() };
  return { ...head, publicKey: publicKeyText(key.publicKey), signature: signHead(key.privateKey, head) };
}
