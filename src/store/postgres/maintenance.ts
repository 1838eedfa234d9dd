import { hostname } from "node:os";
import type pg from "pg";
import type { EraseResult, EraseSelector, Leftover, MaintenanceOptions, PruneResult } from "../eventLog.js";
import { erasedParts, erasureRow, pruneRow, type ErasureBody, type PruneBody } from "../journal/erasure.js";
import { contentDigest, linkHash, wellFormed } from "../journal/hashFormat.js";
import type { JournalRow } from "../journal/record.js";
import { storedSnapshotRow, type PendingRow } from "../journal/rows.js";
import { allocateGids, insertPlaced, journalRowOf, lockWriter, setHead, type PlacedRow } from "./placeRows.js";
import { keyChangeRow, KeyChangeBodySchema, type KeyChangeBody } from "../keyChange.js";
import { keyRecordPlace, type KeyCopyBody } from "./keyRecords.js";

/**
 * Erasure and retention on the central database. It holds many chains, some of them copies of laptops' logs that
 * keep growing there by `ship`: a record appended to such a chain here would be a record the laptop does not have,
 * and its next ship would no longer follow on. So what erase and prune write goes to the chain of the process that
 * runs them (a direct writer's chain, `host:<host name>` by default), each record naming the chain it is about
 * (`chain` in its body); `verify` reads them with the chains they name. A prune keeps, per chain, the last deleted
 * record and its hash as that chain's anchor (`qhooks_writers.anchor_seq`, `anchor_hash`), and every prune names
 * the anchor of every pruned chain again, so that deleting an older prune record never leaves an anchor unnamed.
 */

/** An erasure record's body on the central database: which chain the erased record is in. */
export type ChainErasureBody = ErasureBody & { readonly chain?: string };
/** A prune record's body on the central database: the chain whose anchor it names. */
export type ChainPruneBody = PruneBody & { readonly chain?: string };

/** Erase and prune of several processes (or machines) take turns: each works on the whole database. */
const MAINTENANCE_LOCK = 0x71686f6f6b74;

const utf8 = (text: string): Buffer => Buffer.from(wellFormed(text), "utf8");

/** Appends `rows` to the maintaining writer's chain, inside the caller's transaction; the gid of each. */
async function appendToChain(client: pg.Client, writer: string, rows: readonly { row: PendingRow; refGid: number | null }[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const head = await lockWriter(client, writer, "direct", hostname());
  const gids = await allocateGids(client, rows.length);
  let seq = head.seq;
  let hash = head.hash;
  const placed: PlacedRow[] = rows.map(({ row, refGid }, i) => {
    seq++;
    hash = linkHash(writer, seq, hash, contentDigest(row));
    return { gid: gids[i]!, writer, row: { ...row, seq, hash } as JournalRow, refGid };
  });
  await insertPlaced(client, placed);
  await setHead(client, writer, { seq, hash });
  return gids;
}

/**
 * What a PostgreSQL log cannot scrub: an UPDATE or DELETE leaves the old row versions in the table's pages (VACUUM
 * marks their space free, it does not overwrite it; VACUUM FULL would, but locks every writer out for as long as it
 * copies the table) and in the server's WAL, archives, replicas and backups, which no client reaches.
 */
const serverCopies = (records: number): Leftover[] => (records > 0 ? [{ kind: "server-copies" }] : []);

/** Runs `work` in one transaction under the maintenance lock; rolled back (all of it) when `keep` is false. */
async function inTransaction<T>(client: pg.Client, work: () => Promise<T>, keep = true): Promise<T> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MAINTENANCE_LOCK]);
    const result = await work();
    await client.query(keep ? "COMMIT" : "ROLLBACK");
    return result;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

/** The events (gids) an erasure selects, live and replayed. */
async function selectedEvents(client: pg.Client, selector: EraseSelector): Promise<number[]> {
  let rows: { gid: number }[];
  if ("seq" in selector) rows = (await client.query<{ gid: number }>("SELECT gid FROM qhooks_journal WHERE gid = $1 AND kind = 'event'", [selector.seq])).rows;
  else if ("sessionId" in selector)
    rows = (await client.query<{ gid: number }>("SELECT gid FROM qhooks_events WHERE session_id = $1 ORDER BY gid", [utf8(selector.sessionId)])).rows;
  else {
    rows = (
      await client.query<{ gid: number }>(
        `SELECT gid FROM qhooks_journal WHERE kind = 'event' AND (position($1::bytea in body) > 0 OR position($1::bytea in coalesce(reason, ''::bytea)) > 0 OR position($1::bytea in coalesce(outcome, ''::bytea)) > 0)
         UNION SELECT ref_gid FROM qhooks_journal WHERE kind IN ('outcome', 'hook') AND ref_gid IS NOT NULL AND (position($1::bytea in body) > 0 OR position($1::bytea in coalesce(reason, ''::bytea)) > 0)
         ORDER BY 1`,
        [utf8(selector.pattern)],
      )
    ).rows;
  }
  return rows.map((r) => Number(r.gid));
}

