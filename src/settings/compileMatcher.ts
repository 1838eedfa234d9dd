/**
 * Matchers (contract 2.2), compiled once when settings load so that dispatch only tests.
 * Case-sensitive throughout.
 */
export type Matcher =
  | { readonly kind: "all" }
  | { readonly kind: "names"; readonly names: ReadonlySet<string> }
  | { readonly kind: "regex"; readonly regex: RegExp }
  | { readonly kind: "never" };

export interface CompiledMatcher {
  readonly matcher: Matcher;
  /** Problems to report; the matcher is still usable (a `never` matcher when the source was unusable). */
  readonly warnings: readonly string[];
}

const SIMPLE = /^[A-Za-z0-9_\- ,|]*$/;

/**
 * Longest match value a regex is tested against. Tool names, agent types and the like are short; the cap keeps a
 * slow pattern that slipped past `isCatastrophic` from stalling dispatch on a hostile value.
 */
export const MAX_MATCH_VALUE_LENGTH = 1024;

export function compileMatcher(source: string | undefined): CompiledMatcher {
  const trimmed = source?.trim() ?? "";
  if (trimmed === "" || trimmed === "*") return { matcher: { kind: "all" }, warnings: [] };

  const warnings: string[] = [];
  let text = trimmed;
  // The seed's Markdown table shows `Write\|Edit`; people copy it verbatim. No tool name contains a literal |, so
  // the same holds inside a regex (`mcp__.*\|Bash`).
  if (text.includes("\\|")) {
    text = text.replaceAll("\\|", "|");
    warnings.push(`matcher "${trimmed}" read as "${text}" (\\| is how a Markdown table shows |)`);
  }

  if (SIMPLE.test(text)) {
    const names = text.split(/[|,]/).map((n) => n.trim()).filter((n) => n !== "");
    return { matcher: names.length === 0 ? { kind: "all" } : { kind: "names", names: new Set(names) }, warnings };
  }

  let regex: RegExp;
  try {
    regex = new RegExp(text);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, "") : String(e);
    return { matcher: { kind: "never" }, warnings: [...warnings, `invalid regex (${why}); this group matches nothing`] };
  }
  if (isCatastrophic(text)) {
    return {
      matcher: { kind: "never" },
      warnings: [...warnings, `regex "${text}" nests quantifiers and can take exponential time; this group matches nothing`],
    };
  }
  return { matcher: { kind: "regex", regex }, warnings };
}

export function matches(matcher: Matcher, value: string | null): boolean {
  switch (matcher.kind) {
    case "all":
      return true;
    case "never":
      return false;
    case "names":
      return value !== null && matcher.names.has(value);
    case "regex":
      return value !== null && matcher.regex.test(value.slice(0, MAX_MATCH_VALUE_LENGTH));
  }
}

/**
 * True for patterns with a quantified group that itself contains a quantifier or an alternation, such as `(a+)+`,
 * `(\w*)*` or `(a|aa)+`: the shapes behind catastrophic backtracking. V8 has no regex timeout, so such matchers
 * are refused when settings load. A conservative, syntactic check: it may refuse a harmless pattern (the warning
 * says which), never the simple forms matchers are made of (`mcp__.*`, `^Edit$`, `Bash|Write`).
 */
export function isCatastrophic(pattern: string): boolean {
  // Per open group: does its body contain a quantifier or a top-level alternation?
  const stack: { risky: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      continue;
    }
    if (c === "(") {
      stack.push({ risky: false });
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === "|" && top) top.risky = true;
    if (isQuantifierAt(pattern, i) && top) top.risky = true;
    if (c === ")") {
      const group = stack.pop();
      const quantified = isQuantifierAt(pattern, i + 1);
      if (group?.risky && quantified) return true;
      // A risky group inside another group makes the outer one risky too: ((a+)b)+
      const outer = stack[stack.length - 1];
      if (outer && (group?.risky || quantified)) outer.risky = true;
    }
  }
  return false;
}

function isQuantifierAt(pattern: string, i: number): boolean {
  const c = pattern[i];
  if (c === "*" || c === "+") return true;
  if (c === "{") return /^\{\d+(,\d*)?\}/.test(pattern.slice(i));
  return false;
}
