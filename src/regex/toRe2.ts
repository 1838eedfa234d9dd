/**
 * A user's JavaScript regex (as `new RegExp(source)` reads it: no flags, Annex B syntax) written for RE2, the
 * linear-time engine user regexes run on (userRegex.ts). Translated rather than handed over as is, because the two
 * read the same text differently: JavaScript's `.` stops at `\r` and U+2028/9 as well as `\n`, its `\s` takes the
 * Unicode spaces, `\a` is an `a` (RE2: the bell), `\1` with no group is octal 1, `{` that starts no count is a
 * `{`. Every group becomes non-capturing: only whole matches are used.
 *
 * What RE2 cannot run is refused, with its kind: backreferences and lookaround (no linear-time engine runs them),
 * a program too large for the work bound (repeat counts past RE2's 1,000, nested or not, or more than
 * MAX_PROGRAM_SIZE instructions), and lone surrogate escapes (RE2 reads code points, never half of one).
 *
 * Over 300 lines on purpose: it is one recursive-descent reader of one grammar (JavaScript's pattern syntax), whose
 * parts call each other; split, each part would need the reader's state passed around. The code-point sets it
 * builds classes from are their own file (codePointRanges.ts).
 */

import { DIGIT, LINE_TERMINATORS, SPACE, WORD, classText, complement, literal, reachesAstral, type Ranges } from "./codePointRanges.js";

/** Why a regex is not run: each kind is a different thing for the user to change. */
export type RegexRefusalKind = "invalid" | "backreference" | "lookaround" | "too-large" | "unsupported";

export interface RegexRefusal {
  readonly kind: RegexRefusalKind;
  /** One line: what in the pattern is the problem. */
  readonly detail: string;
}

export type Re2Translation =
  | {
      readonly ok: true;
      /** RE2 syntax, to compile with no flags. */
      readonly re2: string;
      /** Estimated size of RE2's program (its instruction count, as RE2JS.programSize() reports it, roughly). */
      readonly size: number;
      /** True when the pattern can match the empty string. */
      readonly nullable: boolean;
      /** Longest match, in UTF-16 code units; Infinity when unbounded. */
      readonly maxLength: number;
    }
  | { readonly ok: false; readonly refusal: RegexRefusal };

/**
 * Most instructions a user regex may compile to. Matching costs at most this many steps per character of text
 * (userRegex.ts turns it into the work bound); the patterns matchers and redaction are made of use a few dozen
 * (`mcp__.*` is 10, the issue's `([^\u0000]{0,16}){7}` about 230).
 */
export const MAX_PROGRAM_SIZE = 1000;
/** RE2's own limit on a repeat count, and on the product of nested counts. */
const MAX_REPEAT = 1000;

interface Node {
  readonly re2: string;
  readonly size: number;
  readonly nullable: boolean;
  /** Largest product of nested repeat counts inside (RE2 refuses past MAX_REPEAT). */
  readonly repeat: number;
  /** Longest text it matches, in UTF-16 code units (Infinity: unbounded). */
  readonly maxLength: number;
}

class Refused extends Error {
  constructor(readonly refusal: RegexRefusal) {
    super(refusal.detail);
  }
}

const refuse = (kind: RegexRefusalKind, detail: string): never => {
  throw new Refused({ kind, detail });
};

/** One character (a class or a literal: two code units when it can be past U+FFFF), or an assertion (none). */
const leaf = (re2: string, maxLength: number): Node => ({ re2, size: 1, nullable: maxLength === 0, repeat: 1, maxLength });
const charLeaf = (re2: string, astral: boolean): Node => leaf(re2, astral ? 2 : 1);

const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

class Parser {
  private i = 0;
  private readonly groups: number;
  private readonly named: boolean;

  constructor(private readonly src: string) {
    const counted = countGroups(src);
    this.groups = counted.groups;
    this.named = counted.named;
  }

  parse(): Node {
    const node = this.disjunction();
    // V8 read the whole pattern already; anything left is a `)` without its `(`, which V8 refuses.
    if (this.i < this.src.length) refuse("unsupported", `unexpected "${this.src[this.i]}" at ${this.i}`);
    return node;
  }

  private disjunction(): Node {
    const alternatives = [this.alternative()];
    while (this.src[this.i] === "|") {
      this.i++;
      alternatives.push(this.alternative());
    }
    if (alternatives.length === 1) return alternatives[0]!;
    return {
      re2: alternatives.map((a) => a.re2).join("|"),
      size: alternatives.reduce((n, a) => n + a.size, alternatives.length - 1),
      nullable: alternatives.some((a) => a.nullable),
      repeat: alternatives.reduce((n, a) => Math.max(n, a.repeat), 1),
      maxLength: alternatives.reduce((n, a) => Math.max(n, a.maxLength), 0),
    };
  }

  private alternative(): Node {
    const terms: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") terms.push(this.term());
    return {
      // Each term is grouped where a quantifier could otherwise bind to part of it: terms are whole already.
      re2: terms.map((t) => t.re2).join(""),
      size: terms.reduce((n, t) => n + t.size, 0),
      nullable: terms.every((t) => t.nullable),
      repeat: terms.reduce((n, t) => Math.max(n, t.repeat), 1),
      maxLength: terms.reduce((n, t) => n + t.maxLength, 0),
    };
  }

