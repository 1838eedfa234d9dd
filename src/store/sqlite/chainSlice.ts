import type { Database } from "better-sqlite3";
import type { ChainSlice, EvidenceSelection } from "../eventLog.js";
import type { ErasureBody } from "../journal/erasure.js";
import type { PartDigests } from "../journal/hashFormat.js";
import type { JournalRow } from "../journal/record.js";
import { chainAnchor } from "./maintenance.js";

/**
 * What evidence of the selected events is made of, read in one transaction (so that the head is the head of the
 * records read): the selected events, their outcome and hook records and the erasure records about any of them;
 * every record from the first selected one to the head; the record before (or the anchor a prune left); and the
 * digests erased records had. Null when nothing is selected.
 */
export function chainSlice(db: Database, selection: EvidenceSelection): ChainSlice | null {
  return db.transaction((): ChainSlice | null => {
    const logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string } | undefined)?.value ?? "";
    const terms = ["kind = 'event'"];
    const params: unknown[] = [];
    if (selection.sessions.length) {
      terms.push(`session_id IN (${selection.sessions.map(() => "?").join(", ")})`);
      params.push(...selection.sessions);
    }
    if (selection.since !== null) {
      terms.push("ts >= ?");
      params.push(selection.since.toISOString());
    }
    const events = (
      db
        .prepare(`SELECT seq FROM journal WHERE ${terms.join(" AND ")}`)
        .pluck()
        .all(...params) as number[]
    ).map(Number);
    if (events.length === 0) return null;
    const selected = new Set(events);
    const referring = (kinds: string, refs: ReadonlySet<number>): number[] =>
      (db.prepare(`SELECT seq, ref FROM journal WHERE kind IN (${kinds}) AND ref IS NOT NULL`).all() as { seq: number; ref: number }[])
        .filter((r) => refs.has(r.ref))
        .map((r) => r.seq);
    for (const seq of referring("'outcome', 'hook'", selected)) selected.add(seq);
    for (const seq of referring("'erasure'", selected)) selected.add(seq);
    const first = Math.min(...selected);
    const rows = db.prepare("SELECT * FROM journal WHERE seq >= ? ORDER BY seq").all(first) as JournalRow[];
    const before = db.prepare("SELECT seq, hash FROM journal WHERE seq = ?").get(first - 1) as { seq: number; hash: string } | undefined;
    const anchor = chainAnchor(db);
    const from = before ?? (anchor.seq === first - 1 ? anchor : { seq: first - 1, hash: "" });
    const erasures = new Map<number, PartDigests>();
    for (const body of db.prepare("SELECT body FROM journal WHERE kind = 'erasure' AND ref >= ?").pluck().all(first) as string[]) {
      const parsed = JSON.parse(body) as ErasureBody;
      // The first erasure of a record keeps the digests its parts had before any.
      if (!erasures.has(parsed.seq)) erasures.set(parsed.seq, parsed.parts);
    }
    return { logId, from, rows, selected, erasures };
  })();
}
