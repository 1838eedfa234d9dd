import { shownUrl } from "../../text/shownUrl.js";

/** What is wrong with the database a PostgreSQL URL names, if anything: refused, or said once as a warning. */
export type DatabaseNameCheck = { readonly refused: string } | { readonly warning: string | null };

/** Databases a server makes for itself: template0 and template1 are copied into every new database. */
const TEMPLATES = new Set(["template0", "template1"]);

/**
 * A URL without a database made the driver fall back to the user's name (`postgres`), and qhooks' tables went into
 * the maintenance database: refused. The templates are refused too. `postgres` itself is allowed with a warning:
 * hosted PostgreSQL often offers only it, and logs already there must keep shipping.
 */
export function checkDatabaseName(url: string): DatabaseNameCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: `${shownUrl(url)} is not a valid URL (postgres://user@host:5432/database)` };
  }
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  const fromQuery = parsed.searchParams.get("dbname") ?? parsed.searchParams.get("database");
  const database = name || fromQuery || "";
  const shown = shownUrl(url);
  if (database === "")
    return {
      refused: `${shown} names no database: add one, as in postgres://user@host:5432/qhooks (without it the tables would go into the server's maintenance database)`,
    };
  if (TEMPLATES.has(database))
    return { refused: `${shown} names the template database ${database}: name a database of qhooks' own, as in postgres://user@host:5432/qhooks` };
  if (database === "postgres")
    return {
      warning: `${shown} is the server's maintenance database: qhooks' tables are better in a database of their own (createdb qhooks; docs/team.md says how to move)`,
    };
  return { warning: null };
}
