import type { RE2JS } from "re2js";
import { re2js } from "./loadRe2.js";
import { MAX_PROGRAM_SIZE, toRe2, type RegexRefusal } from "./toRe2.js";

/**
 * A regex from the user's settings (a matcher, a `qhooks.redact` pattern), run by RE2 (re2js, pure JavaScript):
 * no backtracking, so each character of text costs at most one step per instruction of the program, whatever the
 * pattern. That cost is counted before each search, and a search that could go past its bound is not started:
 * the answer is "cannot tell" (undefined), which the caller turns into the safe side (the hook runs, the string is
 * masked whole).
 */
export interface UserRegex {
  /** As written (JavaScript syntax). */
  readonly source: string;
  /** True when it can match the empty string. */
  readonly nullable: boolean;
  /** Whether it matches somewhere in `value`; undefined when that cannot be told within MATCH_WORK_LIMIT. */
  test(value: string): boolean | undefined;
  /**
   * `text` with every match replaced by `replacement(match)`, line by line in pieces of REDACT_WINDOW characters;
   * undefined when finding them all could take more than REDACT_WORK_FACTOR passes over the text.
   */
  replace(text: string, replacement: (match: string) => string): string | undefined;
}

export type CompiledUserRegex = { readonly ok: true; readonly regex: UserRegex } | { readonly ok: false; readonly refusal: RegexRefusal };

/**
 * Most steps (instructions times characters) one matcher test may take: a value of 1,024 characters against the
 * largest program allowed. A longer value against a large pattern is not tested.
 */
export const MATCH_WORK_LIMIT = MAX_PROGRAM_SIZE * 1024;
/**
 * Longest piece of text a redaction pattern searches at once: text is cut into lines, and lines into pieces of this
 * length, so that a search that finds a match early never pays for the rest of a long text. A secret cut in two by
 * a piece's end is not found by a user's pattern.
 */
export const REDACT_WINDOW = 1024;
/** Steps a redaction may take: this many passes of the whole program over the text. */
export const REDACT_WORK_FACTOR = 8;

/** A user's regex, checked: refused when it is not valid JavaScript or RE2 cannot run it (with the kind of why). */
export function compileUserRegex(source: string): CompiledUserRegex {
  try {
    // Only compiled (V8 compiles lazily; nothing is matched): the syntax is JavaScript's, and so are its errors.
    new RegExp(source);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const reason = message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
    return { ok: false, refusal: { kind: "invalid", detail: reason } };
  }
  const translated = toRe2(source);
  if (!translated.ok) return translated;
  return { ok: true, regex: new Re2Regex(source, translated.re2, translated.size, translated.nullable, translated.maxLength) };
}

class Re2Regex implements UserRegex {
  /** Compiled at the first test: a run whose events never reach this regex does not load the engine. null: failed. */
  private program: RE2JS | null | undefined;

  constructor(
    readonly source: string,
    private readonly re2: string,
    /** The estimate until compiled, then RE2's own count. */
    private size: number,
    readonly nullable: boolean,
    private readonly maxLength: number,
  ) {}

  private compiled(): RE2JS | null {
    if (this.program === undefined) {
      try {
        const program = re2js().RE2JS.compile(this.re2);
        this.size = program.programSize();
        // The estimate refuses what is too large before this; RE2's count is the one that bounds the work.
        this.program = this.size <= MAX_PROGRAM_SIZE ? program : null;
      } catch {
        this.program = null;
      }
    }
    return this.program;
  }

  test(value: string): boolean | undefined {
    const program = this.compiled();
    if (program === null || this.size * (value.length + 1) > MATCH_WORK_LIMIT) return undefined;
    return program.test(value);
  }

  replace(text: string, replacement: (match: string) => string): string | undefined {
    const program = this.compiled();
    if (program === null) return undefined;
    let budget = REDACT_WORK_FACTOR * this.size * (text.length + 1);
    let out = "";
    let changed = false;
    for (const line of text.length <= REDACT_WINDOW ? [text] : text.split(/(?<=\n)/)) {
      for (let start = 0; start < line.length || start === 0; start += REDACT_WINDOW) {
        const piece = line.length <= REDACT_WINDOW ? line : line.slice(start, start + REDACT_WINDOW);
        const matcher = program.matcher(piece);
        let at = 0;
        let copied = 0;
        while (at <= piece.length) {
          // A search from `at` steps through the rest of the piece at most; when a match of bounded length is
          // found, no further than its start plus that length.
          budget -= this.size * (piece.length - at + 1);
          if (budget < 0) return undefined;
          if (!matcher.find(at)) break;
          const from = matcher.start();
          const to = matcher.end();
          if (this.maxLength !== Infinity) budget += this.size * Math.max(0, piece.length - Math.min(piece.length, from + this.maxLength));
          if (to > from) {
            out += piece.slice(copied, from) + replacement(piece.slice(from, to));
            copied = to;
            changed = true;
          }
          at = to > from ? to : to + 1;
        }
        out += piece.slice(copied);
        if (line.length <= REDACT_WINDOW) break;
      }
    }
    return changed ? out : text;
  }
}
