import { hostname } from "node:os";
import type pg from "pg";
import { QhooksError } from "../../errors.js";
import type { LogRecord, MatchCount, SessionRow, Stats, VerifyResult } from "../../schema/logRecord.js";
import type { ReplayRun } from "../../schema/replay.js";
import type { EventDetail } from "../../schema/eventDetail.js";
import { eventDetailOf } from "../journal/eventDetail.js";
import {
  appendResult,
  type AppendOptions,
  type AppendResult,
  type AuditLog,
  type EraseResult,
  type EraseSelector,
  type EventLog,
  type LogEntry,
  type LogMaintenance,
  type PruneResult,
  type LogFilter,
  type ReadFrom,
  type StoredEvent,
} from "../eventLog.js";
import { contentDigest, linkHash, wellFormed } from "../journal/hashFormat.js";
import type { JournalRow } from "../journal/record.js";
import { snapshotRow, type PendingRow } from "../journal/rows.js";
import { prepareAppend, type AppendOutcome, type PreparedAppend } from "../sqlite/appendRecords.js";
import { GroupCommit, type Attempt } from "../sqlite/groupCommit.js";
import { toLogRecord, type EventListRow } from "../sqlite/queryEvents.js";
import { DISPATCH_DEADLINE_MS, connect, describePgError, dropClient, endClient, isConnectionError, shownUrl } from "./connect.js";
import { eraseEvents, pruneChains } from "./maintenance.js";
import { migratePg } from "./migrations.js";
import { allocateGids, insertPlaced, journalRowOf, type PlacedRow } from "./placeRows.js";
import { verifyChains } from "./verifyChains.js";

export interface PostgresLogOptions {
  /** Audits read an existing log: a database without one is an error, not a new log. */
  readonly mustExist?: boolean;
  /** The chain this process appends to; by default this machine's (`host:<host name>`). */
  readonly writer?: string;
  /**
   * The deadlines of a dispatch (every call answers within DISPATCH_DEADLINE_MS or fails), or an audit's (longer
   * statements). By default a dispatch's when the log may be created (`run`, `record`), an audit's otherwise.
   */
  readonly deadlines?: "dispatch" | "audit";
}

export type PostgresEventLog = EventLog & AuditLog & LogMaintenance & { readonly url: string; readonly writer: string };

/** Appends in one transaction at most. */
const MAX_APPENDS_PER_COMMIT = 256;
/**
 * How long an append keeps trying while the chain's head is locked by another session (each try waits for the
 * lock up to the server's lock_timeout): less than the append's deadline, so that a lock held elsewhere is said as
 * such rather than as silence.
 */
const LOCK_BUDGET_MS = DISPATCH_DEADLINE_MS - 1_000;
/** The most a dispatch's append takes, all its statements together. */
const APPEND_DEADLINE_MS = DISPATCH_DEADLINE_MS + 1_000;
/** Rows per page when listing or reading: a page is read whole. */
const PAGE = 500;

/** The machine's own chain: processes of one machine append to it in turn, other machines to theirs. */
export const defaultWriter = (): string => `host:${hostname()}`;

/**
 * The event log in a PostgreSQL database: the same port as the SQLite file, for a team's central store. Opening
 * does not connect: the first call does (and creates or migrates the schema), so that a server that is down costs
 * a dispatch one warning, not its decision. Every append is one transaction; each writer (a machine writing
 * directly, or a local log shipped here) has a chain of its own, so writers never wait for one global chain.
 */
export function openPostgresLog(url: string, options: PostgresLogOptions = {}): PostgresEventLog {
  const mustExist = options.mustExist ?? false;
  return new PostgresLog(url, options.writer ?? defaultWriter(), mustExist, options.deadlines ?? (mustExist ? "audit" : "dispatch"));
}

