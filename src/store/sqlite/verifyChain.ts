import type { Database } from "better-sqlite3";
import type { VerifyResult } from "../../schema/logRecord.js";
import { CURRENT_FORMAT, formatThreeHash, recordHash, type PartDigests } from "../journal/hashFormat.js";
import type { ErasureBody, PruneBody } from "../journal/erasure.js";
import { chainAnchor } from "./maintenance.js";
import type { JournalRow } from "../journal/record.js";
import { decodeWtf8 } from "./wtf8.js";

/**
 * Walks the whole journal in order and recomputes the chain: an edited record fails its own hash, a deleted one
 * leaves a gap in the sequence, a reordered one fails the hash of whatever now follows it. Each record is checked
 * by the rules of its own hash format, and formats never go back. Cutting off the newest records leaves a shorter
 * but valid chain; only an exported checkpoint can reveal that.
 */
export function verifyChain(db: Database): VerifyResult {
  const logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string } | undefined)?.value ?? null;
  // Pruned: the chain starts after the anchor, from its hash; which a prune record in the chain must name.
  const anchor = chainAnchor(db);
  let previous = anchor.hash;
  let previousFormat = 0;
  let expected = anchor.seq + 1;
  let records = 0;
  let anchorNamed = anchor.seq === 0;
  // Erased records: checked through the digests their parts had, which their erasure records keep.
  const erasures = new Map<number, ErasureBody>();
  let erased = 0;
  try {
    for (const row of db.prepare("SELECT body FROM journal WHERE kind = 'erasure'").iterate() as IterableIterator<{ body: string }>) {
      const body = parseJson<ErasureBody>(row.body);
      if (body && typeof body.seq === "number") erasures.set(body.seq, body);
    }
    for (const row of db.prepare("SELECT * FROM journal ORDER BY seq").iterate() as IterableIterator<JournalRow>) {
      if (row.seq !== expected) {
        return { ok: false, records, firstBad: expected, problem: `record ${expected} is missing (the next one is ${row.seq})` };
      }
      const { hash, ...content } = row;
      if (row.format < previousFormat || row.format > CURRENT_FORMAT || (row.format >= 4 && logId === null)) {
        const why =
          row.format > CURRENT_FORMAT
            ? `hash format ${row.format}, newer than this qhooks knows`
            : logId === null && row.format >= 4
              ? "no log id to check it against"
              : `hash format ${row.format} after format ${previousFormat}`;
        return { ok: false, records, firstBad: row.seq, problem: `record ${row.seq} (${row.kind}) has ${why}: edited, or moved from elsewhere` };
      }
      const erasure = erasures.get(row.seq);
      if (erasure) erased++;
      if (row.kind === "prune" && !anchorNamed) {
        const body = parseJson<PruneBody>(row.body);
        anchorNamed = body?.through === anchor.seq && body.hash === anchor.hash;
      }
      // A format-3 record's hash covered its content whole: once erased, its own content cannot be checked, and
      // its stored hash is taken as its link (the records after it still check it).
      const matches = erasure
        ? row.format === 3 || recordHash(content, previous, logId ?? "", erasure.parts as PartDigests) === hash
        : recordHash(content, previous, logId ?? "") === hash || (row.format === 3 && formatThreeHash(previous, rawTextOf(db, row)) === hash);
      if (!matches) {
        return { ok: false, records, firstBad: row.seq, problem: `record ${row.seq} (${row.kind}) does not match its hash: edited, or moved from elsewhere` };
      }
      previous = hash;
      previousFormat = row.format;
      expected++;
      records++;
    }
  } catch (e) {
    // A damaged page: the records from here on cannot be checked, which is an integrity failure, not a crash.
    const code = (e as { code?: string }).code;
    if (code !== "SQLITE_CORRUPT" && code !== "SQLITE_NOTADB") throw e;
    return {
      ok: false,
      records,
      firstBad: expected,
      problem: `the file is damaged: record ${expected} and those after it cannot be read (${(e as Error).message})`,
    };
  }
  if (!anchorNamed) {
    return {
      ok: false,
      records,
      firstBad: anchor.seq + 1,
      problem: `the log starts after record ${anchor.seq}, but no prune record in the chain says so: records deleted outside qhooks prune`,
    };
  }
  return { ok: true, records, erased, from: anchor.seq + 1 };
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

const TEXT_COLUMNS = [
  "ts",
  "kind",
  "event",
  "session_id",
  "match_value",
  "project_dir",
  "source",
  "run_id",
  "config_hash",
  "name",
  "status",
  "decision",
  "reason",
  "body",
] as const;

/**
 * A format-3 record's text as it was hashed. qhooks before format 4 stored a lone UTF-16 surrogate as its CESU-8
 * bytes, which read back as three U+FFFD; decoded from the stored bytes, the text is what was hashed. Asked only
 * for a record whose hash did not match as read.
 */
function rawTextOf(db: Database, row: JournalRow): Omit<JournalRow, "hash"> {
  const raw = db.prepare(`SELECT ${TEXT_COLUMNS.map((c) => `CAST(${c} AS BLOB) AS ${c}`).join(", ")} FROM journal WHERE seq = ?`).get(row.seq) as Record<
    string,
    Buffer | null
  >;
  const { hash: _hash, ...content } = row;
  const decoded: Record<string, unknown> = { ...content };
  for (const column of TEXT_COLUMNS) {
    const bytes = raw[column];
    if (bytes !== null && bytes !== undefined) decoded[column] = decodeWtf8(bytes);
  }
  return decoded as Omit<JournalRow, "hash">;
}
