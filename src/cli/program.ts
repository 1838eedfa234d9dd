import { Command, Help, Option } from "commander";
import { QhooksError } from "../errors.js";
import { DIALECTS } from "../schema/dialect.js";
import { HOSTS } from "../hosts/hosts.js";
import { editDistance } from "../settings/editDistance.js";
import { oneLineText } from "../text/oneLine.js";
import type { CommandSpec } from "./commandSpec.js";
import { out } from "./io.js";
import { helpDialect, rootHelp } from "./rootHelp.js";
import { version } from "./version.js";

/** What running a command tells the process: its exit status, and whether that status is the command's answer. */
export interface CommandEffects {
  readonly setExit: (code: number) => void;
  readonly statusIsTheAnswer: () => void;
}

/** Commands qhooks runs for itself (`__async-hook`): they work when called, and no help or hint names them. */
const internal = new WeakSet<Command>();
const publicCommands = (parent: Command): Command[] => parent.commands.filter((c) => !internal.has(c));

/** `unknown command "rnu"; did you mean run?`, or the list of commands. */
function unknownCommand(parent: Command, name: string): string {
  const names = publicCommands(parent).map((c) => c.name());
  const close = names.find((n) => editDistance(n, name.toLowerCase()) <= 2);
  return `unknown command "${oneLineText(name, 64)}"; ${close ? `did you mean ${close}?` : `the commands are ${names.join(", ")}`} (qhooks --help)`;
}

/**
 * The rest of each command's definition (its arguments, options, help text and action) is added when it is about to
 * parse its own arguments or to show its help. A `qhooks run` (a new process on every tool call of an agent) then
 * builds the options of one command, not those of twenty.
 */
const definitions = new WeakMap<Command, (command: Command) => unknown>();
const dispatching = new WeakSet<Command>();

function defined(command: Command): Command {
  const define = definitions.get(command);
  if (define !== undefined) {
    definitions.delete(command);
    define(command);
  }
  return command;
}

/** The commander command of one registry entry, known by its name and description until it is used. */
function lazyCommand(parent: Command, spec: CommandSpec, effects: CommandEffects): Command {
  if (!dispatching.has(parent)) {
    dispatching.add(parent);
    parent.hook("preSubcommand", (_, sub) => void defined(sub));
  }
  const name = spec.path[spec.path.length - 1]!;
  const command = parent.command(name, { hidden: spec.hidden ?? false }).description(spec.description);
  if (spec.hidden) internal.add(command);
  definitions.set(command, (c) =>
    spec.define(c).action(async (...given: unknown[]) => {
      // Commander passes the declared arguments, then the options, then the command itself.
      if (spec.statusIsTheAnswer) effects.statusIsTheAnswer();
      const args = given.slice(0, -2) as (string | undefined)[];
      const opts = given.at(-2) as Record<string, unknown>;
      effects.setExit(await spec.action({ args: args as string[], opts, command: given.at(-1) as Command }));
    }),
  );
  return command;
}

/** The qhooks command line: the global options, `help`, and every command of the registry. */
export function buildProgram(commands: readonly CommandSpec[], effects: CommandEffects): Command {
  const program: Command = new Command("qhooks")
    .description(
      "The hook engine for AI coding agents: runs the shell hooks of Claude Code / Qoder-style settings on agent " +
        "events, decides one outcome per event, and keeps every event and decision in a local SQLite log.",
    )
    .version(version(), "-V, --version")
    .option("--db <path>", "event log file, or a PostgreSQL URL postgres://... (default: $QHOOKS_DB, else ~/.qhooks/events.db)")
    .option("--project-dir <dir>", `project directory (default: the host's own variable, ${projectDirVariablesText()}; else the working directory)`)
    // Every command's help shows the options above too, which apply to it (given before or after its name).
    .configureHelp({
      showGlobalOptions: true,
      // The root's own help lists them once, as its options; a command's help adds them under "Global Options".
      visibleGlobalOptions: (command: Command): Option[] => (command === program ? [] : program.options.filter((o) => !o.hidden && o.long !== "--version")),
      // A command's help lists its subcommands with their arguments and options: define them first.
      visibleCommands(this: Help, command: Command): Command[] {
        for (const sub of command.commands) defined(sub);
        return Help.prototype.visibleCommands.call(this, command);
      },
    })
    .helpCommand(false)
    .addOption(
      new Option(
        "--dialect <name>",
        "whose settings to read: qoder (~/.qoder-cn, .qoder), claude (~/.claude, .claude, and Claude Code's enabled plugins), gemini (~/.gemini, .gemini, /etc/gemini-cli), codex (~/.codex/hooks.json, .codex/hooks.json), cursor (~/.cursor/hooks.json, .cursor/hooks.json) or copilot (~/.copilot/hooks/*.json, .github/hooks/*.json); default $QHOOKS_DIALECT, else (for a command you type) the one qhooks config dialect remembers, else the one host whose settings files exist here, else qoder",
      ).choices(DIALECTS),
    )
    .addOption(new Option("--host <name>", "the same as --dialect: the agent whose files and protocol qhooks speaks").choices(DIALECTS))
    .addOption(
      new Option("--color <when>", "colour decisions and failures in tables: auto (on a terminal, unless $NO_COLOR is set), always or never")
        .choices(["auto", "always", "never"])
        .default("auto"),
    )
    // Evaluated when shown: the files of the dialect a command typed here would read.
    .addHelpText("after", () => {
      const given = program.opts<{ dialect?: string; host?: string }>();
      return rootHelp(helpDialect(given.dialect ?? given.host));
    })
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, outputError: () => undefined })
    // Bare `qhooks` prints the help, as git and gh do; a word that is no command says which ones are.
    .argument("[command]")
    .usage("[options] [command]")
    .action((name: string | undefined) => {
      if (name !== undefined) throw new QhooksError("usage", unknownCommand(program, name));
      out(program.helpInformation());
    });

  program
    .command("help")
    .description("show the help of qhooks or of one of its commands")
    .argument("[command...]", "a command, e.g. log, or hooks add")
    .action((names: string[]) => {
      let command = program;
      for (const name of names) {
        const sub = publicCommands(command).find((c) => c.name() === name);
        if (sub === undefined) throw new QhooksError("usage", unknownCommand(command, name));
        command = defined(sub);
      }
      out(command.helpInformation());
    });

  const made = new Map<string, Command>();
  for (const spec of commands) {
    const parent = spec.path.length === 1 ? program : made.get(spec.path[0]);
    if (parent === undefined) throw new Error(`command ${spec.path.join(" ")} comes before its parent in the registry`);
    made.set(spec.path.join(" "), lazyCommand(parent, spec, effects));
  }

  // Only now: subcommands inherit it when they are made, and they must refuse stray words.
  program.allowExcessArguments();
  return program;
}

/** `$CLAUDE_PROJECT_DIR (claude), ...`: each host's first variable for the project, for `--project-dir`'s help. */
const projectDirVariablesText = (): string =>
  Object.values(HOSTS)
    .filter((h) => h.projectDirVariables.length > 0)
    .map((h) => `$${h.projectDirVariables[0]} (${h.id})`)
    .join(", ");
