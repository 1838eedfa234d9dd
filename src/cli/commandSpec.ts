import type { Command } from "commander";
import type { z } from "zod";
import { QhooksError } from "../errors.js";
import { flagIssueLine } from "./flagIssues.js";

/** What commander hands a command's action: its arguments, its options, and the command (for the global options). */
export interface Invocation {
  readonly args: readonly string[];
  readonly opts: Record<string, unknown>;
  readonly command: Command;
}

/**
 * One command of the CLI: its words, its help and options (added to commander's command only when it is about to
 * parse or show its help, so that a `qhooks run` builds one command's options, not twenty), and its action, which
 * loads the command's code when it runs and returns the exit status.
 */
export interface CommandSpec {
  /** Its words: ["run"], or ["hooks", "add"] for a subcommand (its parent comes earlier in the registry). */
  readonly path: readonly [string] | readonly [string, string];
  readonly description: string;
  /** Not listed in any help (the detached process of an async hook). */
  readonly hidden?: boolean;
  /**
   * The exit status is the command's answer (`run`: the decision; `record`: whether it was logged): a closed or
   * failing stdout or stderr must not change it.
   */
  readonly statusIsTheAnswer?: boolean;
  /** Arguments, options and help text. */
  readonly define: (command: Command) => Command;
  readonly action: (invocation: Invocation) => Promise<number> | number;
}

/** Parses a command's flags with its schema: one place where bad flags become one clear line naming the flag. */
export function flagsOf<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new QhooksError("usage", flagIssueLine(parsed.error));
  return parsed.data;
}

/** The flags a command's parsed options hold, as they are typed (`{ dryRun: true }` -> `--dry-run`). */
export const flagsGiven = (opts: Record<string, unknown>): string[] => Object.keys(opts).map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);

/** The options commander gave the parent of a subcommand (`qhooks hooks --json add ...` gives `--json` to `hooks`). */
export const parentOpts = (command: Command): Record<string, unknown> => command.parent?.opts() ?? {};

export const FORMAT_HELP = "table (on a terminal), tsv (when piped), json or jsonl";
