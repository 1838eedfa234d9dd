import { escapeForTerminal } from "../display/terminalText.js";

/**
 * HTML built from template literals, where every interpolated value is text unless it is itself `Html`: payloads,
 * reasons, hook output and names from the log can never open a tag, close an attribute or start a script. Markup
 * comes only from the literal parts of `html` templates in qhooks' own code.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for an HTML text node or a quoted attribute value. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

const partText = (part: Part): string => {
  if (part === null || part === undefined || part === false) return "";
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(partText).join("");
  return escapeHtml(String(part));
};

/** `html\`<td>${reason}</td>\``: the literal parts as markup, the values escaped (arrays joined, null left out). */
export function html(strings: TemplateStringsArray, ...values: readonly Part[]): Html {
  let text = strings[0]!;
  values.forEach((v, i) => (text += partText(v) + strings[i + 1]!));
  return new Html(text);
}

/**
 * One line of text from the log as the page shows it: characters that would not show as themselves (controls,
 * line breaks, bidirectional overrides that reorder what is read) written as escapes, as on a terminal. Escaping for
 * HTML comes after, from `html`.
 */
export const visible = (text: string): string => escapeForTerminal(text);

/** Text of several lines (hook output, a payload): line breaks kept, the rest as `visible`. */
export const visibleLines = (text: string): string => text.replace(/\r\n/g, "\n").split("\n").map(escapeForTerminal).join("\n");

/** At most `max` characters of `text`, saying how much was left out. */
export function capped(text: string, max: number, rest: string): string {
  if (text.length <= max) return text;
  const cut = (text.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return `${text.slice(0, cut)}\n… ${text.length - cut} more characters (${rest})`;
}