/**
 * Erases the free-text parts of the selected events' records (the event's, its outcome's, its async hooks'), in
 * whichever chain they are, and appends one erasure record per record rewritten to the maintaining writer's chain.
 */
export async function eraseEvents(client: pg.Client, maintainer: string, selector: EraseSelector, why: string | null): Promise<EraseResult> {
  return inTransaction(client, async () => {
    const ts = new Date().toISOString();
    const events = await selectedEvents(client, selector);
    const erasures: { row: PendingRow; refGid: number }[] = [];
    let erasedEvents = 0;
    for (const gid of events) {
      const { rows } = await client.query(
        `SELECT r.* FROM qhooks_journal r WHERE ((r.gid = $1 AND r.kind = 'event') OR (r.ref_gid = $1 AND r.kind IN ('outcome', 'hook')))
         AND NOT EXISTS (SELECT 1 FROM qhooks_journal x WHERE x.kind = 'erasure' AND x.ref_gid = r.gid) ORDER BY r.gid`,
        [gid],
      );
      for (const r of rows) {
        const row = journalRowOf(r);
        const base = erasureRow(ts, row, why);
        const body: ChainErasureBody = { ...(JSON.parse(base.body) as ErasureBody), chain: r.writer_id as string };
        erasures.push({ row: { ...base, body: JSON.stringify(body) }, refGid: Number(r.gid) });
        const parts = erasedParts(row);
        await client.query("UPDATE qhooks_journal SET reason = $2, body = $3, outcome = $4 WHERE gid = $1", [
          r.gid,
          parts.reason === null ? null : utf8(parts.reason),
          utf8(parts.body),
          parts.outcome === null ? null : utf8(parts.outcome),
        ]);
      }
      if (rows.length > 0) erasedEvents++;
    }
    await appendToChain(client, maintainer, erasures);
    return { events: erasedEvents, records: erasures.length, leftovers: serverCopies(erasures.length) };
  });
}

