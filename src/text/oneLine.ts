/**
 * Messages are one line each (warnings, errors, the CLI's `qhooks:` lines), but they sometimes name what a user or
 * an agent wrote: a settings key, a matcher, a hook's name (its command by default, which may span lines), a
 * payload value. Those parts go through here, so that a newline cannot split a message and a megabyte cannot
 * bury it.
 */

/** Longest piece of quoted input in a message, in characters. */
export const MAX_QUOTED_LENGTH = 120;

/** `text` with line breaks and other control characters escaped (`\n`, `\u0000`), cut to `max` characters. */
export function oneLineText(text: string, max: number = MAX_QUOTED_LENGTH): string {
  // eslint-disable-next-line no-control-regex
  const escaped = /[\u0000-\u001f\u007f\u2028\u2029]/.test(text) ? text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, escapeChar) : text;
  return escaped.length > max ? `${escaped.slice(0, max)}… (${text.length} characters)` : escaped;
}

/** A value from a payload or a file, quoted for a message: a string as JSON, cut; other values by their kind. */
export function quoteValue(value: unknown, max: number = MAX_QUOTED_LENGTH): string {
  if (Array.isArray(value)) return "an array";
  if (value !== null && typeof value === "object") return "an object";
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > max ? `${text.slice(0, max)}…" (${text.length} characters)` : text;
}

function escapeChar(c: string): string {
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
