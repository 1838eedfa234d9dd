import { formatPath } from "../schema/zodIssues.js";

/**
 * The line of every member and element of a JSON text, by its path as warnings write it
 * (`hooks.PreToolUse[0].hooks[1].timeout`, made by the same formatPath). One pass over the text, no recursion, so
 * a file of any shape costs its length and nothing more; text that is not JSON gives the lines found before the
 * defect. A member's line is its key's; an element's, where its value starts.
 */
export class JsonLines {
  private readonly lines = new Map<string, number>();

  constructor(text: string) {
    this.scan(text);
  }

  /** The line of `path`, else of its nearest ancestor that is in the text (a missing `timeout`: its hook's line). */
  lineOf(path: string | null): number | null {
    let p = path ?? "";
    for (;;) {
      const line = this.lines.get(p);
      if (line !== undefined) return line;
      if (p === "") return null;
      p = parentPath(p);
    }
  }

  private scan(text: string): void {
    type Frame = { readonly prefix: string; readonly array: boolean; index: number; expectKey: boolean; pending: boolean; key?: string };
    const stack: Frame[] = [];
    let line = 1;
    this.lines.set("", 1);
    const elementStarts = () => {
      const top = stack[stack.length - 1];
      if (top?.array && top.pending) {
        this.lines.set(`${top.prefix}[${top.index}]`, line);
        top.pending = false;
      }
    };
    let i = 0;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        line++;
        i++;
        continue;
      }
      if (c === 32 || c === 9 || c === 13 || c === 58 /* : */) {
        i++;
        continue;
      }
      const top = stack[stack.length - 1];
      if (c === 44 /* , */) {
        if (top?.array) {
          top.index++;
          top.pending = true;
        } else if (top) top.expectKey = true;
        i++;
        continue;
      }
      if (c === 125 /* } */ || c === 93 /* ] */) {
        stack.pop();
        i++;
        continue;
      }
      if (c === 34 /* " */) {
        const end = stringEnd(text, i);
        if (end < 0) return;
        if (top && !top.array && top.expectKey) {
          let key: string;
          try {
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            return;
          }
          this.lines.set(memberPath(top.prefix, key), line);
          top.key = key;
          top.expectKey = false;
        } else elementStarts();
        i = end + 1;
        continue;
      }
      elementStarts();
      if (c === 123 /* { */ || c === 91 /* [ */) {
        const parent = stack[stack.length - 1];
        const prefix = parent === undefined ? "" : parent.array ? `${parent.prefix}[${parent.index}]` : memberPath(parent.prefix, parent.key ?? "");
        stack.push({ prefix, array: c === 91, index: 0, expectKey: c === 123, pending: c === 91 });
        i++;
        continue;
      }
      // A number or a literal: up to the next delimiter.
      while (i < text.length && !DELIMITERS.has(text.charCodeAt(i))) i++;
    }
  }
}

const DELIMITERS = new Set([44, 93, 125, 32, 9, 10, 13, 58]);

const memberPath = (prefix: string, key: string): string => (prefix === "" ? formatPath([key]) : `${prefix}.${formatPath([key])}`);

/** Index of the closing quote of the string opening at `start`; -1 when the text ends inside it. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i += 2;
    else if (c === 34) return i;
    else if (c === 10) return -1;
    else i++;
  }
  return -1;
}

/** `a.b[2].c` -> `a.b[2]` -> `a.b` -> `a` -> ``. */
function parentPath(path: string): string {
  if (path.endsWith("]")) return path.slice(0, path.lastIndexOf("["));
  const dot = path.lastIndexOf(".");
  return dot < 0 ? "" : path.slice(0, dot);
}
