import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A database of its own for a test run, on the machine's PostgreSQL ($QHOOKS_TEST_PG, else the local server with
 * trust authentication). PostgreSQL is part of the test machine: when it cannot be reached the tests fail, saying
 * so, rather than skipping.
 */
export const PG_SERVER = process.env.QHOOKS_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_SERVER, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `the tests need PostgreSQL at ${PG_SERVER} (${(e as Error).message}); start it (.ci/run does: pg_ctlcluster --skip-systemctl-redirect <version> main start) or point QHOOKS_TEST_PG at one`,
      { cause: e },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates a new, empty database with a unique name; `drop()` removes it (closing what is still connected). */
export async function createTestDatabase(prefix = "qhooks_test"): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_SERVER);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A connection to `url` for one piece of work, closed after it whatever happens. */
export async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
