import type pg from "pg";
import type { JournalRow } from "../journal/record.js";
import { stopStreakStep } from "../journal/appendRules.js";

/**
 * Writing records into the PostgreSQL journal, the same way for a process appending directly and for `qhooks ship`
 * copying a local log: lock the writer's chain head, take numbers for the records, insert them with the audit rows
 * they imply (events, hook runs, Stop streaks), move the head. All in the caller's transaction, so a record and its
 * audit rows are there together or not at all.
 */

/** A record with its place in this database. */
export interface PlacedRow {
  /** Its number in this database (what the audits show as seq). */
  readonly gid: number;
  readonly writer: string;
  /** The record as hashed: its `seq` is its place in the writer's chain. */
  readonly row: JournalRow;
  /** The gid of the record its `ref` names (an outcome's event, a replayed event's live one); null when none. */
  readonly refGid: number | null;
}

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** Locks the writer's chain (creating it when new) until the transaction ends, and reads its head. */
export async function lockWriter(client: pg.Client, writer: string, origin: "direct" | "shipped", label: string, known = false): Promise<ChainHead> {
  if (!known)
    await client.query("INSERT INTO qhooks_writers (writer_id, origin, label) VALUES ($1, $2, $3) ON CONFLICT (writer_id) DO NOTHING", [writer, origin, label]);
  const { rows } = await client.query<{ head_seq: number; head_hash: string }>(
    "SELECT head_seq, head_hash FROM qhooks_writers WHERE writer_id = $1 FOR UPDATE",
    [writer],
  );
  return { seq: rows[0]!.head_seq, hash: rows[0]!.head_hash };
}

export async function setHead(client: pg.Client, writer: string, head: ChainHead): Promise<void> {
  await client.query("UPDATE qhooks_writers SET head_seq = $2, head_hash = $3, updated_at = now() WHERE writer_id = $1", [writer, head.seq, head.hash]);
}

/** `n` new record numbers, ascending. */
export async function allocateGids(client: pg.Client, n: number): Promise<number[]> {
  if (n === 0) return [];
  const { rows } = await client.query<{ g: number }>("SELECT nextval('qhooks_journal_gid_seq') AS g FROM generate_series(1, $1)", [n]);
  return rows.map((r) => r.g).sort((a, b) => a - b);
}

const utf8 = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, "utf8"));

interface HookRun {
  readonly name: string;
  readonly command: string | null;
  readonly status: string;
  readonly durationMs: number;
  /** Its settings level; null in a body that has none. */
  readonly level: string | null;
}

function hooksOf(json: string | null): HookRun[] {
  if (json === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // A damaged body: reading that record says what is wrong with it.
    return [];
  }
  const hooks = (parsed as { hooks?: unknown } | null)?.hooks;
  if (!Array.isArray(hooks)) return [];
  return hooks.map((h: Record<string, unknown>) => ({
    name: typeof h?.name === "string" ? h.name : "?",
    command: typeof h?.command === "string" ? h.command : null,
    status: typeof h?.outcome === "string" ? h.outcome : "?",
    durationMs: typeof h?.durationMs === "number" ? h.durationMs : 0,
    level: typeof h?.level === "string" ? h.level : null,
  }));
}

/**
 * Inserts placed records and their audit rows. `liveEvents` says, for events outside these records that an outcome
 * refers to, whether they are live (not replayed); what it does not say is looked up.
 */