  private term(): Node {
    const atom = this.atom();
    return this.quantified(atom);
  }

  private quantified(atom: Node): Node {
    const c = this.src[this.i];
    let min: number;
    let max: number | null;
    if (c === "*") [min, max] = [0, null];
    else if (c === "+") [min, max] = [1, null];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.i, this.i + 64));
      // Annex B: a `{` that starts no count is a `{` (the atom ends before it).
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    const lazy = this.src[this.i] === "?";
    if (lazy) this.i++;
    const counted = c === "{";
    const top = max ?? min;
    if (counted && (min > MAX_REPEAT || (max !== null && max > MAX_REPEAT)))
      refuse("too-large", `repeat count {${min}${max === min ? "" : `,${max ?? ""}`}} is more than ${MAX_REPEAT}`);
    const repeat = counted ? atom.repeat * Math.max(top, 1) : atom.repeat;
    if (repeat > MAX_REPEAT) refuse("too-large", `nested repeat counts multiply to more than ${MAX_REPEAT}`);
    const op = counted ? `{${min}${max === min ? "" : `,${max ?? ""}`}}` : c!;
    // RE2 writes a repeat out: x{2,5} is two copies of x and three optional ones.
    const copies = counted ? Math.max(top, 1) : 1;
    const size = atom.size * copies + (max === null ? 1 : max - min) + 1;
    const maxLength = atom.maxLength === 0 ? 0 : max === null ? Infinity : atom.maxLength * max;
    return { re2: `(?:${atom.re2})${op}${lazy ? "?" : ""}`, size, nullable: atom.nullable || min === 0, repeat, maxLength };
  }

  private atom(): Node {
    const c = this.src[this.i]!;
    switch (c) {
      case "^":
        this.i++;
        return leaf("^", 0);
      case "$":
        this.i++;
        return leaf("$", 0);
      case ".":
        this.i++;
        return charLeaf(classText(complement(LINE_TERMINATORS)), true);
      case "(":
        return this.group();
      case "[":
        return this.characterClass();
      case "\\":
        return this.escape();
      default: {
        const code = this.src.codePointAt(this.i)!;
        this.i += code > 0xffff ? 2 : 1;
        return charLeaf(literal(code), code > 0xffff);
      }
    }
  }

  private group(): Node {
    const rest = this.src.slice(this.i, this.i + 4);
    if (rest.startsWith("(?=") || rest.startsWith("(?!")) refuse("lookaround", `lookahead ${rest.slice(0, 3)}…) at ${this.i}`);
    if (rest.startsWith("(?<=") || rest.startsWith("(?<!")) refuse("lookaround", `lookbehind ${rest}…) at ${this.i}`);
    if (rest.startsWith("(?:")) this.i += 3;
    else if (rest.startsWith("(?<")) this.i = this.src.indexOf(">", this.i) + 1;
    else this.i += 1;
    const inner = this.disjunction();
    // V8 checked that every group closes.
    this.i++;
    return { ...inner, re2: `(?:${inner.re2})` };
  }

  private escape(): Node {
    const next = this.src[this.i + 1];
    if (next === undefined) refuse("unsupported", "a trailing backslash");
    const classEscape = this.classEscape(next!);
    if (classEscape) {
      this.i += 2;
      return charLeaf(classText(classEscape), reachesAstral(classEscape));
    }
    if (next === "b" || next === "B") {
      this.i += 2;
      return leaf(`\\${next}`, 0);
    }
    if (isDigit(next) && next !== "0") {
      const digits = /^\d+/.exec(this.src.slice(this.i + 1))![0];
      if (Number(digits) <= this.groups) refuse("backreference", `backreference \\${digits} at ${this.i}`);
    }
    if (next === "k" && this.named) refuse("backreference", `backreference \\k${this.src.slice(this.i + 2, this.src.indexOf(">", this.i) + 1)} at ${this.i}`);
    const code = this.characterEscape(false);
    return charLeaf(literal(code), code > 0xffff);
  }

  /** `\d`, `\w`, `\s` and their complements, as ranges; null for any other escape. */
  private classEscape(c: string): Ranges | null {
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      default:
        return null;
    }
  }

  /**
   * The character an escape stands for, `this.i` at its backslash, which it moves past: the control, hex, unicode
   * and legacy octal escapes, and (Annex B) any other character as itself.
   */
  private characterEscape(inClass: boolean): number {
    const s = this.src;
    const next = s[this.i + 1]!;
    const simple: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, f: 0x0c };
    if (simple[next] !== undefined) {
      this.i += 2;
      return simple[next];
    }
    if (inClass && next === "b") {
      this.i += 2;
      return 0x08;
    }
    if (next === "c") {
      const letter = s[this.i + 2];
      if (letter !== undefined && (/[A-Za-z]/.test(letter) || (inClass && /[0-9_]/.test(letter)))) {
        this.i += 3;
        return letter.charCodeAt(0) % 32;
      }
      // Annex B: `\c` before anything else is a backslash, and the `c` is read next on its own.
      this.i += 1;
      return 0x5c;
    }
    if (next === "x" && isHex(s[this.i + 2]) && isHex(s[this.i + 3])) {
      this.i += 4;
      return parseInt(s.slice(this.i - 2, this.i), 16);
    }
    if (next === "u" && /^[0-9A-Fa-f]{4}$/.test(s.slice(this.i + 2, this.i + 6))) {
      const unit = parseInt(s.slice(this.i + 2, this.i + 6), 16);
      this.i += 6;
      if (unit < 0xd800 || unit > 0xdfff) return unit;
      const low = /^\\u([0-9A-Fa-f]{4})/.exec(s.slice(this.i, this.i + 6));
      const lowUnit = low ? parseInt(low[1]!, 16) : -1;
      if (unit <= 0xdbff && lowUnit >= 0xdc00 && lowUnit <= 0xdfff) {
        this.i += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (lowUnit - 0xdc00);
      }
      return refuse("unsupported", `lone surrogate \\u${unit.toString(16)} (the engine reads whole characters)`);
    }
    if (next >= "0" && next <= "7") {
      // Legacy octal: up to three digits, at most \377. (\0 alone is NUL.)
      const m = /^[0-7]{1,3}/.exec(s.slice(this.i + 1, this.i + 4))![0];
      const digits = parseInt(m, 8) > 0o377 ? m.slice(0, 2) : m;
      this.i += 1 + digits.length;
      return parseInt(digits, 8);
    }
    // Any other character stands for itself (`\/`, `\-`, `\a`, `\8`, `\k` with no named group, `\p`).
    const code = s.codePointAt(this.i + 1)!;
    this.i += code > 0xffff ? 3 : 2;
    return code;
  }

  private characterClass(): Node {
    this.i++;
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const ranges: Ranges = [];
    // One class atom: a character, or the ranges of a class escape.
    const atom = (): number | Ranges => {
      if (this.src[this.i] === "\\") {
        const set = this.classEscape(this.src[this.i + 1] ?? "");
        if (set) {
          this.i += 2;
          return set;
        }
        return this.characterEscape(true);
      }
      const code = this.src.codePointAt(this.i)!;
      this.i += code > 0xffff ? 2 : 1;
      return code;
    };
    while (this.i < this.src.length && this.src[this.i] !== "]") {
      const from = atom();
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && this.i + 1 < this.src.length) {
        const save = this.i;
        this.i++;
        const to = atom();
        if (typeof from === "number" && typeof to === "number") {
          ranges.push([from, to]);
          continue;
        }
        // Annex B: a class escape at either end makes the `-` a `-`.
        this.i = save;
      }
      if (typeof from === "number") ranges.push([from, from]);
      else ranges.push(...from);
    }
    this.i++;
    const set = negated ? complement(ranges) : ranges;
    return charLeaf(classText(set), reachesAstral(set));
  }
}

