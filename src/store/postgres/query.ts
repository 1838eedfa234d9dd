import type pg from "pg";

/** A query on the log's shared connection, within its deadline: what the read-side functions are given. */
export type Query = <R extends pg.QueryResultRow>(sql: string, values?: unknown[]) => Promise<R[]>;
