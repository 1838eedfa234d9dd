import { compileUserRegex, type UserRegex } from "../regex/userRegex.js";
import { refusalText, type RegexRefusal } from "../regex/toRe2.js";
import { oneLineText } from "../text/oneLine.js";

/**
 * Matchers, compiled once when settings load so that dispatch only tests.
 * Case-sensitive throughout.
 */
export type Matcher =
  | { readonly kind: "all" }
  | { readonly kind: "names"; readonly names: ReadonlySet<string> }
  | { readonly kind: "regex"; readonly regex: UserRegex }
  /** A regex the safe engine cannot run: it matches every value, so that no guard is switched off by it. */
  | { readonly kind: "undecided"; readonly refusal: RegexRefusal }
  | { readonly kind: "never" };

export interface CompiledMatcher {
  readonly matcher: Matcher;
  /** Problems to report; the matcher is still usable (a `never` matcher when the source was unusable). */
  readonly warnings: readonly string[];
  /** Why a regex is not run as written, when it is not (its kind says which; the warning says it in words). */
  readonly refusal?: RegexRefusal;
}

const SIMPLE = /^[A-Za-z0-9_\- ,|]*$/;
/** FileChanged and StopFailure: Claude Code reads only letters, digits, `_` and `|` as a list of names there. */
const SIMPLE_NARROW = /^[A-Za-z0-9_|]*$/;

export interface MatcherOptions {
  /** The narrow set of plain names (EventTraits.narrowNames): a `-`, space or comma makes the matcher a regex. */
  readonly narrowNames?: boolean;
}

export function compileMatcher(source: string | undefined, options: MatcherOptions = {}): CompiledMatcher {
  const trimmed = source?.trim() ?? "";
  if (trimmed === "" || trimmed === "*") return { matcher: { kind: "all" }, warnings: [] };

  const warnings: string[] = [];
  let text = trimmed;
  // The seed's Markdown table shows `Write\|Edit`; people copy it verbatim. No tool name contains a literal |, so
  // the same holds inside a regex (`mcp__.*\|Bash`).
  if (text.includes("\\|")) {
    text = text.replaceAll("\\|", "|");
    warnings.push(`matcher "${oneLineText(trimmed)}" read as "${oneLineText(text)}" (\\| is how a Markdown table shows |)`);
  }

  if (options.narrowNames ? SIMPLE_NARROW.test(text) : SIMPLE.test(text)) {
    const names = text
      .split(options.narrowNames ? "|" : /[|,]/)
      .map((n) => n.trim())
      .filter((n) => n !== "");
    return { matcher: names.length === 0 ? { kind: "all" } : { kind: "names", names: new Set(names) }, warnings };
  }

  const compiled = compileUserRegex(text);
  if (compiled.ok) return { matcher: { kind: "regex", regex: compiled.regex }, warnings };
  const { refusal } = compiled;
  if (refusal.kind === "invalid") {
    return {
      matcher: { kind: "never" },
      warnings: [...warnings, `invalid regex (/${oneLineText(text)}/: ${oneLineText(refusal.detail)}); this group matches nothing`],
      refusal,
    };
  }
  return {
    matcher: { kind: "undecided", refusal },
    warnings: [...warnings, `regex "${oneLineText(text)}" cannot run in linear time (${refusalText(refusal)}); this group runs for every value`],
    refusal,
  };
}

export function matches(matcher: Matcher, value: string | null): boolean {
  switch (matcher.kind) {
    case "all":
    case "undecided":
      return true;
    case "never":
      return false;
    case "names":
      return value !== null && matcher.names.has(value);
    case "regex":
      // A value too long to test within the work bound is taken as matching: the hook runs rather than not.
      return value !== null && (matcher.regex.test(value) ?? true);
  }
}
