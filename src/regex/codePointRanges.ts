/** Sets of code points as RE2 reads them, and JavaScript's character classes (`\d`, `\w`, `\s`, `.`) as such sets. */

export type Ranges = [number, number][];
export const MAX_CODE_POINT = 0x10ffff;
export const DIGIT: Ranges = [[0x30, 0x39]];
export const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** JavaScript's `\s`: ECMAScript WhiteSpace and LineTerminator (RE2's `\s` is ASCII only). */
export const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** What JavaScript's `.` does not match without the `s` flag. */
export const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

export function normalise(ranges: Ranges): Ranges {
  const sorted = ranges.map(([a, b]): [number, number] => [a, b]).sort((x, y) => x[0] - y[0]);
  const out: Ranges = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

export function complement(ranges: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [a, b] of normalise(ranges)) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export const reachesAstral = (ranges: Ranges) => ranges.some(([, b]) => b > 0xffff);

export const hex = (c: number) => `\\x{${c.toString(16)}}`;

/** A class for RE2, every bound written as a code point: nothing in it can be read as syntax. */
export function classText(ranges: Ranges): string {
  const n = normalise(ranges);
  if (n.length === 0) return `[^\\x{0}-\\x{10ffff}]`;
  return `[${n.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join("")}]`;
}

/** One character for RE2, outside a class. */
export function literal(c: number): string {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return String.fromCharCode(c);
  // RE2 reads a backslash before any ASCII punctuation as that character.
  if (c > 0x20 && c < 0x7f) return `\\${String.fromCharCode(c)}`;
  return hex(c);
}
