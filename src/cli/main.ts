#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError, Help, Option } from "commander";
import type { z } from "zod";
import { EXIT, exitCodeFor, isQhooksError, messageOf, QhooksError } from "../errors.js";
import { killAllGroupsNow } from "../exec/processGroups.js";
import { EVENT_NAMES } from "../schema/eventNames.js";
import { editDistance } from "../settings/editDistance.js";
import { oneLineText } from "../text/oneLine.js";
import { eventArgument } from "./eventArg.js";
import { addFilterOptions, collect, SINCE_HELP } from "./filterOptions.js";
import { flagIssueLine } from "./flagIssues.js";
import { cliContext } from "./globals.js";
import { err, out } from "./io.js";

/** The version in qhooks' package.json, found upwards from this file (it runs from dist/src/cli/ or, bundled, dist/bin/). */
function version(): string {
  for (let dir = new URL(".", import.meta.url); dir.pathname !== "/"; dir = new URL("..", dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "qhooks" && pkg.version) return pkg.version;
    } catch {
      // not here: look further up
    }
  }
  return "unknown";
}


/** Parses a command's flags with its schema: one place where bad flags become one clear line naming the flag. */
function flagsOf<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new QhooksError("usage", flagIssueLine(parsed.error));
  return parsed.data;
}

/** `unknown command "rnu"; did you mean run?`, or the list of commands. */
function unknownCommand(program: Command, name: string): string {
  const names = program.commands.map((c) => c.name());
  const close = names.find((n) => editDistance(n, name.toLowerCase()) <= 2);
  return `unknown command "${oneLineText(name, 64)}"; ${close ? `did you mean ${close}?` : `the commands are ${names.join(", ")}`} (qhooks --help)`;
}

/** The flags a command's parsed options hold, as they are typed (`{ dryRun: true }` -> `--dry-run`). */
const flagsGiven = (opts: Record<string, unknown>): string[] => Object.keys(opts).map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);

const FORMAT_HELP = "table (on a terminal), tsv (when piped), json or jsonl";

/**
 * The rest of each subcommand's definition: its arguments, options, help text and action, added when it is about
 * to parse its own arguments or to show its help. A `qhooks run` (a new process on every tool call of an agent)
 * then builds the options of one command, not those of twenty; the definitions stay commander's, in one place.
 */
const definitions = new WeakMap<Command, (command: Command) => unknown>();
const dispatching = new WeakSet<Command>();

/** A subcommand known by its name and description now, defined in full by `define` when it is used. */
function lazyCommand(parent: Command, name: string, description: string, define: (command: Command) => unknown): Command {
  if (!dispatching.has(parent)) {
    dispatching.add(parent);
    parent.hook("preSubcommand", (_, sub) => void defined(sub));
  }
  const command = parent.command(name).description(description);
  definitions.set(command, define);
  return command;
}

/** The command with its whole definition (see lazyCommand). */
function defined(command: Command): Command {
  const define = definitions.get(command);
  if (define !== undefined) {
    definitions.delete(command);
    define(command);
  }
  return command;
}

