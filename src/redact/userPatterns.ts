import type { RedactEntry } from "../schema/settings.js";
import { riskOf } from "../settings/compileMatcher.js";
import { oneLineText } from "../text/oneLine.js";
import type { RedactPattern } from "./redactor.js";

export type CompiledRedactPattern = { readonly ok: true; readonly pattern: RedactPattern } | { readonly ok: false; readonly why: string };

/**
 * A user's redaction pattern, compiled global. Refused like a matcher when it is not a valid regex or can backtrack
 * catastrophically (nested or too many unbounded quantifiers), and when it can match the empty string (it would
 * redact nothing, everywhere); the text it runs on is cut into bounded pieces (see USER_PATTERN_WINDOW).
 */
export function compileRedactPattern(entry: RedactEntry): CompiledRedactPattern {
  let regex: RegExp;
  try {
    regex = new RegExp(entry.pattern, "g");
  } catch (e) {
    const message = e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "") : String(e);
    return { ok: false, why: `invalid regex /${oneLineText(entry.pattern, 60)}/ (${oneLineText(message, 80)})` };
  }
  const risk = riskOf(entry.pattern);
  if (risk !== null) return { ok: false, why: `regex /${oneLineText(entry.pattern, 60)}/ can take ${risk} time on hostile text (nested or too many unbounded quantifiers)` };
  if (regex.test("")) return { ok: false, why: `regex /${oneLineText(entry.pattern, 60)}/ matches the empty string` };
  regex.lastIndex = 0;
  return { ok: true, pattern: { kind: entry.kind, regex } };
}