export async function insertPlaced(client: pg.Client, placed: readonly PlacedRow[], liveEvents: ReadonlyMap<number, boolean> = new Map()): Promise<void> {
  if (placed.length === 0) return;
  const cols = {
    gid: [] as number[],
    writer: [] as string[],
    seq: [] as number[],
    ts: [] as string[],
    kind: [] as string[],
    event: [] as (string | null)[],
    session: [] as (Buffer | null)[],
    match: [] as (Buffer | null)[],
    project: [] as (Buffer | null)[],
    source: [] as (string | null)[],
    ref: [] as (number | null)[],
    run: [] as (Buffer | null)[],
    config: [] as (Buffer | null)[],
    name: [] as (Buffer | null)[],
    status: [] as (string | null)[],
    decision: [] as (string | null)[],
    blocked: [] as (number | null)[],
    duration: [] as (number | null)[],
    reason: [] as (Buffer | null)[],
    body: [] as Buffer[],
    hash: [] as string[],
    format: [] as number[],
    outcome: [] as (Buffer | null)[],
    refGid: [] as (number | null)[],
    machine: [] as (Buffer | null)[],
    user: [] as (Buffer | null)[],
    judgedBy: [] as (string | null)[],
  };
  const live = new Map(liveEvents);
  for (const { gid, writer, row, refGid } of placed) {
    cols.gid.push(gid);
    cols.writer.push(writer);
    cols.seq.push(row.seq);
    cols.ts.push(row.ts);
    cols.kind.push(row.kind);
    cols.event.push(row.event);
    cols.session.push(utf8(row.session_id));
    cols.match.push(utf8(row.match_value));
    cols.project.push(utf8(row.project_dir));
    cols.source.push(row.source);
    cols.ref.push(row.ref);
    cols.run.push(utf8(row.run_id));
    cols.config.push(utf8(row.config_hash));
    cols.name.push(utf8(row.name));
    cols.status.push(row.status);
    cols.decision.push(row.decision);
    cols.blocked.push(row.blocked);
    cols.duration.push(row.duration_ms);
    cols.reason.push(utf8(row.reason));
    cols.body.push(Buffer.from(row.body, "utf8"));
    cols.hash.push(row.hash);
    cols.format.push(row.format);
    cols.outcome.push(utf8(row.outcome));
    cols.refGid.push(refGid);
    cols.machine.push(utf8(row.machine));
    cols.user.push(utf8(row.os_user));
    cols.judgedBy.push(row.judged_by);
    if (row.kind === "event") live.set(gid, row.run_id === null);
  }
  // The records and their event rows in one statement (one round trip).
  const events = placed.filter((p) => p.row.kind === "event");
  await client.query(
    `WITH journal AS (
       INSERT INTO qhooks_journal (gid, writer_id, seq, ts, kind, event, session_id, match_value, project_dir, source, ref, run_id, config_hash,
                                   name, status, decision, blocked, duration_ms, reason, body, hash, format, outcome, ref_gid,
                                   machine, os_user, judged_by)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::bytea[], $9::bytea[],
                            $10::text[], $11::bigint[], $12::bytea[], $13::bytea[], $14::bytea[], $15::text[], $16::text[], $17::smallint[],
                            $18::float8[], $19::bytea[], $20::bytea[], $21::text[], $22::smallint[], $23::bytea[], $24::bigint[],
                            $35::bytea[], $36::bytea[], $37::text[]))
     INSERT INTO qhooks_events (gid, ts, event, session_id, match_value, project_dir, run_id, decision, blocked, outcome_gid)
     SELECT * FROM unnest($25::bigint[], $26::text[], $27::text[], $28::bytea[], $29::bytea[], $30::bytea[], $31::bytea[], $32::text[], $33::smallint[], $34::bigint[])
     ON CONFLICT (gid) DO NOTHING`,
    [
      cols.gid,
      cols.writer,
      cols.seq,
      cols.ts,
      cols.kind,
      cols.event,
      cols.session,
      cols.match,
      cols.project,
      cols.source,
      cols.ref,
      cols.run,
      cols.config,
      cols.name,
      cols.status,
      cols.decision,
      cols.blocked,
      cols.duration,
      cols.reason,
      cols.body,
      cols.hash,
      cols.format,
      cols.outcome,
      cols.refGid,
      events.map((p) => p.gid),
      events.map((p) => p.row.ts),
      events.map((p) => p.row.event),
      events.map((p) => utf8(p.row.session_id)),
      events.map((p) => utf8(p.row.match_value)),
      events.map((p) => utf8(p.row.project_dir)),
      events.map((p) => utf8(p.row.run_id)),
      events.map((p) => p.row.decision),
      events.map((p) => p.row.blocked ?? 0),
      events.map((p) => (p.row.outcome !== null ? p.gid : null)),
      cols.machine,
      cols.user,
      cols.judgedBy,
    ],
  );

  // Whether the event each outcome refers to is live, for those not among these records.
  const unknown = placed.filter((p) => p.row.kind === "outcome" && p.refGid !== null && !live.has(p.refGid)).map((p) => p.refGid!);
  if (unknown.length > 0) {
    const { rows } = await client.query<{ gid: number; live: boolean }>(
      "SELECT gid, run_id IS NULL AS live FROM qhooks_journal WHERE gid = ANY($1::bigint[]) AND kind = 'event'",
      [unknown],
    );
    for (const r of rows) live.set(r.gid, r.live);
  }

  const outcomes = placed.filter((p) => p.row.kind === "outcome" && p.refGid !== null);
  if (outcomes.length > 0) {
    await client.query(
      `UPDATE qhooks_events v SET decision = o.decision, blocked = coalesce(o.blocked, 0), outcome_gid = o.gid
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::smallint[]) AS o(gid, ref_gid, decision, blocked)
       WHERE v.gid = o.ref_gid AND v.outcome_gid IS NULL`,
      [outcomes.map((p) => p.gid), outcomes.map((p) => p.refGid), outcomes.map((p) => p.row.decision), outcomes.map((p) => p.row.blocked)],
    );
  }

  // Hook runs, from the outcome JSON of either kind of record.
  const hooks = {
    event: [] as number[],
    idx: [] as number[],
    live: [] as boolean[],
    name: [] as Buffer[],
    command: [] as (Buffer | null)[],
    status: [] as string[],
    ms: [] as number[],
    level: [] as (Buffer | null)[],
  };
  // The Stop-loop guard's streaks: per session, whether a Stop outcome ended its streak here, and the blocks after that.
  const streaks = new Map<string, { reset: boolean; add: number }>();
  for (const { gid, row, refGid } of placed) {
    const json = row.kind === "outcome" ? row.body : row.kind === "event" ? row.outcome : null;
    if (json === null) continue;
    const eventGid = row.kind === "outcome" ? refGid : gid;
    if (eventGid === null || !live.has(eventGid)) continue;
    const isLive = live.get(eventGid)!;
    hooksOf(json).forEach((h, i) => {
      hooks.event.push(eventGid);
      hooks.idx.push(i);
      hooks.live.push(isLive);
      hooks.name.push(Buffer.from(h.name, "utf8"));
      hooks.command.push(utf8(h.command));
      hooks.status.push(h.status);
      hooks.ms.push(h.durationMs);
      hooks.level.push(utf8(h.level));
    });
    const step = stopStreakStep(row, isLive);
    if (step !== null) {
      const s = streaks.get(row.session_id!) ?? { reset: false, add: 0 };
      if (step === "up") s.add++;
      else {
        s.reset = true;
        s.add = 0;
      }
      streaks.set(row.session_id!, s);
    }
  }
  if (hooks.event.length > 0) {
    await client.query(
      `INSERT INTO qhooks_hooks (event_gid, idx, live, name, command, status, duration_ms, level)
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::bool[], $4::bytea[], $5::bytea[], $6::text[], $7::float8[], $8::bytea[]) ON CONFLICT DO NOTHING`,
      [hooks.event, hooks.idx, hooks.live, hooks.name, hooks.command, hooks.status, hooks.ms, hooks.level],
    );
  }
  if (streaks.size > 0) {
    const entries = [...streaks].map(([session, s]) => ({ session: Buffer.from(session, "utf8"), ...s }));
    const ended = entries.filter((e) => e.reset && e.add === 0).map((e) => e.session);
    if (ended.length > 0) await client.query("DELETE FROM qhooks_stop_streaks WHERE session_id = ANY($1::bytea[])", [ended]);
    const counted = entries.filter((e) => e.add > 0);
    if (counted.length > 0) {
      await client.query(
        `INSERT INTO qhooks_stop_streaks (session_id, streak) SELECT * FROM unnest($1::bytea[], $2::int[]) AS s(session_id, add)
         ON CONFLICT (session_id) DO UPDATE SET streak = CASE WHEN $3::bytea[] @> ARRAY[excluded.session_id] THEN excluded.streak ELSE qhooks_stop_streaks.streak + excluded.streak END`,
        [counted.map((e) => e.session), counted.map((e) => e.add), counted.filter((e) => e.reset).map((e) => e.session)],
      );
    }
  }
}

/** A journal row as PostgreSQL returns it, back in the form it was hashed in. */
export function journalRowOf(r: Record<string, unknown>): JournalRow {
  const text = (v: unknown): string | null => (v === null || v === undefined ? null : Buffer.isBuffer(v) ? v.toString("utf8") : String(v));
  return {
    seq: Number(r.seq),
    ts: r.ts as string,
    kind: r.kind as JournalRow["kind"],
    event: r.event as string | null,
    session_id: text(r.session_id),
    match_value: text(r.match_value),
    project_dir: text(r.project_dir),
    source: r.source as string | null,
    ref: r.ref === null ? null : Number(r.ref),
    run_id: text(r.run_id),
    config_hash: text(r.config_hash),
    name: text(r.name),
    status: r.status as string | null,
    decision: r.decision as string | null,
    blocked: r.blocked === null ? null : Number(r.blocked),
    duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
    reason: text(r.reason),
    body: text(r.body) ?? "",
    hash: r.hash as string,
    format: Number(r.format),
    outcome: text(r.outcome),
    machine: text(r.machine),
    os_user: text(r.os_user),
    judged_by: (r.judged_by ?? null) as string | null,
  };
}
