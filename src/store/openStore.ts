import type { AuditLog, EventLog, LogMaintenance } from "./eventLog.js";
import { openSqliteLog } from "./sqlite/sqliteEventLog.js";
import { QhooksError } from "../errors.js";
import { checkDatabaseName } from "./postgres/databaseName.js";

/** A log behind the whole port: what the audit commands read and what `run` and `record` append to. */
export type Store = EventLog & AuditLog & LogMaintenance;

/** A log location that names a PostgreSQL database rather than a file (`postgres://` or `postgresql://`). */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

export interface OpenStoreOptions {
  /** Audits read an existing log and never create one. */
  readonly mustExist?: boolean;
  /** PostgreSQL: the chain this process appends to (default: this machine's). */
  readonly writer?: string;
  /** PostgreSQL: a dispatch's deadlines or an audit's (see PostgresLogOptions). */
  readonly deadlines?: "dispatch" | "audit";
  /** SQLite: sign the chain's head every this many records as it is written (sqlite/periodicHeads.ts). */
  readonly signEvery?: number;
}

/**
 * The log at a location: a SQLite file, or a PostgreSQL database named by URL. The PostgreSQL backend is loaded and
 * connects on first use, so that a dispatch logging to a file never loads it and one logging to a server that is
 * down still decides (the append fails, and says so).
 */
export function openStore(location: string, options: OpenStoreOptions = {}): Store {
  if (!isPostgresUrl(location)) return openSqliteLog(location, { mustExist: options.mustExist ?? false, signEvery: options.signEvery ?? 0 });
  const name = checkDatabaseName(location);
  if ("refused" in name) throw new QhooksError("usage", name.refused);
  return lazyStore(async () => (await import("./postgres/postgresEventLog.js")).openPostgresLog(location, options));
}

function lazyStore(load: () => Promise<Store>): Store {
  let loading: Promise<Store> | null = null;
  const store = () => (loading ??= load());
  return {
    append: async (entries, options) => (await store()).append(entries, options),
    stopBlockStreak: async (sessionId) => (await store()).stopBlockStreak(sessionId),
    event: async (seq) => (await store()).event(seq),
    events: (filter, limit) =>
      (async function* () {
        yield* (await store()).events(filter, limit);
      })(),
    read: (filter, from) =>
      (async function* () {
        yield* (await store()).read(filter, from);
      })(),
    settledAfter: async (filter, after, limit) => (await store()).settledAfter(filter, after, limit),
    count: async (filter) => (await store()).count(filter),
    replayRuns: async () => (await store()).replayRuns(),
    sessions: async (filter) => (await store()).sessions(filter),
    stats: async (filter, names) => (await store()).stats(filter, names),
    matchCounts: async (filter) => (await store()).matchCounts(filter),
    verify: async () => (await store()).verify(),
    chainSlice: async (selection) => {
      const log = await store();
      if (!log.chainSlice) throw new QhooksError("usage", "--evidence does not work on this log");
      return log.chainSlice(selection);
    },
    erase: async (selector, why, options) => (await store()).erase(selector, why, options),
    prune: async (before, options) => (await store()).prune(before, options),
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
