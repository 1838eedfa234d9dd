import { hash } from "node:crypto";
import type { JournalRow } from "./record.js";

/**
 * The journal's hash formats. Each record names its format (the `format` column), and a record's format is never
 * lower than the one before it: the chain starts in one format and moves to newer ones as a log is migrated, so
 * that every record stays checkable by the rules it was written with.
 *
 * Format 3 (schema versions 1 to 3): hash = sha256(previous hash, every column of the record but the hash).
 *
 * Format 4: hash = sha256("qhooks.journal/4 link", log id, seq, previous hash, content digest), where the content
 * digest is sha256 of the record's small columns, type-tagged, and of the sha256 of each of its three free-text
 * parts (reason, body, outcome). So the chain covers a record's content only through its digest: erasing a part
 * later (a secret, a person's data) can keep that part's original digest and the chain still verifies, every other
 * part included; and a record carries its log's id, so records shipped elsewhere keep a chain that names its log.
 *
 * Format 5: format 4, with the record's origin in its content digest (the machine and OS user that wrote it and the
 * host whose settings judged it; see origin.ts), so that a central copy whose origin was edited no longer verifies.
 * The link is format 4's: the log id and seq it chains are the record's writer and its number in its origin log.
 *
 * What is hashed is exactly what is stored and read back: text goes in well formed (see `wellFormed`).
 */
export const CURRENT_FORMAT = 5;

/** The columns a format-4 content digest covers one by one (the free-text parts follow by their own digests). */
const V4_SMALL_COLUMNS = [
  "ts",
  "kind",
  "event",
  "session_id",
  "match_value",
  "project_dir",
  "source",
  "ref",
  "run_id",
  "config_hash",
  "name",
  "status",
  "decision",
  "blocked",
  "duration_ms",
] as const satisfies ReadonlyArray<keyof JournalRow>;

/** Format 3 covered these, whole, in this order. */
const V3_COLUMNS = [
  "seq",
  "ts",
  "kind",
  "event",
  "session_id",
  "match_value",
  "project_dir",
  "source",
  "ref",
  "run_id",
  "config_hash",
  "name",
  "status",
  "decision",
  "blocked",
  "duration_ms",
  "reason",
  "body",
] as const satisfies ReadonlyArray<keyof JournalRow>;

/** The origin columns: hashed by format 5 on; absent (read as NULL) for a caller that builds format-4 records only. */
const V5_ORIGIN_COLUMNS = ["machine", "os_user", "judged_by"] as const satisfies ReadonlyArray<keyof JournalRow>;

type OriginColumn = (typeof V5_ORIGIN_COLUMNS)[number];
type Hashed = Omit<JournalRow, "hash" | OriginColumn> & Partial<Pick<JournalRow, OriginColumn>>;

const sha256 = (text: string): string => hash("sha256", text, "hex");

/**
 * Type-tagged, so that NULL, "" and 0 can never be confused, nor a column's end with the next one's start. A
 * string's length is counted in UTF-16 code units (JavaScript's length).
 */
function tag(value: string | number | null): string {
  return value === null ? "n\u0000" : typeof value === "number" ? `d${value}\u0000` : `s${value.length}:${value}\u0000`;
}

/** The content digest of a format-4 or format-5 record (by its `format`): what its link in the chain covers of it. */
export function contentDigest(row: Omit<Hashed, "seq">, erased?: PartDigests): string {
  // Built whole and hashed in one call: the same bytes as hashing piece by piece, at a third of the cost.
  let text = row.format >= 5 ? "qhooks.journal/5 content\n" : "qhooks.journal/4 content\n";
  for (const column of V4_SMALL_COLUMNS) text += tag(row[column]);
  if (row.format >= 5) for (const column of V5_ORIGIN_COLUMNS) text += tag(row[column] ?? null);
  if (erased === undefined) {
    text += `\nreason ${row.reason === null ? "-" : sha256(row.reason)}\nbody ${sha256(row.body)}\noutcome ${row.outcome === null ? "-" : sha256(row.outcome)}\n`;
  } else {
    // An erased record: the parts' digests as they were before the erasure (kept by its erasure record).
    text += `\nreason ${erased.reason}\nbody ${erased.body}\noutcome ${erased.outcome}\n`;
  }
  return sha256(text);
}

/** The digest of each free-text part of a record as format 4 covers it (`-` for NULL). */
export interface PartDigests {
  readonly reason: string;
  readonly body: string;
  readonly outcome: string;
}

export function partDigests(row: Pick<Hashed, "reason" | "body" | "outcome">): PartDigests {
  return { reason: row.reason === null ? "-" : sha256(row.reason), body: sha256(row.body), outcome: row.outcome === null ? "-" : sha256(row.outcome) };
}

/** A format-4 or format-5 record's hash: its place in its log's chain, over its content digest. */
export function linkHash(logId: string, seq: number, previousHash: string, digest: string): string {
  return sha256(`qhooks.journal/4 link\n${logId}\n${seq}\n${previousHash}\n${digest}`);
}

/** A format-3 record's hash. */
export function formatThreeHash(previousHash: string, row: Hashed): string {
  let text = `${previousHash}\n`;
  for (const column of V3_COLUMNS) text += tag(row[column]);
  return sha256(text);
}

/** Whether a record of this format is chained by a link over its content digest (formats 4 and 5), as evidence needs. */
export function linksByDigest(format: number): boolean {
  return format === 4 || format === 5;
}

/** The hash a record must have after `previousHash`, by the rules of its own format; null for a format unknown here. */
export function recordHash(row: Hashed, previousHash: string, logId: string, erased?: PartDigests): string | null {
  if (linksByDigest(row.format)) return linkHash(logId, row.seq, previousHash, contentDigest(row, erased));
  if (row.format === 3) return formatThreeHash(previousHash, row);
  return null;
}

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * Text as it can be stored: a lone UTF-16 surrogate (which JSON can carry as `\ud800`, and a program can cut out of
 * an emoji) becomes U+FFFD. SQLite and PostgreSQL keep UTF-8, in which a lone surrogate has no form: better-sqlite3
 * stored its CESU-8 bytes and read them back as three U+FFFD, so the hash of what was written never matched what
 * was read. The exact value stays where JSON escapes it (payload and outcome JSON).
 */
export function wellFormed(text: string): string {
  return (text as WellFormedString).isWellFormed() ? text : (text as WellFormedString).toWellFormed();
}

export const wellFormedOrNull = (text: string | null): string | null => (text === null ? null : wellFormed(text));