function buildProgram(setExit: (code: number) => void): Command {
  const program: Command = new Command("qhooks")
    .description(
      "The hook engine for AI coding agents: runs the shell hooks of Claude Code / Qoder-style settings on agent " +
        "events, decides one outcome per event, and keeps every event and decision in a local SQLite log.",
    )
    .version(version(), "-V, --version")
    .option("--db <path>", "event log file, or a PostgreSQL URL postgres://... (default: $QHOOKS_DB, else ~/.qoder-cn/qhooks/events.db)")
    .option("--project-dir <dir>", "project directory (default: $QODERCN_PROJECT_DIR, else the working directory)")
    // Every command's help shows the options above too, which apply to it (given before or after its name).
    .configureHelp({
      showGlobalOptions: true,
      visibleGlobalOptions: (): Option[] => program.options.filter((o) => !o.hidden && o.long !== "--version"),
      // A command's help lists its subcommands with their arguments and options: define them first.
      visibleCommands(this: Help, command: Command): Command[] {
        for (const sub of command.commands) defined(sub);
        return Help.prototype.visibleCommands.call(this, command);
      },
    })
    .helpCommand(false)
    .addOption(
      new Option("--dialect <name>", "whose settings to read: qoder (~/.qoder-cn, .qoder) or claude (~/.claude, .claude, and Claude Code's enabled plugins); default $QHOOKS_DIALECT, else qoder").choices(["qoder", "claude"]),
    )
    .addHelpText(
      "after",
      `
Getting started:
  qhooks hooks                                        what is configured, from which file, and what is wrong with it
  qhooks hooks add PreToolUse --matcher Bash --command ~/.qoder-cn/hooks/block-rm.sh
                                                      add a hook to your settings, leaving the rest of the file as it is
  echo '{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"}}' | qhooks run PreToolUse
                                                      judge one event with your settings, as an agent would
  qhooks log --blocked                                what was blocked, by which hook, and why
  qhooks replay --session ID --settings new.json      what would new rules have decided in a past session?

Exit status: 0 ok, 1 bad usage or input (one "qhooks: ..." line) or a failed hook test (test), 2 blocked (run),
3 log integrity failure (verify, ship).
Settings: ~/.qoder-cn/settings.json, <project>/.qoder/settings.json, <project>/.qoder/settings.local.json;
with --dialect claude: ~/.claude/settings.json, <project>/.claude/settings.json, <project>/.claude/settings.local.json
and the plugins Claude Code has enabled.
Times: tables show local time with its offset (--utc for UTC); --since and --until read a time without a zone the same way.`,
    )
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
        const sub = command.commands.find((c) => c.name() === name);
        if (sub === undefined) throw new QhooksError("usage", unknownCommand(command, name));
        command = defined(sub);
      }
      out(command.helpInformation());
    });

  lazyCommand(program, "run", "run the hooks of one event: payload JSON on stdin, outcome JSON on stdout; exit 2 when blocked", (c) =>
    c
      .argument("<event>", `one of ${EVENT_NAMES.join(", ")}`)
      .option("--settings <file>", "use exactly this settings file instead of the user/project/local ones (repeatable)", collect)
      .option("--plugin <dir>", "also run the hooks of this plugin folder (Claude Code's layout: hooks/hooks.json; repeatable)", collect)
      .option("--no-log", "do not append to the event log")
      .addOption(new Option("--format <format>", "json: the outcome; hook: answer in the Claude/Qoder hook protocol (needs --settings, or --dialect claude)").choices(["json", "hook"]).default("json"))
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
        statusIsTheAnswer();
        const { runCommand, RunFlagsSchema } = await import("./commands/run.js");
        setExit(await runCommand(eventArgument(event), flagsOf(RunFlagsSchema, raw), cliContext(command)));
      }),
  );

  const hooks = lazyCommand(program, "hooks", "show the effective merged hooks, with their level, file and any warnings; hooks add adds one", (c) =>
    c
      .option("--event <event>", "only this event")
      .option("--settings <file>", "show these settings files instead of the discovered ones (repeatable)", collect)
      .option("--plugin <dir>", "also show the hooks of this plugin folder (repeatable)", collect)
      .addOption(new Option("--format <format>", "table: the report (the default, piped or not); tsv: one row per hook, warnings on stderr; json").choices(["table", "tsv", "json"]))
      .option("--json", "same as --format json")
      .option("--strict", "exit 1 when any settings file has a warning (for CI)")
      .option("--usage", "the usage ledger: each hook loaded or not, its runs, blocks, errors, timeouts, p50/p95/max time, last run, and whether it ever fired")
      .option("--since <time>", `with --usage: ${SINCE_HELP}`)
      .option("--until <time>", "with --usage: before this time (same forms as --since)")
      .option("--utc", "with --usage: times in UTC")
      .action(async (raw: unknown, command: Command) => {
        const { hooksCommand, HooksFlagsSchema } = await import("./commands/hooks.js");
        const flags = flagsOf(HooksFlagsSchema, raw);
        if (flags.usage) {
          const { hooksUsageCommand } = await import("./commands/hooksUsage.js");
          setExit(await hooksUsageCommand({ ...flags, format: flags.format ?? (flags.json ? "json" : "table") }, cliContext(command)));
        } else setExit(hooksCommand(flags, cliContext(command)));
      }),
  );

  lazyCommand(hooks, "add", "add a hook to a settings file, changing nothing else in it (its formatting and other settings stay)", (c) =>
    c
      .argument("<event>", `one of ${EVENT_NAMES.join(", ")}`)
      .requiredOption("--command <command>", "the shell command the hook runs (/bin/sh -c, in the project directory)")
      .option("--matcher <matcher>", "which tools (or sources, agent types...) it applies to: Bash, Write|Edit, mcp__.*; default all")
      .addOption(new Option("--level <level>", "which settings file: user (~/.qoder-cn/settings.json), project (.qoder/settings.json, shared with the repository) or local (.qoder/settings.local.json); with --dialect claude, those under ~/.claude and .claude").choices(["user", "project", "local"]).default("user"))
      .option("--file <path>", "add to this settings file instead (e.g. one that qhooks run --settings reads)")
      .option("--timeout <seconds>", "seconds before the hook is stopped (default 60)")
      .option("--name <name>", "a name for logs and messages (default: the command)")
      .option("--shadow", 'in shadow mode ("mode": "shadow"): it runs and its verdict is logged, but it never changes the outcome')
      .addHelpText(
        "after",
        `
Examples:
  qhooks hooks add PreToolUse --matcher Bash --command ~/.qoder-cn/hooks/block-rm.sh
  qhooks hooks add PostToolUse --matcher 'Write|Edit' --command 'npx prettier --write .' --level project --timeout 30
  qhooks hooks add PreToolUse --matcher Bash --command ./guards/no-curl.sh --level project --shadow   # try a guard first`,
      )
      .action(async (event: string, raw: unknown, command: Command) => {
        // Commander gives the listing's own flags to `qhooks hooks`, even after `add`: one of them here is a mistake
        // (`--settings f.json` meant as the file to add to would otherwise add to the user's settings).
        const stray = flagsGiven(hooks.opts());
        if (stray.length) throw new QhooksError("usage", `hooks add: ${stray.join(", ")} belongs to qhooks hooks, not to hooks add (--file FILE adds to a given file)`);
        const { hooksAddCommand, HooksAddFlagsSchema } = await import("./commands/hooksAdd.js");
        setExit(hooksAddCommand(eventArgument(event), flagsOf(HooksAddFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "trust", "show the untrusted hooks of the project, its local settings and plugins, and trust them (pinned to their content)", (c) =>
    c
      .option("--settings <file>", "the settings files to review instead of the discovered ones, as given to qhooks run (repeatable)", collect)
      .option("--plugin <dir>", "also review the hooks of this plugin folder, as given to qhooks run (repeatable)", collect)
      .option("--list", "list every trusted hook in the store")
      .option("--revoke [digest]", "untrust the hooks of this project and its plugins, or the entries whose digest starts with this")
      .option("--dry-run", "show what would be trusted or revoked; record nothing")
      .option("--json", "machine-readable output")
      .addHelpText(
        "after",
        `
With "qhooks": {"requireTrust": true} in the user-level settings (or QHOOKS_REQUIRE_TRUST=1), hooks from
<project>/.qoder/settings.json, settings.local.json and plugins run only once trusted here. Trust is pinned to the
content: the command, and the bytes of each project or plugin file it runs (./scripts/guard.sh, bash x.sh,
python3 \${CLAUDE_PLUGIN_ROOT}/a.py). Editing either makes the hook untrusted again: it is skipped with a warning.
The store is ~/.qoder-cn/qhooks/trust.json.

Examples:
  qhooks trust --dry-run          # what is untrusted here, and what each hook runs
  qhooks trust                    # trust it
  qhooks trust --list             # every trusted hook, all projects
  qhooks trust --revoke           # untrust this project's hooks (and its plugins')`,
      )
      .action(async (raw: unknown, command: Command) => {
        const { trustCommand, TrustFlagsSchema } = await import("./commands/trust.js");
        setExit(trustCommand(flagsOf(TrustFlagsSchema, raw), cliContext(command)));
      }),
  );

  const test = lazyCommand(program, "test", "run the project's hook tests: each saved event judged with the settings in force (hooks run, with QHOOKS_TEST=1); exit 1 on a failure", (c) =>
    c
      .option("--settings <file>", "judge with exactly this settings file instead of the user/project/local ones (repeatable)", collect)
      .option("--plugin <dir>", "also run the hooks of this plugin folder (repeatable)", collect)
      .option("--file <path>", "the test file (default: <project>/.qoder/hook-tests.jsonl; .claude/hook-tests.jsonl with --dialect claude)")
      .option("--junit <file>", "also write the results as JUnit XML, for CI")
      .addHelpText(
        "after",
        `
A test file has one case per line (JSON): the event, its payload, and what to expect of the outcome: the decision,
and optionally a substring of the reason, hooks that must have run and hooks that must not. Nothing is logged.

Examples:
  qhooks log --blocked                         # find the event to keep, by its SEQ
  qhooks test add 41 --name "rm -rf is denied" --ran block-rm
  qhooks test                                  # ok    rm -rf is denied (line 1): deny ... 1 passed, 0 failed
  qhooks test --settings new-guards.json --junit reports/hooks.xml`,
      )
      .action(async (raw: unknown, command: Command) => {
        const { testCommand, TestFlagsSchema } = await import("./commands/test.js");
        setExit(await testCommand(flagsOf(TestFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(test, "add", "save a logged event as a hook test: its event, its payload and the decision to expect (the logged one unless --expect)", (c) =>
    c
      .argument("<seq>", "the event's SEQ, as qhooks log shows it")
      .addOption(new Option("--expect <decision>", "the decision to expect instead of the logged one").choices(["allow", "deny", "ask", "block", "none"]))
      .option("--name <name>", "the case's name (default: the seq, event and tool)")
      .option("--reason <text>", "also expect the outcome's reason to contain this text")
      .option("--ran <hook>", "also expect this hook (by name) to run (repeatable)", collect)
      .option("--not-ran <hook>", "also expect this hook not to run (repeatable)", collect)
      .option("--file <path>", "the test file to add to (default: the one qhooks test reads)")
      .action(async (seq: string, raw: Record<string, unknown>, command: Command) => {
        // Commander gives `qhooks test`'s own flags to it, even after `add`: its --file is the same file here; the
        // others mean nothing to add.
        const { file, ...stray } = test.opts();
        const names = flagsGiven(stray);
        if (names.length) throw new QhooksError("usage", `test add: ${names.join(", ")} belongs to qhooks test, not to test add`);
        const { testAddCommand, TestAddFlagsSchema } = await import("./commands/test.js");
        setExit(await testAddCommand(seq, flagsOf(TestAddFlagsSchema, { ...raw, file: raw.file ?? file }), cliContext(command)));
      }),
  );

  lazyCommand(program, "explain", "why a logged event got its outcome: every hook of the configuration logged with it, with what became of it, and which hook decided", (c) =>
    c
      .argument("<seq|event>", "the event's SEQ (qhooks log shows it), or an event name with --payload")
      .option("--payload <file>", "explain this payload (a file, or - for stdin) as the given event, with the settings as they are now; no hook runs")
      .option("--settings <file>", "with --payload: exactly this settings file instead of the user/project/local ones (repeatable)", collect)
      .option("--plugin <dir>", "with --payload: also the hooks of this plugin folder (repeatable)", collect)
      .option("--json", "the explanation as JSON (qhooks schema explanation describes it)")
      .option("--utc", "show the time in UTC")
      .addHelpText(
        "after",
        `
Each hook gets one verdict: ran (its outcome and time), other event, no match (the matcher and the value it was
tested against), invalid (the warning), deduplicated (with which), skipped (and why), not run. A logged event is
explained from the configuration snapshot logged with it, never from today's files.

Examples:
  qhooks log --blocked                           # find the event, by its SEQ
  qhooks explain 41
  qhooks explain PreToolUse --payload call.json  # which hooks would run, and why the others would not
  qhooks explain 41 --json | jq '.hooks[] | select(.verdict.kind == "no-match")'`,
      )
      .action(async (target: string, raw: unknown, command: Command) => {
        const { explainCommand, ExplainFlagsSchema } = await import("./commands/explain.js");
        setExit(await explainCommand(target, flagsOf(ExplainFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "record", "a hook that only records: appends the payload on stdin to the log, prints nothing, exits 0 (1 on bad input)", (c) =>
    c
      .argument("[event]", "the event (default: the payload's hook_event_name)")
      .option("--print-settings", "print the settings snippet that puts qhooks record on all twelve classic events (every event with --dialect claude)")
      .action(async (event: string | undefined, raw: unknown, command: Command) => {
        statusIsTheAnswer();
        const { recordCommand, RecordFlagsSchema } = await import("./commands/record.js");
        setExit(await recordCommand(event === undefined ? undefined : eventArgument(event), flagsOf(RecordFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "log", "audit the log: events with their decisions and hooks, newest first", (c) =>
    addFilterOptions(
      c
        .option("-n, --limit <n>", "at most this many events, newest first (default 50), or all; a cut is said on stderr")
        .option("--replay <runId>", "the events of this replay run instead of live history")
        .addOption(new Option("--format <format>", FORMAT_HELP).choices(["table", "tsv", "json", "jsonl"]))
        .option("--json", "same as --format json: a JSON array of log records")
        .option("--jsonl", "same as --format jsonl: one JSON log record per line"),
    ).action(async (raw: Record<string, unknown>, command: Command) => {
      const { logCommand, LogFlagsSchema } = await import("./commands/log.js");
      const { limit, replay, json, jsonl, format, utc, ...filter } = raw;
      setExit(await logCommand(flagsOf(LogFlagsSchema, { filter: { ...filter, utc }, limit, replay, utc, format: { format, json, jsonl } }), cliContext(command)));
    }),
  );

  for (const [name, description, formats] of [
    ["sessions", "one row per session: first and last event, events, blocked", ["table", "tsv", "json", "jsonl"]],
    ["stats", "counts by event and decision; per hook: runs, blocks, errors, timeouts, p50/p95/p99 time", ["table", "tsv", "json"]],
  ] as const) {
    lazyCommand(program, name, description, (sub) => {
      sub
        .option("--since <time>", SINCE_HELP)
        .option("--until <time>", "before this time (same forms as --since)")
        .option("--utc", "times in UTC: shown, and read from --since/--until without a zone")
        .addOption(new Option("--format <format>", name === "stats" ? "table (on a terminal), tsv (when piped) or json" : FORMAT_HELP).choices(formats))
        .option("--json", "same as --format json");
      if (name === "stats") sub.option("--hooks", "only the per-hook table: runs, blocks, errors, timeouts, p50/p95/p99 and max time, last run");
      sub.action(async ({ format, json, ...raw }: Record<string, unknown>, command: Command) => {
        const summaries = await import("./commands/summaries.js");
        const run = name === "sessions" ? summaries.sessionsCommand : summaries.statsCommand;
        setExit(await run(flagsOf(summaries.WindowFlagsSchema, { ...raw, format: { format, json } }), cliContext(command)));
      });
    });
  }

  lazyCommand(program, "replay", "re-judge recorded events with a hook config (hooks run for real, with QHOOKS_REPLAY=1) and show what changes", (c) =>
    addFilterOptions(
      c
        .option("--settings <file>", "judge with exactly this settings file (repeatable; default: the settings on disk for each event's project)", collect)
        .option("--plugin <dir>", "also run the hooks of this plugin folder (repeatable)", collect)
        .option("--match-only", "run nothing: only show which hooks would run")
        .option("--enforce-shadow", "judge shadow hooks (\"mode\": \"shadow\") as enforced: what enforcing them would change")
        .option("--concurrency <n>", "events judged at once", "4")
        .option("--json", "{runId, events, changed, results: [...]}")
        .option("--list", "list past replay runs (a table on a terminal, tab-separated when piped, or --json)")
        .addHelpText(
          "after",
          `
Examples:
  qhooks replay --session 3f2a9b1c --settings stricter.json      # what would the new rules have decided?
  qhooks replay --event PreToolUse --since 7d --match-only       # which hooks would fire, without running them
  qhooks replay --since 7d --shadow --enforce-shadow             # what enforcing the shadow hooks would change`,
        ),
    ).action(async (raw: Record<string, unknown>, command: Command) => {
      const { replayCommand, ReplayFlagsSchema } = await import("./commands/replay.js");
      const { settings, plugin, matchOnly, enforceShadow, concurrency, json, list, utc, ...filter } = raw;
      setExit(await replayCommand(flagsOf(ReplayFlagsSchema, { filter: { ...filter, utc }, settings, plugin, matchOnly, enforceShadow, concurrency, json, list, utc }), cliContext(command)));
    }),
  );

  lazyCommand(program, "verify", "check the log's hash chain: ok: N records, or exit 3 naming the first bad record", (c) =>
    c
      .option("--json", "machine-readable output")
      .action(async (raw: unknown, command: Command) => {
        const { verifyCommand, VerifyFlagsSchema } = await import("./commands/summaries.js");
        setExit(await verifyCommand(flagsOf(VerifyFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "erase", "remove the content of logged events (payload, reasons, hook output); the chain still verifies", (c) =>
    c
      .option("--seq <n>", "one event (and its outcome)")
      .option("--session <id>", "every event of a session")
      .option("--pattern <text>", "every event whose payload, reason or hook output holds this text (case-sensitive, not a regex)")
      .option("--why <text>", "kept with the erasure records")
      .option("--json", "{events, records}")
      .addHelpText(
        "after",
        `
The time, event, session, tool, project and decision of each event stay; qhooks verify reports the records as erased.

Examples:
  qhooks erase --pattern 'sk-live-1234'        # a secret found later
  qhooks erase --session 3f2a9b1c --why "user request"`,
      )
      .action(async (raw: unknown, command: Command) => {
        const { eraseCommand, EraseFlagsSchema } = await import("./commands/protect.js");
        setExit(await eraseCommand(flagsOf(EraseFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "prune", "delete records older than a date; the chain is verified from the oldest record kept", (c) =>
    c
      .option("--before <when>", 'a span (90d, 12w) or a date; default: "qhooks": {"retention": "90d"} of the user-level settings')
      .option("--json", "{records, events, from, bytesBefore, bytesAfter}")
      .addHelpText(
        "after",
        `
Examples:
  qhooks prune --before 90d
  qhooks prune --before 2026-01-01`,
      )
      .action(async (raw: Record<string, unknown>, command: Command) => {
        const { pruneCommand, PruneFlagsSchema } = await import("./commands/protect.js");
        setExit(await pruneCommand(flagsOf(PruneFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "ship", "copy the local log's new records to a central PostgreSQL database (resumable; each chain segment checked on arrival)", (c) =>
    c
      .requiredOption("--to <url>", "the central database: postgres://user@host:5432/database")
      .option("--watch", "keep shipping: a round every --interval until interrupted")
      .option("--interval <pause>", "pause between rounds with --watch: 500ms, 10s, 5m...", "30s")
      .option("--batch <n>", "records per transaction", "5000")
      .addHelpText(
        "after",
        `
Examples:
  qhooks ship --to postgres://qhooks@db.internal:5432/qhooks           # once (e.g. as a SessionEnd hook)
  qhooks ship --to postgres://qhooks@db.internal:5432/qhooks --watch   # keep shipping every 30 s`,
      )
      .action(async (raw: unknown, command: Command) => {
        const { shipCommand, ShipFlagsSchema } = await import("./commands/ship.js");
        setExit(await shipCommand(flagsOf(ShipFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "export", "send the log's events and outcomes to an OpenTelemetry collector as OTLP log records (OTLP/HTTP)", (c) =>
    addFilterOptions(
      c
        .requiredOption("--otlp <url>", "the collector: http://host:4318 (/v1/logs is added) or the full URL of its logs endpoint")
        .addOption(new Option("--protocol <protocol>", "how records are encoded").choices(["protobuf", "json"]).default("protobuf"))
        .option("--watch", "keep exporting: a round every --interval until interrupted, each event sent once it has its outcome")
        .option("--interval <pause>", "pause between rounds with --watch: 500ms, 10s, 5m...", "10s")
        .option("--cursor <file>", "where the export stands, to go on from there next time (default with --watch: one file per log and collector in ~/.qoder-cn/qhooks/export-cursors)")
        .addHelpText(
          "after",
          `
Examples:
  qhooks export --otlp http://localhost:4318 --since 7d       # the last week, once
  qhooks export --otlp http://collector:4318 --watch          # keep sending new events; a restart goes on where it stopped`,
        ),
    ).action(async (raw: Record<string, unknown>, command: Command) => {
      const { exportCommand, ExportFlagsSchema } = await import("./commands/export.js");
      const { otlp, protocol, watch, interval, cursor, ...filter } = raw;
      setExit(await exportCommand(flagsOf(ExportFlagsSchema, { otlp, protocol, watch, interval, cursor, filter, version: version() }), cliContext(command)));
    }),
  );

  lazyCommand(program, "schema", "print a JSON Schema: settings (for editors: validation and completion), outcome, payload EVENT, hook-test, or explanation", (c) =>
    c
      .argument("[what]", "settings (the default), outcome, payload, hook-test (a line of a hook test file), or explanation (qhooks explain --json)")
      .argument("[event]", "for payload: the event whose payload to describe")
      .addHelpText(
        "after",
        `
Examples:
  qhooks schema settings > ~/.qoder-cn/settings.schema.json
  # then, in ~/.qoder-cn/settings.json: { "$schema": "./settings.schema.json", "hooks": { ... } }
  qhooks schema payload PreToolUse`,
      )
      .action(async (what: string | undefined, event: string | undefined) => {
        const { schemaCommand } = await import("./commands/schema.js");
        setExit(schemaCommand(what ?? "settings", event === undefined ? undefined : eventArgument(event)));
      }),
  );

  lazyCommand(program, "show", "one event in full: payload, each hook's command, exit, duration and output, the outcome, the config hash, the chain", (c) =>
    c
      .argument("<seq>", "the event's SEQ, as qhooks log shows it")
      .option("--json", "the event as the log holds it (JSON; see docs/cli.md)")
      .option("--utc", "the time in UTC instead of the local zone")
      .addHelpText(
        "after",
        `
Examples:
  qhooks log --blocked          # find the event, by its SEQ
  qhooks show 41                # everything about it
  qhooks show 41 --json | jq -r '.outcome.hooks[0].stderr'`,
      )
      .action(async (seq: string, raw: unknown, command: Command) => {
        const { showCommand, ShowFlagsSchema } = await import("./commands/show.js");
        setExit(await showCommand(seq, flagsOf(ShowFlagsSchema, raw), cliContext(command)));
      }),
  );

  lazyCommand(program, "report", "write a session timeline as one self-contained HTML file: hooks by duration, decisions, blocked events, per-hook charts", (c) =>
    addFilterOptions(
      c
        .option("-o, --output <file>", "the HTML file to write (default qhooks-report.html in the working directory; - for stdout)")
        .option("-n, --limit <n>", "read at most this many matching events, newest first (default 50000), or all; the timeline draws the newest 1000 one by one")
        .addHelpText(
          "after",
          `
The page needs no network: its styles and script are inside it. Open it in any browser.

Examples:
  qhooks report --session 3f2a9b1c            # one session (a unique prefix of its id will do)
  qhooks report --since yesterday -o today.html
  qhooks report --blocked --since 7d          # only what was blocked this week`,
        ),
    ).action(async (raw: Record<string, unknown>, command: Command) => {
      const { reportCommand, ReportFlagsSchema } = await import("./commands/report.js");
      const { output, limit, utc, ...filter } = raw;
      setExit(await reportCommand(flagsOf(ReportFlagsSchema, { filter: { ...filter, utc }, output, limit, utc }), cliContext(command)));
    }),
  );

  // The detached process that runs one async hook of a `qhooks run` and logs its result; not for users.
  program
    .command("__async-hook", { hidden: true })
    .argument("<job>")
    .action(async (job: string) => {
      const { asyncHookCommand } = await import("./commands/asyncHook.js");
      setExit(await asyncHookCommand(job));
    });

  // Only now: subcommands inherit it when they are made, and they must refuse stray words.
  program.allowExcessArguments();
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

/**
 * Whether the command's exit status is its answer (`run`: the decision; `record`: whether it was logged): then a
 * closed or failing stdout or stderr must not change it, and the command finishes as if it had been read. The other
 * commands print listings, and a reader that stops early (`qhooks log | head`) has seen all it wanted.
 */
let exitStatusIsTheAnswer = false;
const statusIsTheAnswer = () => {
  exitStatusIsTheAnswer = true;
};

process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (exitStatusIsTheAnswer) return;
  if (e.code === "EPIPE") process.exit(EXIT.ok);
  // Anything else (a full disk under `> file`) means the listing was not written.
  process.stderr.write(`qhooks: cannot write the output: ${e.code ?? messageOf(e)}\n`);
  process.exit(EXIT.failure);
});
// Nowhere is left to report a failing stderr: what was to be said there is lost, the exit status is not.
process.stderr.on("error", () => undefined);
// Stopped from outside: the hooks go down with the engine (their arrival stays in the log, as unfinished), then the
// signal is raised again so that whoever started qhooks sees it die of that signal.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.once(signal, () => {
    killAllGroupsNow();
    process.kill(process.pid, signal);
  });
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
