import { paint, type Style } from "./colour.js";
import { displayWidth, fitWidth } from "./displayWidth.js";
import type { Terminal } from "./terminal.js";
import { escapeForTerminal, escapeToAscii, escapeTsvCell } from "./terminalText.js";

/** One column of a listing, shown as a table on a terminal and as tab-separated values elsewhere. */
export interface Column<R> {
  readonly header: string;
  readonly cell: (row: R) => string;
  /** The value in tab-separated output when it differs from the table's (a whole id, an ISO time with its zone). */
  readonly tsv?: (row: R) => string;
  /** Widest a cell is shown, even when there is room. */
  readonly max?: number;
  /** Narrowest the column may be cut to when the table must fit the terminal; without it, it is never cut. */
  readonly min?: number;
  /** Which columns stay when the terminal is too narrow for all of them: the lowest goes first. */
  readonly keep: number;
  readonly align?: "left" | "right";
  /** Where a long cell is cut: at its end (the default), or at its start for paths, whose end says most. */
  readonly cutFrom?: "end" | "start";
  /** The colour of the row's cell on a terminal that takes colour (a decision, a failure); tsv never has it. */
  readonly style?: (row: R) => Style | null;
}

const GAP = "  ";

/**
 * A table fitted to the terminal: columns aligned by display width (CJK and emoji take two columns), long cells
 * cut with an ellipsis; when the table is still too wide, the columns that matter least are cut down to their
 * `min`, then left out, so that the rows never wrap. Every cell is escaped for the terminal first (control
 * characters, and everything outside ASCII when the locale is not UTF-8); a column's colour is added last, to the
 * escaped and cut text, and the padding is measured without it.
 */
export function renderTable<R>(columns: readonly Column<R>[], rows: readonly R[], terminal: Terminal): string {
  const escapeText = terminal.utf8 ? escapeForTerminal : escapeToAscii;
  const ellipsis = terminal.utf8 ? "…" : "...";
  const headers = columns.map((c) => escapeText(c.header));
  // Each cell cut to its column's max first: a megabyte of hook output is measured no further than it shows.
  const maxes = columns.map((c, i) => (c.max === undefined ? undefined : Math.max(c.max, displayWidth(headers[i]!))));
  const cells = rows.map((row) =>
    columns.map((c, i) => {
      const text = escapeText(c.cell(row));
      return maxes[i] === undefined ? text : fitWidth(text, maxes[i]!, ellipsis, c.cutFrom);
    }),
  );
  // What each column would take with all the room it wants.
  const natural = columns.map((_, i) => cells.reduce((w, r) => Math.max(w, displayWidth(r[i]!)), displayWidth(headers[i]!)));
  // biome-ignore lint/suspicious/noFocusedTests: fit() is this file's column fitting, not a focused test
  const { shown, widths } = fit(columns, natural, terminal.columns);
  const line = (texts: readonly string[], row?: R) =>
    shown
      .map((i, k) => {
        const column = columns[i]!;
        const text = fitWidth(texts[i]!, widths[k]!, ellipsis, column.cutFrom);
        const coloured = row === undefined || column.style === undefined ? text : paint(text, column.style(row), terminal.colour === true);
        // The last column is not padded: no trailing spaces, unless it is right-aligned.
        if (k === shown.length - 1 && column.align !== "right") return coloured;
        const pad = " ".repeat(Math.max(0, widths[k]! - displayWidth(text)));
        return column.align === "right" ? pad + coloured : coloured + pad;
      })
      .join(GAP);
  return [line(headers), ...cells.map((texts, r) => line(texts, rows[r]))].join("\n");
}

/** Which columns to show, in order, and how wide, so that a row takes at most `room` columns of the terminal. */
function fit<R>(columns: readonly Column<R>[], natural: readonly number[], room: number | null): { shown: number[]; widths: number[] } {
  let shown = columns.map((_, i) => i);
  for (;;) {
    const widths = shown.map((i) => natural[i]!);
    if (room === null) return { shown, widths };
    let excess = widths.reduce((a, b) => a + b, 0) + GAP.length * (shown.length - 1) - room;
    // Cut the columns that may be cut, those that matter least first.
    const cuttable = shown.map((i, k) => ({ i, k })).filter(({ i }) => columns[i]!.min !== undefined);
    cuttable.sort((a, b) => columns[a.i]!.keep - columns[b.i]!.keep);
    for (const { i, k } of cuttable) {
      if (excess <= 0) break;
      const give = Math.min(excess, widths[k]! - Math.min(columns[i]!.min!, widths[k]!));
      widths[k]! -= give;
      excess -= give;
    }
    if (excess <= 0) return { shown, widths };
    if (shown.length === 1) return { shown, widths: [Math.max(1, room)] };
    // Still too wide: leave out the column that matters least, and fit the others again from their full width.
    const least = shown.reduce((a, b) => (columns[b]!.keep < columns[a]!.keep ? b : a));
    shown = shown.filter((i) => i !== least);
  }
}

/** The header line of tab-separated output. */
export const tsvHeader = <R>(columns: readonly Column<R>[]): string => columns.map((c) => escapeTsvCell(c.header)).join("\t");

/** One row of tab-separated output: whole values, one line, tabs and line breaks escaped. */
export const tsvRow = <R>(columns: readonly Column<R>[], row: R): string => columns.map((c) => escapeTsvCell((c.tsv ?? c.cell)(row))).join("\t");

/** A whole listing as tab-separated values, header first. */
export const renderTsv = <R>(columns: readonly Column<R>[], rows: readonly R[]): string =>
  [tsvHeader(columns), ...rows.map((r) => tsvRow(columns, r))].join("\n");
