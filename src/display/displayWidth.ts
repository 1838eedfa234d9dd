import stringWidth from "string-width";

/**
 * Columns a string takes on a terminal: CJK characters and emoji take two, combining marks none. Measured by
 * `string-width` (East Asian Width and emoji sequences as terminals draw them), not by `.length`, which counts
 * UTF-16 units and misaligns every table with Chinese, Japanese or emoji in it.
 */
export const displayWidth = (text: string): number => stringWidth(text);

const graphemes = new Intl.Segmenter();

/**
 * `text` cut to at most `width` columns with `ellipsis` marking the cut, never inside a character or an emoji
 * sequence. `from: "start"` keeps the end (`…/project/.qoder/settings.json`), for paths.
 */
export function fitWidth(text: string, width: number, ellipsis: string, from: "end" | "start" = "end"): string {
  // A megabyte of hook output in one cell is measured no further than it could possibly show.
  const sample = text.length > width * 4 + 64 ? around(text, width * 4 + 64, from) : text;
  if (sample === text && displayWidth(text) <= width) return text;
  const room = width - displayWidth(ellipsis);
  if (room <= 0) return ellipsis.slice(0, Math.max(0, width));
  const parts = Array.from(graphemes.segment(sample), (s) => s.segment);
  if (from === "start") parts.reverse();
  let kept = "";
  let used = 0;
  for (const part of parts) {
    const w = displayWidth(part);
    if (used + w > room) break;
    kept = from === "start" ? part + kept : kept + part;
    used += w;
  }
  return from === "start" ? ellipsis + kept : kept + ellipsis;
}

/** The first (or last) `units` UTF-16 units of `text`, never half a surrogate pair. */
function around(text: string, units: number, from: "end" | "start"): string {
  const isLow = (i: number) => (text.charCodeAt(i) & 0xfc00) === 0xdc00;
  if (from === "end") return text.slice(0, isLow(units) ? units - 1 : units);
  const start = text.length - units;
  return text.slice(isLow(start) ? start + 1 : start);
}

/** `text` padded with spaces to `width` columns. */
export function padWidth(text: string, width: number, align: "left" | "right" = "left"): string {
  const pad = " ".repeat(Math.max(0, width - displayWidth(text)));
  return align === "left" ? text + pad : pad + text;
}
