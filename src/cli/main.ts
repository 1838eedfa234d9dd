#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { z } from "zod";
import { EXIT, exitCodeFor, isQhooksError, messageOf, QhooksError } from "../errors.js";
import { EVENT_NAMES, EventNameSchema } from "../schema/events.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import { editDistance } from "../settings/parseSettingsFile.js";
import { cliContext } from "./globals.js";
import { err } from "./io.js";

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Parses a command's flags with its schema: one place where bad flags become one clear line. */
function flagsOf<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new QhooksError("usage", firstIssueLine(parsed.error));
  return parsed.data;
}

function eventArgument(raw: string) {
  const parsed = EventNameSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  // A wrong case or a typo (as settings keys are checked): `pretooluse`, `PreToolUs`.
  const close =
    EVENT_NAMES.find((e) => e.toLowerCase() === raw.toLowerCase()) ?? EVENT_NAMES.find((e) => editDistance(e.toLowerCase(), raw.toLowerCase()) <= 2);
  throw new QhooksError("usage", `unknown event "${raw}"${close ? ` (did you mean ${close}?)` : ` (one of ${EVENT_NAMES.join(", ")})`}`);
}

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("qhooks")
    .description(
      "The hook engine for AI coding agents: runs the shell hooks of Claude Code / Qoder-style settings on agent " +
        "events, decides one outcome per event, and keeps every event and decision in a local SQLite log.",
    )
    .version(version(), "-V, --version")
    .option("--db <path>", "event log file (default: $QHOOKS_DB, else ~/.qoder-cn/qhooks/events.db)")
    .option("--project-dir <dir>", "project directory (default: $QODERCN_PROJECT_DIR, else the working directory)")
    .showHelpAfterError("(run qhooks --help for usage)")
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, outputError: () => undefined });

  program
    .command("run")
    .description("run the hooks of one event: payload JSON on stdin, outcome JSON on stdout; exit 2 when blocked")
    .argument("<event>", `one of ${EVENT_NAMES.join(", ")}`)
    .option("--settings <file>", "use exactly this settings file instead of the user/project/local ones (repeatable)", collect)
    .option("--no-log", "do not append to the event log")
    .addOption(new Option("--format <format>", "json: the outcome; hook: answer in the Claude/Qoder hook protocol (needs --settings)").choices(["json", "hook"]).default("json"))
    .option("--fail-closed", "when qhooks cannot judge (invalid payload, internal error), block (exit 2) instead of exit 1")
    .addHelpText(
      "after",
      `
Examples:
  echo '{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/x"}}' | qhooks run PreToolUse
  # as the one hook an agent calls, fanning out to the hooks of a file:
  qhooks run PreToolUse --format hook --settings ~/.config/qhooks/guards.json`,
    )
    .action(async (event: string, raw: unknown, command: Command) => {
      const { runCommand, RunFlagsSchema } = await import("./commands/run.js");
      setExit(await runCommand(eventArgument(event), flagsOf(RunFlagsSchema, raw), cliContext(command)));
    });

  program
    .command("hooks")
    .description("show the effective merged hooks, with their level, file and any warnings")
    .option("--event <event>", "only this event")
    .option("--settings <file>", "show these settings files instead of the discovered ones (repeatable)", collect)
    .option("--json", "machine-readable output")
    .action(async (raw: { event?: string }, command: Command) => {
      const { hooksCommand, HooksFlagsSchema } = await import("./commands/hooks.js");
      if (raw.event !== undefined) eventArgument(raw.event);
      setExit(hooksCommand(flagsOf(HooksFlagsSchema, raw), cliContext(command)));
    });

  return program;
}

/** The one place that turns errors into a line on stderr and an exit status. */
async function main(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(argv as string[]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok; // --help, --version
      // Commander puts its "(Did you mean --settings?)" on a line of its own: keep the message on one line.
      err(`qhooks: ${error.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " ")}`);
      return EXIT.failure;
    }
    if (isQhooksError(error)) {
      err(`qhooks: ${error.message}`);
      return exitCodeFor(error);
    }
    // Not the user's doing: say so, with enough to file a report, still on one line unless asked for more.
    err(`qhooks: internal error: ${messageOf(error)} (set QHOOKS_DEBUG=1 for a stack trace)`);
    if (process.env.QHOOKS_DEBUG) err(error instanceof Error ? (error.stack ?? "") : String(error));
    return EXIT.failure;
  }
}

process.exitCode = await main(process.argv);
