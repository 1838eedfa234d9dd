/**
 * URLs with credentials in them (a PostgreSQL log's `postgres://user:password@host/db`, an http hook's URL,
 * QHOOKS_EVALUATOR_URL) are shown only through here: the terminal, the report page, file names and the log never
 * get the password. The log also gets every other `scheme://user:password@` (a payload's, a hook's output) masked,
 * by the redactor's `url-password` detector, built from URL_PASSWORD_SOURCE below.
 */

/** What a hidden credential is shown as (the docs promise `***`). */
export const HIDDEN = "***";

/** Query parameters that carry a secret: libpq's `password`, `sslpassword`, `sslkey`, and any `token`, `api_key`... */
const SECRET_PARAM =
  /^(?:[A-Za-z0-9_.-]{0,40}(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth|authorization|sig|signature)|sslkey|passfile)$/i;

/**
 * A URL as qhooks may show it anywhere: its password, and the value of a query parameter whose name says secret,
 * replaced by `***`. The user name stays: it says which account a server refused. Text that does not read as a URL
 * is shown with every `scheme://user:password@` in it masked.
 */
export function shownUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return withoutUrlCredentials(url);
  }
  let changed = false;
  if (u.password) {
    u.password = HIDDEN;
    changed = true;
  }
  for (const key of new Set(u.searchParams.keys())) {
    if (!SECRET_PARAM.test(key)) continue;
    u.searchParams.set(key, HIDDEN);
    changed = true;
  }
  // Unchanged, the URL is shown as it was written (URL's own form would add a slash, lowercase the scheme...).
  return changed ? u.toString() : url;
}

/**
 * `scheme://user:password@` in text, the password in the group `value`: bounded classes, one per part, so that no
 * text can make it backtrack for long. A password already hidden (`***`, or a redaction marker) is not matched.
 */
export const URL_PASSWORD_SOURCE = String.raw`(?<key>\b[a-z][a-z0-9+.\-]{0,30}:\/\/[^\s/?#@:"'<>\\]{0,256}:)(?!\*\*\*@|\[REDACTED:)(?<value>[^\s/?#@"'<>\\]{1,512})@`;
const URL_PASSWORD = new RegExp(URL_PASSWORD_SOURCE, "gi");

/** Every `scheme://user:password@` in a text (a message that quotes a URL, a command line) with `***` for the password. */
export function withoutUrlCredentials(text: string): string {
  if (!text.includes("://")) return text;
  URL_PASSWORD.lastIndex = 0;
  return text.replace(URL_PASSWORD, (...args: unknown[]) => `${(args[args.length - 1] as { key: string }).key}${HIDDEN}@`);
}
