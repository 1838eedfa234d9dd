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
  getTypeParser: ((oid: number, format?: "text" | "binary") => (oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text"))) as typeof pg.types.getTypeParser,
};

export type PgClient = pg.Client;

/** A connected client; a failure to connect is one QhooksError("log") line that says why. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, types, application_name: "qhooks" });
  // A connection the server ends later is reported on the next query; without a listener it would crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    throw new QhooksError("log", `cannot connect to the event log ${shownUrl(url)}: ${describePgError(e)}`, { cause: e });
  }
  return client;
}

/** One line for what went wrong talking to PostgreSQL. */
export function describePgError(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === "ECONNREFUSED") return "connection refused (is PostgreSQL running there?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve";
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
  return /^(E[A-Z]+|57P0[1-3]|08\d\d\d)$/.test(code) || /Connection terminated|not queryable|Client has encountered a connection error/i.test(messageOf(e));
};
