import { colourWanted, type ColourChoice } from "./colour.js";

/** What human output needs to know about where it goes. */
export interface Terminal {
  /** stdout is a terminal: tables by default, fitted to its width. */
  readonly isTTY: boolean;
  /** Columns to fit tables into; null: no limit (a pipe, unless $COLUMNS says otherwise). */
  readonly columns: number | null;
  /** The locale's character set is UTF-8: otherwise human output is plain ASCII. */
  readonly utf8: boolean;
  /** Decisions and failures in colour (colour.ts); absent: plain text. */
  readonly colour?: boolean;
}

/** A terminal that reports no width (a serial console, some CI terminals) is taken as the classic 80 columns. */
const FALLBACK_COLUMNS = 80;

const positiveInt = (value: string | undefined): number | null => {
  const n = value === undefined || !/^\d+$/.test(value) ? NaN : Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

/**
 * stdout as it is now. `$COLUMNS` overrides the width (as for `ls` and git), also for a pipe. The character set is
 * the locale's (LC_ALL, then LC_CTYPE, then LANG, as the C library reads them): no locale at all is the C locale,
 * which is ASCII. Colour follows `colour` (the global --color), NO_COLOR and whether stdout is a terminal.
 */
export function stdoutTerminal(env: NodeJS.ProcessEnv = process.env, stream: NodeJS.WriteStream = process.stdout, colour: ColourChoice = "auto"): Terminal {
  const isTTY = stream.isTTY === true;
  const columns = positiveInt(env.COLUMNS) ?? (isTTY ? (positiveInt(String(stream.columns ?? "")) ?? FALLBACK_COLUMNS) : null);
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((v) => v !== undefined && v !== "") ?? "C";
  return { isTTY, columns, utf8: /utf-?8/i.test(locale), colour: colourWanted(colour, env, isTTY) };
}

/** stdout of a command, with the global --color of its command line. */
export const commandTerminal = (context: { readonly env: NodeJS.ProcessEnv; readonly colour: ColourChoice }): Terminal =>
  stdoutTerminal(context.env, process.stdout, context.colour);
