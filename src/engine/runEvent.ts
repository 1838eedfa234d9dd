import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT, messageOf } from "../errors.js";
import { CALL_CHAIN_VAR, parseCallChain } from "../exec/hookEnvironment.js";
import { DetachedHooks } from "../handlers/detachedHooks.js";
import { fileOnce } from "../handlers/once.js";
import { answeringHost, callerHostOf, callerToolsText } from "../hosts/callerHost.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import type { EventName } from "../schema/events.js";
import type { RunReply } from "../schema/runReply.js";
import { runSwitchOf } from "../settings/runSwitch.js";
import { nullEventLog, type EventLog } from "../store/eventLog.js";
import { besideLog } from "../store/logPath.js";
import { shellQuoted } from "../text/shellWord.js";
import { heardLog } from "./heardLog.js";
import { judgeOnce } from "./judgeOnce.js";
import { limitsFromEnv } from "./limits.js";
import { openEventLogWithWarnings } from "./openEventLog.js";
import { runNotices } from "./runNotices.js";

/** Everything `qhooks run` judges one event with, once its command line and stdin are read. */
export interface RunEventOptions {
  readonly event: EventName;
  readonly input: string;
  readonly format: "json" | "hook";
  readonly settings: readonly string[];
  readonly plugins: readonly string[];
  /** false: `--no-log`. */
  readonly log: boolean;
  /** false: `--no-hooks`. */
  readonly hooks: boolean;
  readonly failClosed: boolean;
  readonly dialect: Dialect;
  readonly projectDir: string;
  readonly homeDir: string;
  readonly dbPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly envWarnings: readonly string[];
  /** Where relative `--settings` and `--plugin` paths are read from: the caller's working directory. */
  readonly cwd: string;
  /** The qhooks CLI script that async hooks are started with (a detached `qhooks async-hook` each). */
  readonly cliScript: string;
  /** A log already open (a server's): used and left open. Absent: the log is opened for this event and closed. */
  readonly openLog?: EventLog;
  /** Each line for stderr, as it is said (warnings, errors); the reply carries what comes after stdout. */
  readonly err: (line: string) => void;
}

/**
 * `qhooks run`'s judging, whoever does it: the CLI in its own process, or `qhooks serve` for a forwarded run. The
 * same log rules, async hooks, notices and protocol answer, so that both give the same bytes and exit status.
 */
