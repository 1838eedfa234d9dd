import { oneLineText } from "../text/oneLine.js";

/** Where JSON.parse gave up, as line and column: V8 only sometimes says, and never as a line. */
export function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const offset = jsonErrorOffset(text);
  const upTo = text.slice(0, offset);
  const line = upTo.split("\n").length;
  const column = offset - upTo.lastIndexOf("\n");
  // V8 quotes the text around the mistake, `..."…"...` when it cuts it: drop the quote, which can span lines and
  // holds what the file or payload says (one line per message, nothing of the content echoed). What is left may still
  // quote the one character V8 stopped at, a raw newline when that is where the text broke off.
  const what = message.replace(/ in JSON at position \d+[\s\S]*$/, "").replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, "");
  return `line ${line} column ${column}: ${oneLineText(what)}`;
}

/**
 * Offset of the first character at which `text` stops being JSON. Only called after JSON.parse has failed, so it
 * need not be fast; it follows RFC 8259 closely enough to point at the mistake a person made. It walks the text
 * with an explicit stack of open arrays and objects, never recursion: the text may nest a million levels deep.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) i--, fail();
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if ('"\\/bfnrt'.includes(text[i] ?? "x")) i++;
        else fail();
      } else if (c < " ") fail();
      else i++;
    }
    fail();
  };
  const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  const number = () => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m || m[0] === "" || m[0] === "-") fail();
    i += m![0].length;
  };
  /** The open containers, innermost last: `{` or `[`. */
  const open: string[] = [];
  /** Reads one scalar, or opens a container; false when a container was opened (its members come next). */
  const valueStart = (): boolean => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      open.push(c);
      return false;
    }
    if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) number();
    else fail();
    return true;
  };
  const key = () => {
    ws();
    if (text[i] !== '"') fail();
    string();
    ws();
    if (text[i] !== ":") fail();
    i++;
  };
  try {
    // After a value (or at a container's start), close what ends and open the next member, until the top value ends.
    let done = valueStart();
    let justOpened = !done;
    for (;;) {
      if (open.length === 0) break;
      ws();
      const top = open[open.length - 1]!;
      const closer = top === "{" ? "}" : "]";
      if (justOpened && text[i] === closer) {
        i++;
        open.pop();
        justOpened = false;
        continue;
      }
      if (!justOpened) {
        if (text[i] === ",") i++;
        else if (text[i] === closer) {
          i++;
          open.pop();
          continue;
        } else fail();
      }
      if (top === "{") key();
      done = valueStart();
      justOpened = !done;
    }
    ws();
    return Math.min(i, text.length);
  } catch (offset) {
    return typeof offset === "number" ? Math.min(offset, text.length) : 0;
  }
}
