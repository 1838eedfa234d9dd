import { oneLineText } from "../text/oneLine.js";

/**
 * Matchers, compiled once when settings load so that dispatch only tests.
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
/** FileChanged and StopFailure: Claude Code reads only letters, digits, `_` and `|` as a list of names there. */
const SIMPLE_NARROW = /^[A-Za-z0-9_|]*$/;

export interface MatcherOptions {
  /** The narrow set of plain names (EventTraits.narrowNames): a `-`, space or comma makes the matcher a regex. */
  readonly narrowNames?: boolean;
}

/**
 * Longest match value a regex is tested against. Tool names, agent types and the like are short; the cap keeps a
 * slow pattern that slipped past `isCatastrophic` from stalling dispatch on a hostile value.
 */
export const MAX_MATCH_VALUE_LENGTH = 1024;

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
    const names = text.split(options.narrowNames ? "|" : /[|,]/).map((n) => n.trim()).filter((n) => n !== "");
    return { matcher: names.length === 0 ? { kind: "all" } : { kind: "names", names: new Set(names) }, warnings };
  }

  let regex: RegExp;
  try {
    regex = new RegExp(text);
  } catch (e) {
    // V8 quotes the whole pattern (`/<pattern>/: <reason>`): quote it cut to one line instead.
    const message = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, "") : String(e);
    const end = message.startsWith("/") ? message.lastIndexOf("/: ") : -1;
    const why = end > 0 ? `/${oneLineText(text)}/: ${oneLineText(message.slice(end + 3))}` : oneLineText(message);
    return { matcher: { kind: "never" }, warnings: [...warnings, `invalid regex (${why}); this group matches nothing`] };
  }
  const risk = riskOf(text);
  if (risk === "exponential") {
    return {
      matcher: { kind: "never" },
      warnings: [...warnings, `regex "${oneLineText(text)}" nests quantifiers and can take exponential time; this group matches nothing`],
    };
  }
  if (risk === "polynomial") {
    return {
      matcher: { kind: "never" },
      warnings: [
        ...warnings,
        `regex "${oneLineText(text)}" has more than ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers in a row and can take polynomial time; this group matches nothing`,
      ],
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

/** Why a regex matcher is refused: it can backtrack for minutes on a hostile value. Null for a safe pattern. */
export type BacktrackingRisk = "exponential" | "polynomial" | null;

/**
 * Most unbounded quantifiers (`*`, `+`, `{n,}`, `{n,m}` with a wide range) one alternative of a pattern may hold in
 * a row. Each one that can match the same characters as its neighbours multiplies the backtracking on a failing
 * value by its length: two (`mcp__.*__.*`, `.*Edit.*`) cost well under a second on 1,024 characters, three
 * (`a*a*a*b`, `\w*\w*\w*!`, `.*.*.*=`) take minutes. A quantifier that ends the pattern is not counted: nothing
 * after it can fail, so it never backtracks (`mcp__.*__.*_.*` is two).
 */
export const MAX_UNBOUNDED_QUANTIFIERS = 2;

/** True when `riskOf` refuses the pattern. Kept for callers of the earlier API. */
export function isCatastrophic(pattern: string): boolean {
  return riskOf(pattern) !== null;
}

/**
 * A conservative, syntactic check for the two shapes behind catastrophic backtracking, which V8 cannot time out:
 * - exponential: a quantified group whose body holds a quantifier or an alternation (`(a+)+`, `(\w*)*`, `(a|aa)+`);
 * - polynomial: more than MAX_UNBOUNDED_QUANTIFIERS unbounded quantifiers along one alternative (`a*a*a*b`).
 * It may refuse a harmless pattern (the warning says which), never the simple forms matchers are made of
 * (`mcp__.*`, `^Edit$`, `Bash|Write`, `mcp__(github|gitlab)__.*`).
 */
export function riskOf(pattern: string): BacktrackingRisk {
  // Per open group: does its body hold a quantifier or an alternation; the unbounded quantifiers of its current
  // alternative and the most of any alternative so far. The bottom frame is the whole pattern.
  interface Frame {
    risky: boolean;
    run: number;
    most: number;
  }
  const stack: Frame[] = [{ risky: false, run: 0, most: 0 }];
  let inClass = false;
  // Whether the last thing at the top level was an unbounded quantifier (free if the pattern ends there).
  let endsUnbounded = false;
  const closeAlternative = (frame: Frame, top: boolean) => {
    frame.most = Math.max(frame.most, frame.run - (top && endsUnbounded ? 1 : 0));
    frame.run = 0;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const frame = stack[stack.length - 1]!;
    const top = stack.length === 1;
    if (inClass) {
      if (c === "\\") i++;
      else if (c === "]") inClass = false;
      continue;
    }
    const quantifier = quantifierAt(pattern, i);
    if (quantifier) {
      // `?` alone is harmless inside a repeated group (V8 stops empty iterations); the others repeat.
      if (pattern[i] !== "?") frame.risky = true;
      if (quantifier.unbounded) frame.run++;
      if (top) endsUnbounded = quantifier.unbounded;
      i += quantifier.length - 1;
      // A lazy or possessive-looking suffix belongs to the quantifier.
      if (pattern[i + 1] === "?") i++;
      continue;
    }
    if (top) endsUnbounded = false;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "[") {
      inClass = true;
      continue;
    }
    if (c === "(") {
      stack.push({ risky: false, run: 0, most: 0 });
      // The group's kind is no quantifier: (?:…), (?=…), (?!…), (?<=…), (?<!…), (?<name>…).
      const kind = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(i + 1, i + 64));
      if (kind) i += kind[0].length;
      continue;
    }
    if (c === "|") {
      if (stack.length > 1) frame.risky = true;
      closeAlternative(frame, top);
      continue;
    }
    if (c === ")" && stack.length > 1) {
      const group = stack.pop()!;
      closeAlternative(group, false);
      const outer = stack[stack.length - 1]!;
      const after = quantifierAt(pattern, i + 1);
      if (group.risky && after) return "exponential";
      // A risky group inside another group makes the outer one risky too: ((a+)b)+
      if (group.risky || after) outer.risky = true;
      outer.run += group.most;
    }
  }
  closeAlternative(stack[0]!, true);
  return stack[0]!.most > MAX_UNBOUNDED_QUANTIFIERS ? "polynomial" : null;
}

/** A quantifier starting at `i`: `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`; unbounded when it may repeat widely. */
function quantifierAt(pattern: string, i: number): { length: number; unbounded: boolean } | null {
  const c = pattern[i];
  if (c === "*" || c === "+") return { length: 1, unbounded: true };
  if (c === "?") return { length: 1, unbounded: false };
  if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
    if (!m) return null;
    const unbounded = m[2] !== undefined && (m[3] === "" || Number(m[3]) - Number(m[1]) > 16);
    return { length: m[0].length, unbounded };
  }
  return null;
}
