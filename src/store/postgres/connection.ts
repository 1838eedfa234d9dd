import pg from "pg";
import { QhooksError, messageOf } from "../../errors.js";
import { shownUrl } from "../../text/shownUrl.js";

/** The URL as it may be shown: without its password (one rule for every URL qhooks shows). */
export { shownUrl };

/** How long connecting may take before the log is said to be unreachable (a dispatch waits that long at most). */
const CONNECT_TIMEOUT_MS = 3_000;

// bigint (count(*), seqs) and numeric as JavaScript numbers: every value qhooks stores fits in 2^53.
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

export type PgClient = pg.Client;

/**
 * How long one statement of a dispatch may take, in milliseconds, measured by the client (a connection that froze
 * answers nothing, and no server-side limit can end that wait) and by the server (a statement that runs long, a
 * lock held elsewhere). An event waits at most about this long for the central log before it goes to the local
 * fallback instead.
 */
export const DISPATCH_DEADLINE_MS = 5_000;

/**
 * Server-side limits of a dispatch's connection: a lock held elsewhere (the chain's head, by another session) is
 * waited for this long per attempt, and retried within the append's budget; a transaction left open by a client
 * that froze is ended by the server after idle_in_transaction_session_timeout, releasing the head it locked.
 */
const DISPATCH_LIMITS = {
  query_timeout: DISPATCH_DEADLINE_MS,
  statement_timeout: DISPATCH_DEADLINE_MS,
  lock_timeout: 1_000,
  idle_in_transaction_session_timeout: 2 * DISPATCH_DEADLINE_MS,
};

/**
 * Audits, maintenance and shipping read and write much more per statement (a report over weeks, a prune): their
 * statements get no server-side limit, but a connection that stops answering is still given up, and a transaction
 * left open by a frozen client still ends.
 */
const AUDIT_LIMITS = {
  query_timeout: 10 * 60_000,
  idle_in_transaction_session_timeout: 10 * 60_000,
};

export interface ConnectOptions {
  /** The deadlines of the dispatch path (appends, the Stop-loop guard's read), or the audits' (the default). */
  readonly deadlines?: "dispatch" | "audit";
}

/** A connected client; a failure to connect is one QhooksError("log") line that says why. */
export async function connect(url: string, options: ConnectOptions = {}): Promise<pg.Client> {
  const limits = options.deadlines === "dispatch" ? DISPATCH_LIMITS : AUDIT_LIMITS;
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
    application_name: "qhooks",
    keepAlive: true,
    ...limits,
  });
  // A connection the server ends later is reported on the next query; without a listener it would crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await endClient(client);
    throw new QhooksError("log", `cannot connect to the event log ${shownUrl(url)}: ${describePgError(e)}`, { cause: e });
  }
  return client;
}

/** How long a client that is ending may take to say goodbye before its socket is closed under it. */
const END_GRACE_MS = 500;

/**
 * Ends a client without waiting on a server that does not answer: end() waits for the server to close the
 * connection, which a frozen connection never does, so the socket is destroyed after a short grace.
 */
export async function endClient(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_GRACE_MS)));
  await Promise.race([client.end().catch(() => undefined), grace]);
  clearTimeout(timer);
  dropClient(client);
}

/** Closes a client's socket at once: its pending queries fail, and the server ends the session (and its locks). */
export function dropClient(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** One line for what went wrong talking to PostgreSQL. */
export function describePgError(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === "ECONNREFUSED") return "connection refused (is PostgreSQL running there?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve";
  if (code === "55P03") return "the chain's head is locked by another session";
  if (code === "57014") return "a statement took too long (statement_timeout)";
  if (code === "ETIMEDOUT" || /timeout/i.test(messageOf(e))) return "the server did not answer in time";
  if (code === "ECONNRESET") return "the connection was reset";
  if (code === "28P01" || code === "28000") return "authentication failed (wrong user or password)";
  if (code === "3D000") return `${messageOf(e)} (create it first: createdb)`;
  if (code === "57P01" || code === "57P03") return "the server is shutting down or starting up";
  if (code === "42501") return `permission denied (${messageOf(e)})`;
  if (code === "53100") return "the server's disk is full";
  return messageOf(e);
}

/** An error of the connection itself (the server went away), as opposed to one a statement caused. */
export const isConnectionError = (e: unknown): boolean => {
  const code = (e as { code?: string }).code ?? "";
  return (
    /^(E[A-Z]+|57P0[1-3]|08\d\d\d)$/.test(code) ||
    /Connection terminated|not queryable|Client has encountered a connection error|Query read timeout|timeout expired/i.test(messageOf(e))
  );
};
