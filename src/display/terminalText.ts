/**
 * Text from payloads, hook output and settings files reaches the terminal through the human output of `log`,
 * `sessions`, `replay` and `hooks`. A terminal acts on some characters instead of showing them: escape sequences
 * (colours, cursor moves, window titles, clipboard writes), carriage returns and line breaks that forge lines, and
 * bidirectional overrides that show text in another order than it is. Human output shows each of them as an escape
 * (`\u001b`, `\n`), so what is on screen is what is in the log. JSON output stays exact.
 */

// C0 controls, DEL, C1 controls, line and paragraph separators, bidirectional marks, overrides and isolates, and
// UTF-16 halves without their other half (which a terminal would show as U+FFFD, hiding that they are there).
const ACTS_ON_TERMINAL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, "0")}`;

/** `text` with every character a terminal would act on written as an escape (`\n`, `\t`, `\u001b`). */
export function escapeForTerminal(text: string): string {
  return text.replace(ACTS_ON_TERMINAL, (c) => NAMED[c] ?? hex4(c.charCodeAt(0)));
}

/**
 * For a terminal whose locale is not UTF-8 (`LANG=C`, `en_US.ISO-8859-1`): every character outside ASCII as an
 * escape too, so that nothing prints as mojibake and every column is one character wide.
 */
export function escapeToAscii(text: string): string {
  // eslint-disable-next-line no-control-regex
  return escapeForTerminal(text).replace(/[^\u0000-\u007f]/gu, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : hex4(code);
  });
}

/**
 * One cell of tab-separated output: tab, line breaks and backslash escaped as in the usual TSV convention
 * (`\t`, `\n`, `\r`, `\\`), so that every row is one line and every cell can be read back; other terminal
 * controls as in human output.
 */
export function escapeTsvCell(text: string): string {
  return escapeForTerminal(text.replaceAll("\\", "\\\\"));
}
