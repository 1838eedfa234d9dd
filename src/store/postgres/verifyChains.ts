import type pg from "pg";
import type { VerifyResult } from "../../schema/logRecord.js";
import { CURRENT_FORMAT, recordHash } from "../journal/hashFormat.js";
import { journalRowOf } from "./placeRows.js";

const PAGE = 5_000;

/**
 * Every writer's chain, record by record, by the rules of each record's own format: an edited record fails its
 * hash, a deleted one leaves a gap, records cut off a chain's end leave it short of the head its writer recorded.
 * The first chain that breaks is named, with the place in it (its own numbering) where it breaks.
 */
export async function verifyChains(client: pg.Client): Promise<VerifyResult> {
  const { rows: writers } = await client.query<{ writer_id: string; label: string; head_seq: number }>("SELECT writer_id, label, head_seq FROM qhooks_writers ORDER BY writer_id");
  let records = 0;
  for (const writer of writers) {
    const chain = `${writer.writer_id} (${writer.label})`;
    const broken = (firstBad: number, problem: string): VerifyResult => ({ ok: false, records, firstBad, problem: `chain ${chain}: ${problem}`, chain: writer.writer_id });
    let previous = "";
    let previousFormat = 0;
    let expected = 1;
    for (;;) {
      const { rows } = await client.query("SELECT * FROM qhooks_journal WHERE writer_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3", [writer.writer_id, expected, PAGE]);
      for (const r of rows) {
        const row = journalRowOf(r);
        if (row.seq !== expected) return broken(expected, `record ${expected} is missing (the next one is ${row.seq})`);
        const { hash, ...content } = row;
        if (row.format < previousFormat || row.format > CURRENT_FORMAT) {
          return broken(row.seq, `record ${row.seq} (${row.kind}) has hash format ${row.format} after format ${previousFormat}: edited, or moved from elsewhere`);
        }
        if (recordHash(content, previous, writer.writer_id) !== hash) {
          return broken(row.seq, `record ${row.seq} (${row.kind}) does not match its hash: edited, or moved from elsewhere`);
        }
        previous = hash;
        previousFormat = row.format;
        expected++;
        records++;
      }
      if (rows.length < PAGE) break;
    }
    if (expected - 1 < writer.head_seq) return broken(expected, `records ${expected} to ${writer.head_seq} are missing (the chain's head is ${writer.head_seq})`);
  }
  return { ok: true, records };
}