/** What eraseEvents would rewrite, read only: the selected events that have a record not erased before. */
export async function erasePlan(client: pg.Client, selector: EraseSelector): Promise<EraseResult> {
  let events = 0;
  let records = 0;
  for (const gid of await selectedEvents(client, selector)) {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM qhooks_journal r WHERE ((r.gid = $1 AND r.kind = 'event') OR (r.ref_gid = $1 AND r.kind IN ('outcome', 'hook')))
       AND NOT EXISTS (SELECT 1 FROM qhooks_journal x WHERE x.kind = 'erasure' AND x.ref_gid = r.gid)`,
      [gid],
    );
    const n = Number(rows[0]!.n);
    if (n > 0) events++;
    records += n;
  }
  return { events, records, leftovers: [] };
}

/**
 * Deletes, chain by chain, the records older than `before` by the same rules as the SQLite log (an event goes with
 * its outcome; the snapshots just before the first kept record stay with it), with their audit rows; moves each
 * pruned chain's anchor to its last deleted record; copies configuration snapshots no kept record holds to the
 * maintaining writer's chain, and the key records deleted (keyRecords.ts: each naming its chain and seq there);
 * and appends there one prune record per chain that has an anchor. One transaction:
 * appends of other writers go on meanwhile (they lock their own chain's head, not these rows). A dry run rolls the
 * transaction back (the gids it drew from the sequence stay unused).
 */
export async function pruneChains(client: pg.Client, maintainer: string, before: Date, options: MaintenanceOptions = {}): Promise<PruneResult> {
  const dryRun = options.dryRun === true;
  return inTransaction(
    client,
    async () => {
      const ts = new Date().toISOString();
      const iso = before.toISOString();
      // Where each chain is cut: its first record to keep.
      await client.query("CREATE TEMP TABLE qhooks_cut (writer_id text PRIMARY KEY, cut bigint NOT NULL, anchor_seq bigint, anchor_hash text) ON COMMIT DROP");
      const { rows: chains } = await client.query<{ writer_id: string; first: number; last: number }>(
        "SELECT writer_id, min(seq) AS first, max(seq) AS last FROM qhooks_journal GROUP BY writer_id ORDER BY writer_id",
      );
      const one = async (sql: string, values: unknown[]): Promise<number | null> => {
        const { rows } = await client.query<{ s: number | null }>(sql, values);
        return rows[0]?.s === null || rows[0]?.s === undefined ? null : Number(rows[0].s);
      };
      /** The first record to keep of chain `w` when keeping `cut` and what follows it. */
      const settle = async (w: string, cut: number): Promise<number> => {
        // Records qhooks writes for itself go by their place, not their time: the snapshots just before the first
        // kept record stay with it.
        cut = ((await one("SELECT max(seq) AS s FROM qhooks_journal WHERE writer_id = $1 AND seq < $2 AND kind <> 'snapshot'", [w, cut])) ?? 0) + 1;
        // An event goes with its outcome: a kept outcome keeps its event.
        const orphan = await one(
          `SELECT min(e.seq) AS s FROM qhooks_journal o JOIN qhooks_journal e ON e.gid = o.ref_gid
         WHERE o.writer_id = $1 AND o.seq >= $2 AND o.kind IN ('outcome', 'hook') AND e.writer_id = $1 AND e.seq < $2`,
          [w, cut],
        );
        return orphan === null ? cut : Math.min(cut, orphan);
      };
      const cuts = new Map<string, number>();
      const firsts = new Map(chains.map((c) => [c.writer_id, Number(c.first)]));
      for (const chain of chains) {
        const w = chain.writer_id;
        const oldest = await one(
          "SELECT min(seq) AS s FROM qhooks_journal WHERE writer_id = $1 AND ts >= $2 AND kind IN ('event', 'outcome', 'hook', 'replay_run')",
          [w, iso],
        );
        const cut = await settle(w, oldest ?? Number(chain.last) + 1);
        if (cut > Number(chain.first)) cuts.set(w, cut);
      }
      // An erasure record goes only with the record it erased: one about a record that stays keeps its place, and
      // so what follows it in its chain (which may keep more records that other erasure records name: again).
      for (let changed = true; changed; ) {
        changed = false;
        await client.query("DELETE FROM qhooks_cut");
        if (cuts.size > 0)
          await client.query("INSERT INTO qhooks_cut (writer_id, cut) SELECT * FROM unnest($1::text[], $2::bigint[])", [[...cuts.keys()], [...cuts.values()]]);
        const { rows: kept } = await client.query<{ writer_id: string; seq: number }>(
          `SELECT x.writer_id, min(x.seq) AS seq FROM qhooks_journal x JOIN qhooks_cut xc ON xc.writer_id = x.writer_id AND x.seq < xc.cut
         JOIN qhooks_journal t ON t.gid = x.ref_gid LEFT JOIN qhooks_cut tc ON tc.writer_id = t.writer_id
         WHERE x.kind = 'erasure' AND (tc.cut IS NULL OR t.seq >= tc.cut) GROUP BY x.writer_id`,
        );
        for (const k of kept) {
          const cut = await settle(k.writer_id, Number(k.seq));
          if (cut > firsts.get(k.writer_id)!) cuts.set(k.writer_id, cut);
          else cuts.delete(k.writer_id);
          changed = true;
        }
      }
      // Each chain's anchor: its last record deleted.
      await client.query(
        `UPDATE qhooks_cut c SET anchor_seq = a.seq, anchor_hash = a.hash FROM qhooks_cut c2
       CROSS JOIN LATERAL (SELECT seq, hash FROM qhooks_journal j WHERE j.writer_id = c2.writer_id AND j.seq < c2.cut ORDER BY seq DESC LIMIT 1) a
       WHERE c2.writer_id = c.writer_id`,
      );
      const { rows: cutCount } = await client.query<{ n: number }>("SELECT count(*) AS n FROM qhooks_cut");
      if (cutCount[0]!.n === 0) return { records: 0, events: 0, from: null, bytesBefore: null, bytesAfter: null, leftovers: [] };

      // Snapshots that no kept record holds: copied first, so that kept and later events still name a stored one.
      const { rows: snapshots } = await client.query<{ config_hash: Buffer; body: Buffer }>(
        `SELECT DISTINCT ON (s.config_hash) s.config_hash, s.body FROM qhooks_journal s JOIN qhooks_cut c ON c.writer_id = s.writer_id AND s.seq < c.cut
       WHERE s.kind = 'snapshot' AND NOT EXISTS (
         SELECT 1 FROM qhooks_journal k LEFT JOIN qhooks_cut kc ON kc.writer_id = k.writer_id
         WHERE k.kind = 'snapshot' AND k.config_hash = s.config_hash AND (kc.cut IS NULL OR k.seq >= kc.cut))
       ORDER BY s.config_hash, s.gid`,
      );
      // Key records a deleted range holds (a chain's own, or copies an earlier prune made): verify follows each
      // chain's keys from its first through them, so they are copied forward unless a kept one says the same.
      const { rows: keyRows } = await client.query<{ writer_id: string; seq: string; body: Buffer; deleted: boolean }>(
        `SELECT k.writer_id, k.seq, k.body, (c.cut IS NOT NULL AND k.seq < c.cut) AS deleted FROM qhooks_journal k
       LEFT JOIN qhooks_cut c ON c.writer_id = k.writer_id WHERE k.kind = 'key' ORDER BY k.gid`,
      );
      const keptKeys = new Set<string>();
      const keyCopies: PendingRow[] = [];
      const placed = keyRows.map((k) => ({ deleted: k.deleted, ...keyRecordPlace(k.writer_id, Number(k.seq), k.body.toString("utf8")) }));
      for (const k of placed) if (!k.deleted) keptKeys.add(`${k.chain}\n${k.at.seq}`);
      for (const k of placed) {
        const said = `${k.chain}\n${k.at.seq}`;
        if (!k.deleted || keptKeys.has(said)) continue;
        keptKeys.add(said);
        const body = parseKeyBody(k.at.body);
        if (body === null) continue;
        const copy: KeyCopyBody = { ...body, chain: k.chain, seq: k.at.seq };
        keyCopies.push({ ...keyChangeRow(ts, body), body: JSON.stringify(copy) });
      }
      const { rows: counted } = await client.query<{ records: number; events: number }>(
        `SELECT count(*) AS records, count(*) FILTER (WHERE j.kind = 'event') AS events FROM qhooks_journal j JOIN qhooks_cut c ON c.writer_id = j.writer_id AND j.seq < c.cut`,
      );
      const { rows: perChain } = await client.query<{ writer_id: string; n: number }>(
        "SELECT j.writer_id, count(*) AS n FROM qhooks_journal j JOIN qhooks_cut c ON c.writer_id = j.writer_id AND j.seq < c.cut GROUP BY j.writer_id",
      );
      const { rows: firstKept } = await client.query<{ g: number | null }>(
        "SELECT min(j.gid) AS g FROM qhooks_journal j JOIN qhooks_cut c ON c.writer_id = j.writer_id AND j.seq >= c.cut",
      );
      // The audit rows of the events deleted go with them.
      await client.query(
        `DELETE FROM qhooks_hooks h USING qhooks_journal j, qhooks_cut c WHERE h.event_gid = j.gid AND j.kind = 'event' AND c.writer_id = j.writer_id AND j.seq < c.cut`,
      );
      await client.query(
        `DELETE FROM qhooks_events v USING qhooks_journal j, qhooks_cut c WHERE v.gid = j.gid AND j.kind = 'event' AND c.writer_id = j.writer_id AND j.seq < c.cut`,
      );
      await client.query("DELETE FROM qhooks_journal j USING qhooks_cut c WHERE c.writer_id = j.writer_id AND j.seq < c.cut");
      await client.query(
        "UPDATE qhooks_writers w SET anchor_seq = c.anchor_seq, anchor_hash = c.anchor_hash FROM qhooks_cut c WHERE c.writer_id = w.writer_id",
      );

      const removed = new Map(perChain.map((r) => [r.writer_id, Number(r.n)]));
      // The maintaining writer's chain is written after its own anchor moved: its prune record names its new anchor.
      if (!(await client.query("SELECT 1 FROM qhooks_writers WHERE writer_id = $1", [maintainer])).rowCount) {
        await client.query("INSERT INTO qhooks_writers (writer_id, origin, label) VALUES ($1, 'direct', $2)", [maintainer, hostname()]);
      }
      const { rows: anchored } = await client.query<{ writer_id: string; anchor_seq: number; anchor_hash: string }>(
        "SELECT writer_id, anchor_seq, anchor_hash FROM qhooks_writers WHERE anchor_seq > 0 ORDER BY writer_id",
      );
      const copies = snapshots.map((s) => storedSnapshotRow(ts, s.config_hash.toString("utf8"), s.body.toString("utf8")));
      const prunes: PendingRow[] = anchored.map((a) => {
        const base = pruneRow(ts, { through: Number(a.anchor_seq), hash: a.anchor_hash, records: removed.get(a.writer_id) ?? 0, before: iso });
        const body: ChainPruneBody = { ...(JSON.parse(base.body) as PruneBody), chain: a.writer_id };
        return { ...base, body: JSON.stringify(body) };
      });
      const gids = await appendToChain(
        client,
        maintainer,
        [...copies, ...keyCopies, ...prunes].map((row) => ({ row, refGid: null })),
      );
      const from = firstKept[0]?.g ?? null;
      const records = Number(counted[0]!.records);
      return {
        records,
        events: Number(counted[0]!.events),
        from: from === null ? (gids[0] ?? null) : Number(from),
        bytesBefore: null,
        bytesAfter: null,
        leftovers: dryRun ? [] : serverCopies(records),
      };
    },
    // A dry run does all of it, then rolls it back: what it reports is exactly what a prune would do.
    !dryRun,
  );
}

/** A key record's body as written; null when it is not one (verify names such a record where it still is). */
function parseKeyBody(text: string): KeyChangeBody | null {
  try {
    return KeyChangeBodySchema.parse(JSON.parse(text));
  } catch {
    return null;
  }
}