/** Capturing groups in a pattern (they decide whether `\2` is a backreference), and whether any is named. */
function countGroups(src: string): { groups: number; named: boolean } {
  let groups = 0;
  let named = false;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") {
      if (src[i + 1] !== "?") groups++;
      else if (src[i + 2] === "<" && src[i + 3] !== "=" && src[i + 3] !== "!") {
        groups++;
        named = true;
      }
    }
  }
  return { groups, named };
}

/**
 * `source` for RE2, or why it cannot run there. `source` must be a valid JavaScript regex (`new RegExp(source)`
 * succeeded): its syntax is not checked again.
 */
export function toRe2(source: string): Re2Translation {
  // Longer than any pattern that fits the program size (the longest single-instruction atom is a class of two
  // \uXXXX bounds), and deep nesting would overflow the parser's stack.
  if (source.length > MAX_PROGRAM_SIZE * 16) return { ok: false, refusal: { kind: "too-large", detail: `${source.length} characters long` } };
  try {
    const node = new Parser(source).parse();
    // The program's own start and match instructions.
    const size = node.size + 2;
    if (size > MAX_PROGRAM_SIZE) refuse("too-large", `about ${size} instructions, more than ${MAX_PROGRAM_SIZE}`);
    return { ok: true, re2: node.re2, size, nullable: node.nullable, maxLength: node.maxLength };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, refusal: e.refusal };
    if (e instanceof RangeError) return { ok: false, refusal: { kind: "too-large", detail: "groups nested too deeply" } };
    throw e;
  }
}

/** A refusal in words, for a warning. */
export function refusalText(refusal: RegexRefusal): string {
  switch (refusal.kind) {
    case "invalid":
      return `invalid: ${refusal.detail}`;
    case "backreference":
      return `it uses a ${refusal.detail}`;
    case "lookaround":
      return `it uses a ${refusal.detail}`;
    case "too-large":
      return `too large: ${refusal.detail}`;
    case "unsupported":
      return `unsupported: ${refusal.detail}`;
  }
}