export async function runEvent(o: RunEventOptions): Promise<RunReply> {
  const warn = (line: string): void => o.err(`qhooks: warning: ${line}`);
  const cannotJudge = (message: string): RunReply => {
    o.err(`qhooks: ${message}`);
    return { stdout: null, blockIfUndelivered: null, stderr: null, exitCode: o.failClosed ? EXIT.blocked : EXIT.failure };
  };
  // Started by a hook of a replay: judged as part of the replay, which records the outcome through that hook's
  // run; logging it here would add a live event, and a replay never changes live history.
  const replaying = o.env.QHOOKS_REPLAY === "1";
  // Started by a hook that `qhooks test` runs: a hook test never adds to the live log either.
  const testing = o.env.QHOOKS_TEST === "1";
  // Fail-open for logging: a log that cannot be opened costs the record, never the decision.
  let log: EventLog = nullEventLog;
  let logged = false;
  let ownLog = false;
  const logWarnings: string[] = [];
  if (o.log && !replaying && !testing) {
    if (o.openLog !== undefined) {
      log = o.openLog;
      logged = true;
    } else {
      try {
        const opened = openEventLogWithWarnings({ db: o.dbPath, env: o.env, homeDir: o.homeDir });
        log = opened.log;
        logged = true;
        ownLog = true;
        for (const w of opened.warnings) logWarnings.push(w);
      } catch (e) {
        logWarnings.push(`${messageOf(e)}; this event is not logged`);
      }
    }
  }
  // Async hooks outlive the reply: each goes to a detached qhooks process that runs it within its timeout and logs
  // its result, so that this one answers (and a CLI process exits) at once.
  const background = new DetachedHooks(
    {
      projectDir: o.projectDir,
      homeDir: o.homeDir,
      baseEnv: { ...o.env },
      callChain: parseCallChain(o.env[CALL_CHAIN_VAR]),
      replay: replaying,
      maxOutputBytes: limitsFromEnv(o.env).maxOutputBytes,
      db: logged ? o.dbPath : null,
    },
    o.cliScript,
    warn,
    (seq) => log.placeOf?.(seq) ?? null,
  );
  const caller = callerHostOf(o.input, o.dialect);
  const hearing = heardLog(log);
  try {
    const { judgement, configWarnings, snapshot } = await judgeOnce({
      input: o.input,
      event: o.event,
      projectDir: o.projectDir,
      homeDir: o.homeDir,
      settingsFiles: o.settings,
      plugins: o.plugins,
      dialect: o.dialect,
      log: hearing.log,
      env: o.env,
      baseDir: o.cwd,
      callChain: parseCallChain(o.env[CALL_CHAIN_VAR]),
      replay: replaying,
      background,
      hooksOff: runSwitchOf(!o.hooks, o.env),
      // Another host calling this entry (Cursor runs Claude Code's hooks): its payload is read in its own words.
      ...(caller !== null ? { payloadDialect: caller } : {}),
      runWarnings: [...o.envWarnings, ...callerWarnings(caller, o.dialect)],
      // Once-hooks are remembered next to the log, across the many processes of a session; without a log, not at all.
      ...(logged ? { once: fileOnce(join(besideLog(o.dbPath, o.homeDir), "once")) } : {}),
    });
    // What the last append left running (its chain head being signed) ends before this process answers and exits:
    // a failure there has no next append to be said with. A server's log lives on, and its next append says it.
    const late = ownLog ? ((await log.settle?.()) ?? []) : [];
    // In the hook protocol, stderr of a block is the reason the model reads: warnings must not be mixed into it
    // (they stay in the log and in `qhooks hooks`).
    const warnings = [
      ...logWarnings,
      ...configWarnings,
      ...(judgement.kind === "outcome" ? judgement.outcome.warnings : judgement.kind === "rejected" ? judgement.warnings : []),
      ...late.map((w) => `event log: ${w.message}`),
    ];
    // A caller that reads only its own answer fields (Copilot CLI) is answered in them.
    const host = hostDialect(answeringHost(o.dialect, caller));
    const hookReply =
      o.format === "hook" && judgement.kind === "outcome"
        ? host.answer(
            judgement.outcome,
            runNotices(judgement.outcome, snapshot, host.showsNotices(judgement.outcome), logged ? o.dbPath : null, o.homeDir, [...hearing.heard, ...late]),
          )
        : null;
    if (hookReply?.exitCode !== 2) for (const w of warnings) warn(w);

    if (judgement.kind === "failed") return cannotJudge(judgement.error);
    if (judgement.kind === "rejected") {
      if (judgement.rejection.kind === "recursion") {
        warn(judgement.rejection.error);
        return { stdout: null, blockIfUndelivered: null, stderr: null, exitCode: EXIT.failure };
      }
      return cannotJudge(judgement.rejection.error);
    }

    const { outcome } = judgement;
    passEnvOn(outcome, o.env.CLAUDE_ENV_FILE, warn);
    if (hookReply) {
      return {
        stdout: hookReply.stdout || null,
        blockIfUndelivered: outcome.blocked || !outcome.continue ? (outcome.reason ?? outcome.stopReason ?? `blocked by qhooks (${outcome.event})`) : null,
        stderr: hookReply.stderr || null,
        exitCode: hookReply.exitCode,
      };
    }
    const blocked = outcome.blocked && outcome.continue;
    return {
      stdout: JSON.stringify(outcome, null, 2),
      blockIfUndelivered: null,
      stderr: blocked ? (outcome.reason ?? "blocked") : null,
      exitCode: blocked ? EXIT.blocked : EXIT.ok,
    };
  } finally {
    if (ownLog) await log.close();
  }
}

/**
 * A `qhooks run SessionStart` that is itself a hook of an agent that gave it a $CLAUDE_ENV_FILE (Claude Code, with
 * qhooks in front): the variables its own hooks wrote are appended there, so that the agent sets them as it would
 * have had it run those hooks itself. Values are single-quoted: the agent's shell reads them literally.
 */
function passEnvOn(
  outcome: { readonly event: string; readonly env: Readonly<Record<string, string>> },
  file: string | undefined,
  warn: (line: string) => void,
): void {
  const names = Object.keys(outcome.env);
  if (outcome.event !== "SessionStart" || names.length === 0 || !file) return;
  const lines = names.map((name) => `export ${name}=${shellQuoted(outcome.env[name]!)}\n`).join("");
  try {
    appendFileSync(file, lines);
  } catch (e) {
    warn(`$CLAUDE_ENV_FILE ${file}: the variables of this SessionStart not passed on: ${messageOf(e)}`);
  }
}

/**
 * An entry pinned to one host called by another (Cursor runs Claude Code's hooks, qhooks' entry among them): it is
 * judged as the entry says, by the pinned host's hooks, and answered in the pinned host's format (or the caller's,
 * for a caller that reads only its own: Copilot CLI), so that every block of those hooks stays a block (the caller
 * runs them and reads their answers without qhooks too); one warning names the caller, on stderr and in the log
 * (docs/decisions.md).
 */
function callerWarnings(caller: Dialect | null, pinned: Dialect): string[] {
  if (caller === null) return [];
  const p = hostDialect(pinned).name;
  const answered = hostDialect(answeringHost(pinned, caller)).name;
  const tools = callerToolsText(caller, pinned);
  return [
    `${hostDialect(caller).name} called this entry for ${p} (--dialect ${pinned}); judged by ${p}'s hooks, answered in ${answered}'s format${tools === "" ? "" : `; its tools matched as ${p}'s: ${tools}`}`,
  ];
}
