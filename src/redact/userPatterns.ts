import type { RedactEntry } from "../schema/settings.js";
import { compileUserRegex } from "../regex/userRegex.js";
import { refusalText, type RegexRefusalKind } from "../regex/toRe2.js";
import { oneLineText } from "../text/oneLine.js";
import { builtInRedactor, createRedactor, type RedactPattern, type Redactor } from "./redactor.js";

/** Why a redaction pattern does not apply as written: each kind is a different thing for the user to change. */
export type RedactPatternWarningKind = RegexRefusalKind | "empty-match";

export interface CompiledRedactPattern {
  /** What applies: null when the entry is ignored (not a regex at all, or one that matches the empty string). */
  readonly pattern: RedactPattern | null;
  /** The one warning about the entry, with its kind; null when it applies as written. */
  readonly warning: { readonly kind: RedactPatternWarningKind; readonly text: string } | null;
}

/**
 * A user's redaction pattern, for the linear-time engine (regex/userRegex.ts). Not a valid regex, or one that
 * matches the empty string (it would redact nothing, everywhere): ignored, with a warning, as a typo is. Valid but
 * beyond the engine (a backreference, lookaround, too large): its secrets cannot be found, so every string it
 * would have been run on is masked whole instead, with a warning; a guard the user asked for is never dropped.
 */
export function compileRedactPattern(entry: RedactEntry): CompiledRedactPattern {
  const shown = `/${oneLineText(entry.pattern, 60)}/`;
  const compiled = compileUserRegex(entry.pattern);
  if (!compiled.ok) {
    const { refusal } = compiled;
    if (refusal.kind === "invalid")
      return { pattern: null, warning: { kind: "invalid", text: `invalid regex ${shown} (${oneLineText(refusal.detail, 80)}); ignored` } };
    return {
      pattern: { kind: entry.kind, source: entry.pattern, regex: null },
      warning: {
        kind: refusal.kind,
        text: `regex ${shown} cannot run in linear time (${oneLineText(refusalText(refusal), 80)}); every string is masked whole instead`,
      },
    };
  }
  if (compiled.regex.nullable) return { pattern: null, warning: { kind: "empty-match", text: `regex ${shown} matches the empty string; ignored` } };
  return { pattern: { kind: entry.kind, source: entry.pattern, regex: compiled.regex }, warning: null };
}

/** A redactor with the user's patterns as written (those that apply; the warnings were said where they were read). */
export function redactorFor(entries: readonly RedactEntry[]): Redactor {
  if (entries.length === 0) return builtInRedactor;
  return createRedactor(entries.map(compileRedactPattern).flatMap((c) => (c.pattern === null ? [] : [c.pattern])));
}