/** Text as bound to a bytea column. */
const bytes = (text: string): Buffer => Buffer.from(wellFormed(text), "utf8");
const textOf = (v: Buffer | string | null): string | null => (v === null ? null : Buffer.isBuffer(v) ? v.toString("utf8") : v);

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The WHERE clause of a filter over the event rows `v`, the event's record `e` and its outcome's record `o`. */
function eventWhere(filter: LogFilter, p: Params): string {
  const terms: string[] = [];
  if (filter.replayRun !== undefined) terms.push(`v.run_id IS NOT NULL`, `v.run_id = ${p.add(bytes(filter.replayRun))}`);
  else terms.push("v.run_id IS NULL");
  if (filter.event !== undefined) terms.push(`v.event = ${p.add(filter.event)}`);
  if (filter.sessions?.length) terms.push(`v.session_id = ANY(${p.add(filter.sessions.map(bytes))}::bytea[])`);
  if (filter.tool !== undefined) terms.push(`v.match_value = ${p.add(bytes(filter.tool))}`);
  if (filter.decision !== undefined) terms.push(filter.decision === "unfinished" ? "v.decision IS NULL" : `v.decision = ${p.add(filter.decision)}`);
  // Shadow hooks that would have changed the outcome: the outcome says so itself (its JSON, as SQLite reads it).
  if (filter.shadow === true)
    terms.push(`convert_from(CASE WHEN v.outcome_gid = v.gid THEN e.outcome ELSE o.body END, 'UTF8')::jsonb #>> '{shadow,changed}' = 'true'`);
  if (filter.blocked === true) terms.push("v.blocked = 1");
  else if (filter.blocked === false) terms.push("v.blocked = 0");
  if (filter.hook !== undefined) {
    const hook = p.add(bytes(filter.hook));
    terms.push(
      `EXISTS (SELECT 1 FROM qhooks_hooks h WHERE h.event_gid = v.gid AND (position(${hook}::bytea in h.name) > 0 OR position(${hook}::bytea in coalesce(h.command, ''::bytea)) > 0))`,
    );
  }
  if (filter.grep !== undefined) {
    const grep = p.add(bytes(filter.grep));
    terms.push(`(position(${grep}::bytea in e.body) > 0 OR position(${grep}::bytea in coalesce(o.reason, e.reason, ''::bytea)) > 0)`);
  }
  if (filter.since !== undefined) terms.push(`v.ts >= ${p.add(filter.since.toISOString())}`);
  if (filter.until !== undefined) terms.push(`v.ts < ${p.add(filter.until.toISOString())}`);
  return terms.join(" AND ");
}

const EVENT_JOIN = "qhooks_events v JOIN qhooks_journal e ON e.gid = v.gid LEFT JOIN qhooks_journal o ON o.gid = v.outcome_gid AND v.outcome_gid <> v.gid";

type Window = Pick<LogFilter, "since" | "until">;

/** Byte order of two texts, null first: the order SQLite gives its match values. */
const compareText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : Buffer.compare(Buffer.from(a), Buffer.from(b));
function windowTerms(filter: Window, p: Params, column = "ts"): string {
  let sql = "";
  if (filter.since) sql += ` AND ${column} >= ${p.add(filter.since.toISOString())}`;
  if (filter.until) sql += ` AND ${column} < ${p.add(filter.until.toISOString())}`;
  return sql;
}

class PostgresLog implements EventLog, AuditLog, LogMaintenance {
  private connecting: Promise<pg.Client> | null = null;
  /** The connected client, once there is one: what a deadline closes under a statement that does not answer. */
  private current: pg.Client | null = null;
  private readonly commits: GroupCommit<PreparedAppend, AppendOutcome>;
  /** Snapshot hashes known to be in this writer's chain. */
  private readonly knownSnapshots = new Set<string>();
  private closed = false;
  /** This writer's row exists (no need to create it again). */
  private writerKnown = false;
  private readonly shown: string;

  constructor(
    readonly url: string,
    readonly writer: string,
    private readonly mustExist: boolean,
    private readonly deadlines: "dispatch" | "audit",
  ) {
    this.shown = shownUrl(url);
    this.commits = new GroupCommit<PreparedAppend, AppendOutcome>({
      commit: (batch) => this.commit(batch),
      // Two writers of one chain wait for each other on its head row; a deadlock or a serialization failure is retried.
      isBusy: (e) => ["40P01", "40001", "55P03"].includes((e as { code?: string }).code ?? ""),
      maxBatch: MAX_APPENDS_PER_COMMIT,
      gaveUp: (e) => new QhooksError("log", `cannot write the event log ${this.shown}: ${describePgError(e)}`, { cause: e }),
      failed: (e) => (e instanceof QhooksError ? e : new QhooksError("log", `cannot write the event log ${this.shown}: ${describePgError(e)}`, { cause: e })),
    });
  }

