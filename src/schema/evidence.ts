import { z } from "zod";

/**
 * `qhooks.evidence/1`: records taken from a log with what an auditor needs to check them with nothing else (no
 * database, no qhooks log): the selected records whole, with their hashes; the chain links that connect them up to
 * the log's head (each record in between as its seq, hash format and content digest only, so that its content is
 * not disclosed); and the head signed with the log's Ed25519 key. docs/evidence.md describes it.
 */
export const EVIDENCE_FORMAT = "qhooks.evidence/1";

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, { error: "expected 64 hex digits (a sha256)" });
const Seq = z.number().int().positive();
const Iso = z.iso.datetime({ offset: true });

/** The digests of a record's free-text parts (`-` for a part that is NULL), as format 4 covers them. */
export const PartDigestsSchema = z.strictObject({
  reason: z.union([Hex64, z.literal("-")]),
  body: Hex64,
  outcome: z.union([Hex64, z.literal("-")]),
});

/** One journal record, every column as stored (docs/log-format.md names them). */
export const EvidenceRowSchema = z.strictObject({
  seq: Seq,
  ts: z.string(),
  kind: z.enum(["event", "outcome", "hook", "snapshot", "replay_run", "erasure", "prune", "key"]),
  event: z.string().nullable(),
  session_id: z.string().nullable(),
  match_value: z.string().nullable(),
  project_dir: z.string().nullable(),
  source: z.string().nullable(),
  ref: z.number().int().nullable(),
  run_id: z.string().nullable(),
  config_hash: z.string().nullable(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  decision: z.string().nullable(),
  blocked: z.number().int().nullable(),
  duration_ms: z.number().nullable(),
  reason: z.string().nullable(),
  body: z.string(),
  hash: Hex64,
  format: z.number().int().positive(),
  outcome: z.string().nullable(),
  /** Who and where (hash format 5 on): absent or null in records of older formats. */
  machine: z.string().nullable().optional(),
  os_user: z.string().nullable().optional(),
  judged_by: z.string().nullable().optional(),
});
export type EvidenceRow = z.infer<typeof EvidenceRowSchema>;

/** A selected record: whole, and, when its content was erased, the digests its parts had (from its erasure record). */
export const EvidenceRecordSchema = z.strictObject({
  record: EvidenceRowSchema,
  erased: PartDigestsSchema.optional(),
});

/** A record between the selected ones (or after them, up to the head): its place in the chain, not its content. */
export const EvidenceLinkSchema = z.strictObject({
  seq: Seq,
  format: z.number().int().positive(),
  digest: Hex64,
});

export const EvidenceEntrySchema = z.union([EvidenceRecordSchema, EvidenceLinkSchema]);
export type EvidenceEntry = z.infer<typeof EvidenceEntrySchema>;

/** The head of the chain, signed: `qhooks.evidence/1 head\n<log>\n<seq>\n<hash>\n<time>` with Ed25519. */
export const SignedHeadSchema = z.strictObject({
  seq: Seq,
  hash: Hex64,
  /** When it was signed, by the signer's clock. */
  time: Iso,
  /** The signer's public key: SPKI DER, base64. */
  publicKey: z.base64(),
  /** The Ed25519 signature of the head text, base64. */
  signature: z.base64(),
});
export type SignedHead = z.infer<typeof SignedHeadSchema>;

export const EvidenceSchema = z.strictObject({
  format: z.literal(EVIDENCE_FORMAT),
  /** The log's id (what format-4 links chain with). */
  log: z.string().min(1),
  /** What was asked for: informative, not checked (the records are what is proven). */
  selection: z.strictObject({ sessions: z.array(z.string()), since: Iso.nullable() }),
  /** The record before the first entry: its seq (0 at the log's start) and hash (`""` at the log's start). */
  from: z.strictObject({ seq: z.number().int().nonnegative(), hash: z.union([Hex64, z.literal("")]) }),
  /** Every record from `from.seq + 1` to `head.seq`, in order: selected ones whole, the others as links. */
  chain: z.array(EvidenceEntrySchema).min(1),
  head: SignedHeadSchema,
  /**
   * Heads the same key signed earlier (at earlier exports, kept in `<log>.heads`), at records from the last selected
   * one to the head: the earliest says since when the records are unaltered. Absent when there is none.
   */
  checkpoints: z.array(SignedHeadSchema).optional(),
  /**
   * Evidence from the central database: the erasure records of selected records erased there rather than in their
   * writer's log, each whole with the id of the chain it is in (the erasing process's, which no key signs). Outside
   * `chain` and not covered by the head: they say who erased a record and when, on that database's word. Absent when
   * there is none.
   */
  erasedHere: z.array(z.strictObject({ writer: z.string().min(1), record: EvidenceRowSchema })).optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;
