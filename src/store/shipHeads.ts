import type pg from "pg";
import type { Database } from "better-sqlite3";
import type { SignedHeadLine } from "./signedHeads.js";

/** What sending the local heads did. */
export interface HeadsSent {
  /** Heads the central database did not have yet, sent now (those signed every $QHOOKS_SIGN_EVERY records, mostly). */
  readonly sent: number;
  /** Of those, heads an earlier ship had already seen there: removed from the central database since. */
  readonly restored: number;
  /** How many of the local heads (in `<log>.heads` order) are now known to be there; kept after the commit. */
  readonly confirmed: number;
}

/**
 * Sends the heads the local log signed (`<log>.heads`: every $QHOOKS_SIGN_EVERY records, at each ship and export) of
 * the records the central database has, that it lacks, so that the central verify holds each chain to the same heads
 * as the laptop's. A head already there is not sent again; one in a stretch pruned locally before it shipped (the
 * record never came here), or older than the central anchor, has nothing to hold and is left out.
 *
 * Heads lost centrally are told apart from heads never sent by what the laptop remembers: how many of its heads, in
 * file order, an earlier ship to this destination saw there (`confirmedBefore`). A missing one among those was
 * removed here. Run in the ship's transaction, with the chain's head locked.
 */
export async function sendLocalHeads(
  client: pg.Client,
  logId: string,
  heads: readonly SignedHeadLine[],
  central: { readonly head: number; readonly anchor: number },
  confirmedBefore: number,
): Promise<HeadsSent> {
  const inRange = (h: SignedHeadLine) => h.log === logId && h.seq > central.anchor && h.seq <= central.head;
  const candidates = heads.filter(inRange);
  const seqs = [...new Set(candidates.map((h) => h.seq))];
  const there = new Set<string>();
  const records = new Set<number>();
  if (seqs.length > 0) {
    const { rows } = await client.query<{ seq: string; signed_at: string }>(
      "SELECT seq, signed_at FROM qhooks_signed_heads WHERE writer_id = $1 AND seq = ANY($2::bigint[])",
      [logId, seqs],
    );
    for (const r of rows) there.add(`${r.seq}\n${r.signed_at}`);
    const { rows: present } = await client.query<{ seq: string }>("SELECT seq FROM qhooks_journal WHERE writer_id = $1 AND seq = ANY($2::bigint[])", [
      logId,
      seqs,
    ]);
    for (const r of present) records.add(Number(r.seq));
  }
  let sent = 0;
  let restored = 0;
  let confirmed = 0;
  let prefix = true;
  for (const [i, head] of heads.entries()) {
    if (head.log === logId && head.seq > central.head) {
      // Not shipped yet: this head, and those after it, are confirmed by a later ship.
      prefix = false;
      continue;
    }
    if (inRange(head) && records.has(head.seq) && !there.has(`${head.seq}\n${head.time}`)) {
      await keepSignedHead(client, logId, head);
      there.add(`${head.seq}\n${head.time}`);
      sent++;
      if (i < confirmedBefore) restored++;
    }
    if (prefix) confirmed = i + 1;
  }
  return { sent, restored, confirmed };
}

/** A signed head of a shipped chain, kept centrally; the writer's key is pinned by its first one. */
export async function keepSignedHead(client: pg.Client, logId: string, head: SignedHeadLine | null): Promise<void> {
  if (head === null) return;
  await client.query(
    "INSERT INTO qhooks_signed_heads (writer_id, seq, hash, signed_at, public_key, signature) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
    [logId, head.seq, head.hash, head.time, head.publicKey, head.signature],
  );
  await client.query("UPDATE qhooks_writers SET public_key = $2 WHERE writer_id = $1 AND public_key IS NULL", [logId, head.publicKey]);
}

/** The log_meta key under which the local log remembers how many of its heads a destination was seen to hold. */
const confirmedKey = (destination: string) => `heads_confirmed:${destination}`;

export function confirmedHeads(db: Database, destination: string): number {
  const row = db.prepare("SELECT value FROM log_meta WHERE key = ?").get(confirmedKey(destination)) as { value: string } | undefined;
  const n = Number(row?.value ?? 0);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * Best effort: the records and heads are already committed centrally. A log too busy to take the note loses only
 * this: a head removed there before the next ship is sent back without a line saying it was removed.
 */
export function rememberConfirmedHeads(db: Database, destination: string, confirmed: number): void {
  try {
    db.prepare("INSERT INTO log_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      confirmedKey(destination),
      String(confirmed),
    );
  } catch {
    // Said nowhere: the next ship notes it again.
  }
}
