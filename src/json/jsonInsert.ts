import * as jsonc from "jsonc-parser";

/**
 * Adding one value to a JSON document as a text insertion, so that every other byte of the file stays: key order,
 * number forms (`0.50`), escapes (`\u00e9`), spacing, line endings, one-line groups. jsonc-parser (the parser of
 * VS Code's JSON editing) finds where things are; the new text follows the file's own style: on lines of its own,
 * indented like its siblings with the file's indentation and line ending, or inline where its siblings are inline.
 * (jsonc-parser's own `modify` re-formats the whole lines it touches, neighbours included.)
 */
export interface JsonStyle {
  /** One indentation level: a tab, or some spaces. */
  readonly unit: string;
  readonly eol: string;
  /** The whole document is on one line: additions stay on it. */
  readonly compact: boolean;
}

export function styleOf(text: string): JsonStyle {
  const indent = /^([ \t]+)["{[\]}]/m.exec(text)?.[1];
  return {
    unit: indent?.startsWith("\t") ? "\t" : " ".repeat(indent?.length ?? 2),
    eol: text.includes("\r\n") ? "\r\n" : "\n",
    compact: !/[\r\n]/.test(text.trim()),
  };
}

export type JsonPath = (string | number)[];

/** Appends `value` to the array at `path`. */
export function appendToArray(text: string, path: JsonPath, value: unknown, style: JsonStyle): string {
  const array = nodeAt(text, path, "array");
  const items = array.children ?? [];
  const last = items[items.length - 1];
  const inline = inlineLike(text, last ?? array, value);
  if (last !== undefined) return after(text, last, inline, (base) => pretty(value, base, style), style);
  return fillEmpty(text, array, inline, (base) => pretty(value, base, style), style);
}

/** Adds the property `key: value` to the object at `path` (which has no such key), as its last property. */
export function addProperty(text: string, path: JsonPath, key: string, value: unknown, style: JsonStyle): string {
  const object = nodeAt(text, path, "object");
  const properties = object.children ?? [];
  const compact = `${JSON.stringify(key)}: ${inlineLike(text, properties[properties.length - 1] ?? object, value)}`;
  const spread = (base: string) => `${JSON.stringify(key)}: ${pretty(value, base, style)}`;
  if (properties.length > 0) return after(text, properties[properties.length - 1]!, compact, spread, style);
  return fillEmpty(text, object, compact, spread, style);
}

function nodeAt(text: string, path: JsonPath, type: jsonc.NodeType): jsonc.Node {
  const node = jsonc.findNodeAtLocation(jsonc.parseTree(text)!, path);
  if (node?.type !== type) throw new Error(`no ${type} at ${path.join(".")}`);
  return node;
}

/** `value` on one line, spaced like the JSON text of `like` (`{ "a": 1 }`) or not (`{"a":1}`). */
function inlineLike(text: string, like: jsonc.Node, value: unknown): string {
  const sample = text.slice(like.offset, like.offset + like.length);
  return /": |, |\{ |\[ /.test(sample) ? spaced(value) : JSON.stringify(value);
}

function spaced(value: unknown): string {
  if (Array.isArray(value)) return value.length ? `[ ${value.map(spaced).join(", ")} ]` : "[]";
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${spaced(v)}`).join(", ")} }` : "{}";
  }
  return JSON.stringify(value);
}

/** `value` as indented JSON whose lines after the first start with `base`. */
const pretty = (value: unknown, base: string, style: JsonStyle) =>
  JSON.stringify(value, null, style.unit)
    .split("\n")
    .join(style.eol + base);

/** The whitespace before `offset` on its line, or null when something else comes first on that line. */
function indentBefore(text: string, offset: number): string | null {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const lead = text.slice(start, offset);
  return /^[ \t]*$/.test(lead) ? lead : null;
}

/** Text inserted after an existing sibling: on a line of its own like the sibling, or inline like it. */
function after(text: string, sibling: jsonc.Node, compact: string, spread: (base: string) => string, style: JsonStyle): string {
  const end = sibling.offset + sibling.length;
  const base = indentBefore(text, sibling.offset);
  const insertion = base === null || style.compact ? `, ${compact}` : `,${style.eol}${base}${spread(base)}`;
  return text.slice(0, end) + insertion + text.slice(end);
}

/** The first entry of an empty `[]` or `{}`. */
function fillEmpty(text: string, container: jsonc.Node, compact: string, spread: (base: string) => string, style: JsonStyle): string {
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const start = text.lastIndexOf("\n", open - 1) + 1;
  const outer = /^[ \t]*/.exec(text.slice(start, open))![0];
  const inside = style.compact ? compact : `${style.eol}${outer}${style.unit}${spread(outer + style.unit)}${style.eol}${outer}`;
  return text.slice(0, open + 1) + inside + text.slice(close);
}
