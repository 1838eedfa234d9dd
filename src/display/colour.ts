import { z } from "zod";

/**
 * Colour in human output: decisions (DENY and BLOCK red, ASK yellow, ALLOW green) and failures, so that a block
 * stands out in a screen of `none`. Only for a person at a terminal: a pipe, a file or a script never gets an
 * escape sequence (their output is compared byte for byte), whatever the format asked for.
 *
 * Hand-written SGR sequences rather than node:util's styleText, which Node 20 has only from 20.12 on (qhooks runs
 * on any Node 20), and which would ask the stream again whether it is a terminal.
 */

/** `--color`: auto (the default) colours a terminal unless NO_COLOR is set; always and never say it outright. */
export const ColourChoiceSchema = z.enum(["auto", "always", "never"]);
export type ColourChoice = z.infer<typeof ColourChoiceSchema>;

/**
 * Whether to colour stdout. `--color always|never` is the person's explicit word and wins; under auto, a
 * terminal is coloured unless NO_COLOR holds anything (https://no-color.org: any non-empty value) or TERM is
 * `dumb`.
 */
export function colourWanted(choice: ColourChoice, env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (choice !== "auto") return choice === "always";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return isTTY;
}

export type Style = "red" | "green" | "yellow" | "dim";

const SGR: Record<Style, readonly [open: string, close: string]> = {
  red: ["\u001b[31m", "\u001b[39m"],
  green: ["\u001b[32m", "\u001b[39m"],
  yellow: ["\u001b[33m", "\u001b[39m"],
  dim: ["\u001b[2m", "\u001b[22m"],
};

/**
 * `text` in `style` when `on`, as it is otherwise. Applied last, to text already escaped and cut: the sequences
 * added here are the only ones that reach the terminal, and widths are measured without them (string-width skips
 * them).
 */
export function paint(text: string, style: Style | null | undefined, on: boolean): string {
  if (!on || style === null || style === undefined || text === "") return text;
  const [open, close] = SGR[style];
  return `${open}${text}${close}`;
}

/**
 * The colour of a decision: what stops the agent red, what asks the person yellow, an explicit allow green. Of the
 * log's own states, a rejected payload is red and an event that never got its outcome yellow.
 */
export function decisionStyle(decision: string, blocked = false): Style | null {
  if (blocked) return "red";
  switch (decision) {
    case "deny":
    case "block":
    case "rejected":
      return "red";
    case "ask":
    case "unfinished":
      return "yellow";
    case "allow":
      return "green";
    default:
      return null;
  }
}

/** A hook run that failed: it exited with an error, timed out, or printed output qhooks could not read. */
export const isHookFailure = (outcome: string): boolean => outcome === "error" || outcome === "timeout" || outcome === "invalid-output";

/** A hook run's outcome: a block red as a decision is, a failure red. */
export const hookOutcomeStyle = (outcome: string): Style | null => (outcome === "block" || isHookFailure(outcome) ? "red" : null);

/** A count of failures: red when there is any. */
export const countStyle = (n: number): Style | null => (n > 0 ? "red" : null);
