import type { Database } from "better-sqlite3";
import type { VerifyResult } from "../../schema/logRecord.js";
import { CURRENT_FORMAT, formatThreeHash, recordHash } from "../journal/hashFormat.js";
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
  let previous = "";
  let previousFormat = 0;
  let expected = 1;
  let records = 0;
  try {
    for (const row of db.prepare("SELECT * FROM journal ORDER BY seq").iterate() as IterableIterator<JournalRow>) {
      if (row.seq !== expected) {
        return { ok: false, records, firstBad: expected, problem: `record ${expected} is missing (the next one is ${row.seq})` };
      }
      const { hash, ...content } = row;
      if (row.format < previousFormat || row.format > CURRENT_FORMAT || (row.format === 4 && logId === null)) {
        const why = row.format > CURRENT_FORMAT ? `hash format ${row.format}, newer than this qhooks knows` : logId === null && row.format === 4 ? "no log id to check it against" : `hash format ${row.format} after format ${previousFormat}`;
        return { ok: false, records, firstBad: row.seq, problem: `record ${row.seq} (${row.kind}) has ${why}: edited, or moved from elsewhere` };
      }
      if (recordHash(content, previous, logId ?? "") !== hash && !(row.format === 3 && formatThreeHash(previous, rawTextOf(db, row)) === hash)) {
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
    return { ok: false, records, firstBad: expected, problem: `the file is damaged: record ${expected} and those after it cannot be read (${(e as Error).message})` };
  }
  return { ok: true, records };
}

const TEXT_COLUMNS = ["ts", "kind", "event", "session_id", "match_value", "project_dir", "source", "run_id", "config_hash", "name", "status", "decision", "reason", "body"] as const;

/**
 * A format-3 record's text as it was hashed. qhooks before format 4 stored a lone UTF-16 surrogate as its CESU-8
 * bytes, which read back as three U+FFFD; decoded from the stored bytes, the text is what was hashed. Asked only
 * for a record whose hash did not match as read.
 */
function rawTextOf(db: Database, row: JournalRow): Omit<JournalRow, "hash"> {
  const raw = db.prepare(`SELECT ${TEXT_COLUMNS.map((c) => `CAST(${c} AS BLOB) AS ${c}`).join(", ")} FROM journal WHERE seq = ?`).get(row.seq) as Record<string, Buffer | null>;
  const { hash: _hash, ...content } = row;
  const decoded: Record<string, unknown> = { ...content };
  for (const column of TEXT_COLUMNS) {
    const bytes = raw[column];
    if (bytes !== null && bytes !== undefined) decoded[column] = decodeWtf8(bytes);
  }
  return decoded as Omit<JournalRow, "hash">;
}