  /** The connection, made (and the schema brought up to date) on first use, and again after it was lost. */
  private client(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new QhooksError("closed", "the event log is closed"));
    this.connecting ??= (async () => {
      const client = await connect(this.url, { deadlines: this.deadlines });
      try {
        await migratePg(client, this.shown, this.mustExist);
        // The durability of the SQLite log's synchronous=NORMAL: a commit does not wait for its WAL to reach the
        // disk, so a crash of the server (not of qhooks) can lose the last moment of commits, never half of one.
        // It is what keeps a dispatch from paying an fsync per event.
        await client.query("SET synchronous_commit = off");
      } catch (e) {
        await endClient(client);
        if (e instanceof QhooksError) throw e;
        throw new QhooksError("log", `cannot use the event log ${this.shown}: ${describePgError(e)}`, { cause: e });
      }
      client.on("error", () => {
        this.forget(client);
      });
      this.current = client;
      return client;
    })();
    const attempt = this.connecting;
    attempt.catch(() => {
      if (this.connecting === attempt) this.connecting = null;
    });
    return attempt;
  }

  /**
   * A client that lost its connection, or whose statement passed its deadline (it may still be waiting for an
   * answer that never comes): closed, and made again for the next call.
   */
  private forget(client: pg.Client): void {
    dropClient(client);
    if (this.current === client) {
      this.current = null;
      this.connecting = null;
    }
  }

  /** Runs a query; a lost connection is made again for the next one. */
  private async query<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    const client = await this.client();
    try {
      return (await client.query<R>(sql, values)).rows;
    } catch (e) {
      if (isConnectionError(e)) this.forget(client);
      throw new QhooksError("log", `cannot read the event log ${this.shown}: ${describePgError(e)}`, { cause: e });
    }
  }

  async append(entries: readonly LogEntry[], options: AppendOptions = {}): Promise<AppendResult> {
    if (entries.length === 0) return appendResult([]);
    const submitted = this.commits.submit(prepareAppend(entries), options.lockWaitMs ?? LOCK_BUDGET_MS);
    const outcome = this.deadlines === "dispatch" ? await this.withinDeadline(submitted) : await submitted;
    if (!outcome.ok) throw outcome.error;
    return appendResult(outcome.seqs);
  }

  /**
   * A dispatch's append answers within APPEND_DEADLINE_MS, whatever each of its statements does (connecting,
   * waiting for a lock and retrying, statements one after another, each within its own deadline): past it the
   * connection is closed under the statement in flight (the server rolls its transaction back) and the append
   * fails, saying so.
   */
  private async withinDeadline<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (this.current) this.forget(this.current);
        reject(new QhooksError("log", `cannot write the event log ${this.shown}: no answer within ${APPEND_DEADLINE_MS / 1000} s`));
      }, APPEND_DEADLINE_MS);
    });
    // The work goes on failing on its own once its connection is closed; nobody waits for it any more.
    work.catch(() => undefined);
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async commit(batch: readonly PreparedAppend[]): Promise<Attempt<AppendOutcome>> {
    const client = await this.client();
    try {
      const result = await this.place(client, batch);
      for (const hash of result.snapshots) this.knownSnapshots.add(hash);
      return { ok: true, results: result.outcomes };
    } catch (e) {
      // A connection that is gone or does not answer is closed (the server rolls back); only a live one is told.
      if (isConnectionError(e)) this.forget(client);
      else await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
  }

  /** The records of a batch of appends, after this writer's head: checked, numbered, linked and inserted. */
  private async place(client: pg.Client, batch: readonly PreparedAppend[]): Promise<{ outcomes: AppendOutcome[]; snapshots: string[] }> {
    // Outcomes and async hooks' results name an event of the log: looked up once for the batch.
    const refs = batch.flatMap((a) => a.rows.filter((r) => r.row.kind === "outcome" || r.row.kind === "hook").map((r) => r.row.ref!));
    const events = new Map<number, { live: boolean; judged: boolean }>();
    if (refs.length > 0) {
      const { rows } = await client.query<{ gid: number; live: boolean; judged: boolean }>(
        `SELECT e.gid, e.run_id IS NULL AS live,
                (e.outcome IS NOT NULL OR EXISTS (SELECT 1 FROM qhooks_journal o WHERE o.kind = 'outcome' AND o.ref_gid = e.gid)) AS judged
         FROM qhooks_journal e WHERE e.gid = ANY($1::bigint[]) AND e.kind = 'event'`,
        [refs],
      );
      for (const r of rows) events.set(r.gid, { live: r.live, judged: r.judged });
    }
    const wanted = [...new Set(batch.flatMap((a) => a.snapshots.map((s) => s.snapshot.hash)))].filter((h) => !this.knownSnapshots.has(h));
    // Round trips are most of what an append costs: the transaction starts, the chain's head is locked and (when
    // no lookup can change how many records there are) the records' numbers are taken in one of them.
    const writer = client.escapeLiteral(this.writer);
    const certain = refs.length === 0 && wanted.length === 0 ? batch.reduce((n, a) => n + a.rows.length, 0) : null;
    const opening = (await client.query(
      `BEGIN;${this.writerKnown ? "" : ` INSERT INTO qhooks_writers (writer_id, origin, label) VALUES (${writer}, 'direct', ${client.escapeLiteral(hostname())}) ON CONFLICT (writer_id) DO NOTHING;`}
       SELECT head_seq, head_hash FROM qhooks_writers WHERE writer_id = ${writer} FOR UPDATE` +
        (certain ? `; SELECT nextval('qhooks_journal_gid_seq') AS g FROM generate_series(1, ${certain})` : ""),
    )) as unknown as pg.QueryResult[];
    this.writerKnown = true;
    const headRow = opening.find((r) => r.command === "SELECT")!.rows[0] as { head_seq: number; head_hash: string };
    const head = { seq: Number(headRow.head_seq), hash: headRow.head_hash };
    const taken = certain ? (opening[opening.length - 1]!.rows as { g: string | number }[]).map((r) => Number(r.g)).sort((a, b) => a - b) : null;
    const present = new Set<string>();
    if (wanted.length > 0) {
      const { rows } = await client.query<{ h: Buffer }>(
        "SELECT DISTINCT config_hash AS h FROM qhooks_journal WHERE kind = 'snapshot' AND writer_id = $1 AND config_hash = ANY($2::bytea[])",
        [this.writer, wanted.map(bytes)],
      );
      for (const r of rows) present.add(r.h.toString("utf8"));
    }

    let seq = head.seq;
    let hash = head.hash;
    const pending: { row: PendingRow; digest: string }[] = [];
    const added: string[] = [];
    const outcomes = batch.map((append): AppendOutcome => {
      for (const { row } of append.rows) {
        if (row.kind === "hook" && !events.has(row.ref!))
          return { ok: false, error: new QhooksError("log", `no event ${row.ref} in the log to attach a hook result to`) };
        if (row.kind !== "outcome") continue;
        const event = events.get(row.ref!);
        if (!event) return { ok: false, error: new QhooksError("log", `no event ${row.ref} in the log to attach an outcome to`) };
        if (event.judged) return { ok: false, error: new QhooksError("log", `event ${row.ref} already has its outcome`) };
      }
      for (const { row } of append.rows) if (row.kind === "outcome") events.get(row.ref!)!.judged = true;
      for (const { ts, snapshot } of append.snapshots) {
        if (this.knownSnapshots.has(snapshot.hash) || present.has(snapshot.hash) || added.includes(snapshot.hash)) continue;
        const row = snapshotRow(ts, snapshot);
        pending.push({ row, digest: contentDigest(row) });
        added.push(snapshot.hash);
      }
      const first = pending.length;
      for (const r of append.rows) pending.push({ row: r.row, digest: r.digest });
      // Seqs are known once numbers are taken; remembered here by position.
      return { ok: true, seqs: append.entryRows.map((i) => first + i) };
    });
    const gids = taken ?? (await allocateGids(client, pending.length));
    const placed: PlacedRow[] = pending.map(({ row, digest }, i) => {
      seq++;
      hash = linkHash(this.writer, seq, hash, digest);
      const full: JournalRow = { ...row, seq, hash };
      return { gid: gids[i]!, writer: this.writer, row: full, refGid: row.ref };
    });
    const live = new Map([...events].map(([gid, e]) => [gid, e.live]));
    await insertPlaced(client, placed, live);
    // The head moves and the transaction commits in one round trip (a hash is hex: a safe literal).
    await client.query(
      placed.length > 0
        ? `UPDATE qhooks_writers SET head_seq = ${seq}, head_hash = '${hash}', updated_at = now() WHERE writer_id = ${writer}; COMMIT`
        : "COMMIT",
    );
    return {
      outcomes: outcomes.map((o) => (o.ok ? { ok: true, seqs: o.seqs.map((position) => gids[position]!) } : o)),
      snapshots: added,
    };
  }

  async stopBlockStreak(sessionId: string): Promise<number> {
    const rows = await this.query<{ streak: number }>("SELECT streak FROM qhooks_stop_streaks WHERE session_id = $1", [bytes(sessionId)]);
    return rows[0]?.streak ?? 0;
  }

  async event(seq: number): Promise<EventDetail | null> {
    const [e] = await this.query("SELECT * FROM qhooks_journal WHERE gid = $1 AND kind = 'event'", [seq]);
    if (!e) return null;
    const event = journalRowOf(e);
    const [place] = await this.query<{ outcome_gid: number | null }>("SELECT outcome_gid FROM qhooks_events WHERE gid = $1", [seq]);
    const outcomeGid = place?.outcome_gid ?? null;
    const [o] = outcomeGid !== null && outcomeGid !== seq ? await this.query("SELECT * FROM qhooks_journal WHERE gid = $1", [outcomeGid]) : [];
    const outcomeRecord = o ? journalRowOf(o) : undefined;
    const [snap] =
      event.config_hash === null
        ? []
        : await this.query<{ body: Buffer }>(
            "SELECT body FROM qhooks_journal WHERE kind = 'snapshot' AND config_hash = $1 ORDER BY (writer_id = $2) DESC, gid LIMIT 1",
            [bytes(event.config_hash), e.writer_id],
          );
    return eventDetailOf({
      seq,
      event,
      outcome: outcomeRecord ? { seq: outcomeGid!, row: outcomeRecord } : null,
      snapshotBody: snap ? snap.body.toString("utf8") : null,
      replayOf: e.ref_gid === null ? null : Number(e.ref_gid),
      logId: e.writer_id as string,
    });
  }

  events(filter: LogFilter, limit: number): AsyncIterable<LogRecord> {
    return this.pages(filter, "DESC", limit, null, (r) => toLogRecord(r as unknown as EventListRow));
  }

  read(filter: LogFilter, from: ReadFrom = {}): AsyncIterable<StoredEvent> {
    return this.pages(filter, "ASC", Number.MAX_SAFE_INTEGER, from.after ?? null, (r) => ({
      seq: r.seq as number,
      event: r.event as StoredEvent["event"],
      sessionId: r.session_id as string | null,
      matchValue: r.match_value as string | null,
      projectDir: (r.project_dir as string | null) ?? "",
      decision: ((r.e_decision as string | null) ?? "unfinished") as StoredEvent["decision"],
      blocked: r.blocked === 1,
      reason: (r.r_reason as string | null) ?? null,
      hooks: ((r.hooks as Buffer[] | null) ?? []).map((h) => h.toString("utf8")),
      payload: r.payload as string,
    }));
  }

  /** Matching events page by page (keyset on gid), each row's text decoded. */
  private async *pages<T>(
    filter: LogFilter,
    order: "ASC" | "DESC",
    limit: number,
    from: number | null,
    map: (row: Record<string, unknown>) => T,
  ): AsyncGenerator<T> {
    let after: number | null = from;
    let given = 0;
    for (;;) {
      const p = new Params();
      const where = eventWhere(filter, p);
      const keyset = after === null ? "" : ` AND v.gid ${order === "DESC" ? "<" : ">"} ${p.add(after)}`;
      const take = Math.min(PAGE, limit - given);
      if (take <= 0) return;
      const rows = await this.query<Record<string, unknown>>(
        `SELECT v.gid AS seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref_gid AS ref, e.run_id, e.config_hash,
                v.decision AS e_decision, e.reason AS e_reason, coalesce(o.reason, e.reason) AS r_reason, v.blocked, e.body AS payload,
                CASE WHEN v.outcome_gid = v.gid THEN e.outcome ELSE o.body END AS outcome,
                (SELECT array_agg(h.body ORDER BY h.gid) FROM qhooks_journal h WHERE h.kind = 'hook' AND h.ref_gid = v.gid AND h.format >= 4) AS async_bodies
                ${order === "ASC" ? ", (SELECT array_agg(h.name ORDER BY h.idx) FROM qhooks_hooks h WHERE h.event_gid = v.gid) AS hooks" : ""}
         FROM ${EVENT_JOIN} WHERE ${where}${keyset} ORDER BY v.gid ${order} LIMIT ${take}`,
        p.values,
      );
      for (const r of rows) {
        for (const column of ["session_id", "match_value", "project_dir", "run_id", "config_hash", "e_reason", "r_reason", "payload", "outcome"])
          r[column] = textOf(r[column] as Buffer | null);
        // Each body is one async hook's result as JSON: the list SQLite's query gives as one JSON array.
        const bodies = r.async_bodies as Buffer[] | null;
        r.async_hooks = bodies === null ? null : `[${bodies.map((b) => b.toString("utf8")).join(",")}]`;
        given++;
        try {
          yield map(r);
        } catch (e) {
          if (e instanceof SyntaxError)
            throw new QhooksError("log", `cannot read the event log ${this.shown}: record ${String(r.seq)} is damaged; qhooks verify names it`, { cause: e });
          throw e;
        }
      }
      if (rows.length < take) return;
      after = rows[rows.length - 1]!.seq as number;
    }
  }

  async count(filter: LogFilter): Promise<number> {
    const p = new Params();
    const where = eventWhere(filter, p);
    const [row] = await this.query<{ n: number }>(`SELECT count(*) AS n FROM ${EVENT_JOIN} WHERE ${where}`, p.values);
    return row!.n;
  }

  async replayRuns(): Promise<ReplayRun[]> {
    const { ReplayRunSchema } = await import("../../schema/replay.js");
    const runs = new Map<string, ReplayRun>();
    for (const row of await this.query<{ run_id: Buffer; body: Buffer }>("SELECT run_id, body FROM qhooks_journal WHERE kind = 'replay_run' ORDER BY gid")) {
      const run = ReplayRunSchema.safeParse(JSON.parse(row.body.toString("utf8")));
      if (run.success) runs.set(row.run_id.toString("utf8"), run.data);
    }
    return [...runs.values()].reverse();
  }

  async sessions(filter: Window): Promise<SessionRow[]> {
    const p = new Params();
    const time = windowTerms(filter, p);
    const rows = await this.query<{ id: Buffer; first_ts: string; last_ts: string; project_dir: Buffer | null; events: number; blocked: number }>(
      `WITH g AS (SELECT session_id, min(gid) AS first, max(gid) AS last, count(*) AS events, sum(blocked) AS blocked FROM qhooks_events
                  WHERE run_id IS NULL AND session_id IS NOT NULL${time} GROUP BY session_id)
       SELECT g.session_id AS id, f.ts AS first_ts, f.project_dir, l.ts AS last_ts, g.events, g.blocked
       FROM g JOIN qhooks_events f ON f.gid = g.first JOIN qhooks_events l ON l.gid = g.last ORDER BY g.session_id`,
      p.values,
    );
    return rows
      .map((r) => ({
        sessionId: r.id.toString("utf8"),
        projectDir: textOf(r.project_dir) ?? "",
        firstTs: r.first_ts,
        lastTs: r.last_ts,
        events: r.events,
        blocked: r.blocked,
      }))
      .sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0));
  }

  async stats(filter: Window): Promise<Stats> {
    const p = new Params();
    const time = windowTerms(filter, p);
    const counts = await this.query<{ event: string; decision: Stats["byEvent"][number]["decision"]; n: number }>(
      `SELECT coalesce(event, '?') AS event, coalesce(decision, 'unfinished') AS decision, count(*) AS n FROM qhooks_events
       WHERE run_id IS NULL${time} GROUP BY 1, 2 ORDER BY 1, 2`,
      p.values,
    );
    let events = 0;
    const byEvent: Stats["byEvent"] = counts.map((r) => {
      events += r.n;
      return { event: r.event, decision: r.decision, count: r.n };
    });
    byEvent.sort((a, b) => a.event.localeCompare(b.event) || b.count - a.count);
    const q = new Params();
    const windowed = filter.since !== undefined || filter.until !== undefined;
    const hookWindow = windowTerms(filter, q, "v.ts");
    // Nearest-rank percentiles, as percentile_disc takes them, in one sort per hook. A hook's last run is the time
    // of the newest event (by seq, as in SQLite) it ran for: its gid is in the covering index, and only those
    // events are read (without a window, no event row is joined at all).
    const hooks = await this.query<{
      name: Buffer;
      runs: number;
      blocks: number;
      errors: number;
      invalid: number;
      timeouts: number;
      p: (number | null)[] | null;
      max: number | null;
      last_gid: number | null;
    }>(
      `SELECT h.name, count(*) AS runs, count(*) FILTER (WHERE h.status = 'block') AS blocks, count(*) FILTER (WHERE h.status = 'error') AS errors,
              count(*) FILTER (WHERE h.status = 'invalid-output') AS invalid, count(*) FILTER (WHERE h.status = 'timeout') AS timeouts,
              percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY h.duration_ms) AS p, max(h.duration_ms) AS max,
              max(h.event_gid) AS last_gid
       FROM qhooks_hooks h${windowed ? " JOIN qhooks_events v ON v.gid = h.event_gid" : ""} WHERE h.live${hookWindow} GROUP BY h.name ORDER BY h.name`,
      q.values,
    );
    const lastTs = new Map<number, string>();
    const lastGids = hooks.map((h) => h.last_gid).filter((g): g is number => g !== null);
    if (lastGids.length > 0) {
      for (const r of await this.query<{ gid: number; ts: string }>("SELECT gid, ts FROM qhooks_events WHERE gid = ANY($1::bigint[])", [lastGids]))
        lastTs.set(Number(r.gid), r.ts);
    }
    return {
      events,
      byEvent,
      hooks: hooks.map((h) => ({
        name: h.name.toString("utf8"),
        runs: h.runs,
        blocks: h.blocks,
        errors: h.errors,
        invalidOutputs: h.invalid,
        timeouts: h.timeouts,
        p50Ms: h.p?.[0] ?? null,
        p95Ms: h.p?.[1] ?? null,
        p99Ms: h.p?.[2] ?? null,
        maxMs: h.max,
        lastTs: h.last_gid === null ? null : (lastTs.get(Number(h.last_gid)) ?? null),
      })),
    };
  }

  async matchCounts(filter: Window): Promise<MatchCount[]> {
    const p = new Params();
    const time = windowTerms(filter, p);
    const rows = await this.query<{ event: string; match_value: Buffer | null; n: number }>(
      `SELECT event, match_value, count(*) AS n FROM qhooks_events
       WHERE run_id IS NULL AND event IS NOT NULL${time} GROUP BY event, match_value`,
      p.values,
    );
    return rows
      .map((r) => ({ event: r.event, matchValue: textOf(r.match_value), count: r.n }))
      .sort((a, b) => (a.event < b.event ? -1 : a.event > b.event ? 1 : b.count - a.count || compareText(a.matchValue, b.matchValue)));
  }

  /**
   * Erasure and retention on a connection of their own (an append of this process may be under way on the shared
   * one); what they write goes to this writer's chain, naming the chains they are about (see maintenance.ts).
   */
  private async maintain<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    await this.client();
    const client = await connect(this.url);
    try {
      return await work(client);
    } catch (e) {
      if (e instanceof QhooksError) throw e;
      throw new QhooksError("log", `cannot change the event log ${this.shown}: ${describePgError(e)}`, { cause: e });
    } finally {
      await endClient(client);
    }
  }

  async erase(selector: EraseSelector, why: string | null = null): Promise<EraseResult> {
    return this.maintain((client) => eraseEvents(client, this.writer, selector, why));
  }

  async prune(before: Date): Promise<PruneResult> {
    return this.maintain((client) => pruneChains(client, this.writer, before));
  }

  async verify(): Promise<VerifyResult> {
    const client = await this.client();
    try {
      return await verifyChains(client);
    } catch (e) {
      if (e instanceof QhooksError) throw e;
      throw new QhooksError("log", `cannot read the event log ${this.shown}: ${describePgError(e)}`, { cause: e });
    }
  }

  async close(): Promise<void> {
    await this.commits.settled();
    this.closed = true;
    const connecting = this.connecting;
    this.connecting = null;
    this.current = null;
    if (connecting) await connecting.then(endClient, () => undefined);
  }
}
