import { hostname } from "node:os";
import type pg from "pg";
import { QhooksError } from "../../errors.js";
import { RecentSet } from "../../core/recentMap.js";
import { SNAPSHOTS_KNOWN } from "../journal/appendRules.js";
import type { LogRecord, MatchCount, SessionRow, Stats, VerifyResult } from "../../schema/logRecord.js";
import type { ReplayRun } from "../../schema/replay.js";
import type { EventDetail } from "../../schema/eventDetail.js";
import {
  appendResult,
  type AppendOptions,
  type AppendResult,
  type AuditLog,
  type EraseResult,
  type EraseSelector,
  type MaintenanceOptions,
  type EventLog,
  type ChainSlice,
  type EvidenceSelection,
  type LogEntry,
  type LogMaintenance,
  type PruneResult,
  type LogFilter,
  type ReadFrom,
  type SettledPage,
  type StoredEvent,
} from "../eventLog.js";
import { prepareAppend, type AppendOutcome, type PreparedAppend } from "../journal/prepareAppend.js";
import { GroupCommit, type Attempt } from "../journal/groupCommit.js";
import { toLogRecord, toStoredEvent, type EventListRow, type EventReadRow } from "../journal/eventRows.js";
import { DISPATCH_DEADLINE_MS, connect, describePgError, dropClient, endClient, isConnectionError, shownUrl } from "./connection.js";
import { eraseEvents, erasePlan, pruneChains } from "./maintenance.js";
import { appendRecords, type AppendTarget } from "./appendRecords.js";
import { migratePg } from "./migrations.js";
import { verifyChains } from "./verifyChain.js";
import { writerChainSlice } from "./chainSlice.js";
import type { Window } from "../journal/filterTerms.js";
import { bytes } from "./filterSql.js";
import { queryMatchCounts, querySessions, queryStats } from "./querySummaries.js";
import { readEvent } from "./readEvent.js";
import { replayRuns } from "./replayRuns.js";
import { countEvents, pageEvents } from "./queryEvents.js";
import { querySettled } from "./querySettled.js";

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
class PostgresLog implements EventLog, AuditLog, LogMaintenance {
  private connecting: Promise<pg.Client> | null = null;
  /** The connected client, once there is one: what a deadline closes under a statement that does not answer. */
  private current: pg.Client | null = null;
  private readonly commits: GroupCommit<PreparedAppend, AppendOutcome>;
  /** Snapshot hashes known to be in this writer's chain: the ones last used; one not known is looked up. */
  private readonly knownSnapshots = new RecentSet<string>(SNAPSHOTS_KNOWN);
  /** The chain appends go to (appendRecords.ts). */
  private readonly chain: AppendTarget;
  private closed = false;
  private readonly shown: string;

  constructor(
    readonly url: string,
    readonly writer: string,
    private readonly mustExist: boolean,
    private readonly deadlines: "dispatch" | "audit",
  ) {
    this.shown = shownUrl(url);
    this.chain = { writer, knownSnapshots: this.knownSnapshots, writerKnown: false };
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
      const result = await appendRecords(client, this.chain, batch);
      for (const hash of result.snapshots) this.knownSnapshots.add(hash);
      return { ok: true, results: result.outcomes };
    } catch (e) {
      // A connection that is gone or does not answer is closed (the server rolls back); only a live one is told.
      if (isConnectionError(e)) this.forget(client);
      else await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
  }

  async stopBlockStreak(sessionId: string): Promise<number> {
    const rows = await this.query<{ streak: number }>("SELECT streak FROM qhooks_stop_streaks WHERE session_id = $1", [bytes(sessionId)]);
    return rows[0]?.streak ?? 0;
  }

  event(seq: number): Promise<EventDetail | null> {
    return readEvent(this.query.bind(this), seq);
  }

  events(filter: LogFilter, limit: number): AsyncIterable<LogRecord> {
    return this.pages(filter, "DESC", limit, null, (r) => toLogRecord(r as unknown as EventListRow));
  }

  read(filter: LogFilter, from: ReadFrom = {}): AsyncIterable<StoredEvent> {
    return this.pages(filter, "ASC", Number.MAX_SAFE_INTEGER, from.after ?? null, (r) =>
      toStoredEvent(
        { ...(r as unknown as EventReadRow), decision: r.e_decision as string | null, reason: (r.r_reason as string | null) ?? null },
        ((r.hooks as Buffer[] | null) ?? []).map((h) => h.toString("utf8")),
      ),
    );
  }

  /** Matching events page by page (postgres/queryEvents.ts). */
  private pages<T>(filter: LogFilter, order: "ASC" | "DESC", limit: number, from: number | null, map: (row: Record<string, unknown>) => T): AsyncGenerator<T> {
    return pageEvents(this.query.bind(this), this.shown, { filter, order, limit, from }, map);
  }

  settledAfter(filter: LogFilter, after: number, limit: number): Promise<SettledPage> {
    return querySettled(this.query.bind(this), filter, after, limit);
  }

  count(filter: LogFilter): Promise<number> {
    return countEvents(this.query.bind(this), filter);
  }

  async replayRuns(): Promise<ReplayRun[]> {
    const { ReplayRunSchema } = await import("../../schema/replay.js");
    return replayRuns(this.query.bind(this), ReplayRunSchema);
  }

  sessions(filter: Window): Promise<SessionRow[]> {
    return querySessions(this.query.bind(this), filter);
  }

  stats(filter: Window, names?: ReadonlyMap<string, string>): Promise<Stats> {
    return queryStats(this.query.bind(this), filter, names);
  }

  matchCounts(filter: Window): Promise<MatchCount[]> {
    return queryMatchCounts(this.query.bind(this), filter);
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

  async erase(selector: EraseSelector, why: string | null = null, options: MaintenanceOptions = {}): Promise<EraseResult> {
    return this.maintain((client) => (options.dryRun ? erasePlan(client, selector) : eraseEvents(client, this.writer, selector, why)));
  }

  async prune(before: Date, options: MaintenanceOptions = {}): Promise<PruneResult> {
    return this.maintain((client) => pruneChains(client, this.writer, before, options));
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

  /** One writer's chain for evidence (chainSlice.ts), read in one transaction. */
  async chainSlice(selection: EvidenceSelection): Promise<ChainSlice | null> {
    const client = await this.client();
    try {
      return await writerChainSlice(client, selection);
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
