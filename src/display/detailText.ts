import { paint, type Style } from "./colour.js";
import { displayWidth, padWidth } from "./displayWidth.js";
import type { Terminal } from "./terminal.js";
import { escapeForTerminal, escapeToAscii } from "./terminalText.js";

/**
 * Human output of one thing in full (`qhooks show`): labelled fields, and blocks of text (a payload, a hook's
 * output) kept on their own lines. Everything from the log goes through the terminal's escape first, as in the
 * tables: a field is one line (its line breaks shown as `\n`), a block keeps its line breaks and escapes the rest.
 */
export interface DetailText {
  /** One line: every character a terminal would act on escaped (`\n`, `\u001b`). */
  readonly line: (text: string) => string;
  /** Several lines: each line escaped, the line breaks kept. */
  readonly lines: (text: string) => string[];
  /** Text already escaped, in a colour when the terminal takes colour (colour.ts), as it is otherwise. */
  readonly paint: (text: string, style: Style | null) => string;
}

export function detailText(terminal: Pick<Terminal, "utf8" | "colour">): DetailText {
  const escapeText = terminal.utf8 ? escapeForTerminal : escapeToAscii;
  return {
    line: escapeText,
    lines: (text) => text.replace(/\r\n/g, "\n").split("\n").map(escapeText),
    paint: (text, style) => paint(text, style, terminal.colour === true),
  };
}

/** A field of `fieldLines`: a label and one line of value (already escaped), or several; null or undefined: left out. */
export type Field = readonly [label: string, value: string | readonly string[] | null | undefined];

/**
 * `label  value` lines, the values aligned after the widest label; a value of several lines continues under its
 * first line.
 */
export function fieldLines(fields: readonly Field[], indent = "  "): string[] {
  const shown = fields.filter((f): f is readonly [string, string | readonly string[]] => f[1] !== null && f[1] !== undefined);
  const width = shown.reduce((w, [label]) => Math.max(w, displayWidth(label)), 0);
  const lines: string[] = [];
  for (const [label, value] of shown) {
    const values = typeof value === "string" ? [value] : value.length ? value : [""];
    values.forEach((v, i) => lines.push(`${indent}${padWidth(i === 0 ? label : "", width)}  ${v}`.trimEnd()));
  }
  return lines;
}

/** Lines of a block under a heading, indented; `empty` when there are none. */
export function indented(lines: readonly string[], indent = "  "): string[] {
  return lines.map((l) => (l === "" ? "" : indent + l));
}

/** `12 ms`, `1.5 ms`, `2.3 s`. */
export function durationText(ms: number | null): string {
  if (ms === null) return "-";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms * 10) / 10} ms`;
}
