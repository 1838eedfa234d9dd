import type { Database } from "better-sqlite3";
import type { VerifyResult } from "../../schema/logRecord.js";
import { hashRow, type JournalRow } from "./journalRow.js";

/**
 * Walks the whole journal in order and recomputes the chain: an edited record fails its own hash, a deleted one
 * leaves a gap in the sequence, a reordered one fails the hash of whatever now follows it. Cutting off the newest
 * records leaves a shorter but valid chain; only an exported checkpoint can reveal that.
 */
export function verifyChain(db: Database): VerifyResult {
  let previous = "";
  let expected = 1;
  let records = 0;
  try {
    for (const row of db.prepare("SELECT * FROM journal ORDER BY seq").iterate() as IterableIterator<JournalRow>) {
      if (row.seq !== expected) {
        return { ok: false, records, firstBad: expected, problem: `record ${expected} is missing (the next one is ${row.seq})` };
      }
      const { hash, ...content } = row;
      if (hashRow(previous, content) !== hash) {
        return { ok: false, records, firstBad: row.seq, problem: `record ${row.seq} (${row.kind}) does not match its hash: edited, or moved from elsewhere` };
      }
      previous = hash;
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
