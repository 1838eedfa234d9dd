import { z } from "zod";
import { openEventLogWithWarnings } from "../../engine/openEventLog.js";
import { judgeOnce } from "../../engine/judgeOnce.js";
import { EXIT, QhooksError, messageOf } from "../../errors.js";
import { nullEventLog, type EventLog } from "../../store/eventLog.js";
import { CALL_CHAIN_VAR, parseCallChain } from "../../exec/hookEnvironment.js";
import { MAX_PAYLOAD_BYTES } from "../../payload/parsePayload.js";
import type { EventName } from "../../schema/events.js";
import { delivered, err, out, readStdin, warn } from "../io.js";
import { requireProjectDir, type CliContext } from "../globals.js";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { besideLog } from "../../store/logPath.js";
import { DetachedHooks } from "../../handlers/detachedHooks.js";
import { limitsFromEnv } from "../../engine/limits.js";
import { fileOnce } from "../../handlers/once.js";
import { hostDialect } from "../../hosts/hosts.js";
import { type FailureNotice, failureNotices, memoryCounter, noticesToSay } from "../../output/failureNotices.js";
import { foldBudget, overBudget, overrunText } from "../../core/hookBudget.js";
import type { BudgetSettings } from "../../schema/settings.js";
import { callerHostOf, callerToolsText } from "../../hosts/callerHost.js";
import type { Dialect } from "../../schema/dialect.js";
import { fileNoticeCounter } from "../../handlers/noticeMemory.js";
import type { Outcome } from "../../schema/outcome.js";
import type { SettingsSnapshot } from "../../settings/loadSettings.js";
import { runSwitchOf } from "../../settings/runSwitch.js";
import { attestLoad, noneLoaded } from "../../engine/loadAttestation.js";
import { shellQuoted } from "../../text/shellWord.js";

export const RunFlagsSchema = z.object({
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  log: z.boolean().default(true),
  format: z.enum(["json", "hook"], { error: '--format must be "json" or "hook"' }).default("json"),
  failClosed: z.boolean().default(false),
  /** false: `--no-hooks`, every hook switched off for this run. */
  hooks: z.boolean().default(true),
  /** `--ensure-server`: an installed command entry beside http ones starts a server that is down (revive.ts). */
  ensureServer: z.boolean().default(false),
});
export type RunFlags = z.infer<typeof RunFlagsSchema>;

/** `qhooks run <event>`: one payload on stdin, one outcome out. */
export async function runCommand(event: EventName, flags: RunFlags, context: CliContext): Promise<number> {
  // In front of Claude Code (--dialect claude) qhooks reads its user, project and local levels and plugins on
  // purpose; the entries that call qhooks live in Claude Code's managed settings, which qhooks never reads.
  if (flags.format === "hook" && flags.settings.length === 0 && !hostDialect(context.dialect).callsQhooksFromOutsideLevels) {
    throw new QhooksError("usage", "--format hook needs --settings FILE (or --dialect claude): qhooks must never read the settings of the agent that calls it");
  }
  // With --fail-closed, "cannot judge" blocks instead of letting the tool call through.
  const cannotJudge = (message: string): number => {
    err(`qhooks: ${message}`);
    return flags.failClosed ? EXIT.blocked : EXIT.failure;
  };

  // Under `install --server`, the command entries revive a dead server, so that the next http event finds one (and not
  // only the next session's SessionStart): a state file read and a signal 0 when it runs, a detached start when not.
  if (flags.ensureServer && context.env.QHOOKS_REPLAY !== "1" && context.env.QHOOKS_TEST !== "1") {
    const { reviveIfDown } = await import("../../server/revive.js");
    reviveIfDown({ homeDir: context.homeDir, command: process.execPath, args: [process.argv[1] ?? ""], env: { ...context.env } });
  }
  const projectDir = requireProjectDir(context);
  const input = await readStdin(MAX_PAYLOAD_BYTES, "qhooks run");
  // Started by a hook of a replay: judged as part of the replay, which records the outcome through that hook's
  // run; logging it here would add a live event, and a replay never changes live history.
  const replaying = context.env.QHOOKS_REPLAY === "1";
  // Started by a hook that `qhooks test` runs: a hook test never adds to the live log either.
  const testing = context.env.QHOOKS_TEST === "1";
  // Fail-open for logging: a log that cannot be opened costs the record, never the decision.
  let log: EventLog = nullEventLog;
  let logged = false;
  const logWarnings: string[] = [];
  if (flags.log && !replaying && !testing) {
    try {
      const opened = openEventLogWithWarnings({ db: context.dbPath, env: context.env, homeDir: context.homeDir });
      log = opened.log;
      logged = true;
      for (const w of opened.warnings) logWarnings.push(w);
    } catch (e) {
      logWarnings.push(`${messageOf(e)}; this event is not logged`);
    }
  }
  // Async hooks outlive the reply: each goes to a detached qhooks process that runs it within its timeout and logs
  // its result, so that this one answers and exits at once.
  const background = new DetachedHooks(
    {
      projectDir,
      homeDir: context.homeDir,
      baseEnv: { ...context.env },
      callChain: parseCallChain(context.env[CALL_CHAIN_VAR]),
      replay: replaying,
      maxOutputBytes: limitsFromEnv(context.env).maxOutputBytes,
      db: logged ? context.dbPath : null,
    },
    process.argv[1] ?? "",
    warn,
    (seq) => log.placeOf?.(seq) ?? null,
  );
  const caller = callerHostOf(input, context.dialect);
  try {
    const { judgement, configWarnings, snapshot } = await judgeOnce({
      input,
      event,
      projectDir,
      homeDir: context.homeDir,
      settingsFiles: flags.settings,
      plugins: flags.plugin,
      dialect: context.dialect,
      log,
      env: context.env,
      callChain: parseCallChain(context.env[CALL_CHAIN_VAR]),
      replay: replaying,
      background,
      hooksOff: runSwitchOf(!flags.hooks, context.env),
      // Another host calling this entry (Cursor runs Claude Code's hooks): its payload is read in its own words.
      ...(caller !== null ? { payloadDialect: caller } : {}),
      runWarnings: [...context.envWarnings, ...callerWarnings(caller, context.dialect)],
      // Once-hooks are remembered next to the log, across the many processes of a session; without a log, not at all.
      ...(logged ? { once: fileOnce(join(besideLog(context.dbPath, context.homeDir), "once")) } : {}),
    });
    // In the hook protocol, stderr of a block is the reason the model reads: warnings must not be mixed into it
    // (they stay in the log and in `qhooks hooks`).
    const warnings = [
      ...logWarnings,
      ...configWarnings,
      ...(judgement.kind === "outcome" ? judgement.outcome.warnings : judgement.kind === "rejected" ? judgement.warnings : []),
    ];
    const host = hostDialect(context.dialect);
    const hookReply =
      flags.format === "hook" && judgement.kind === "outcome"
        ? host.answer(
            judgement.outcome,
            notices(judgement.outcome, snapshot, host.showsNotices(judgement.outcome), logged ? context.dbPath : null, context.homeDir),
          )
        : null;
    if (hookReply?.exitCode !== 2) for (const w of warnings) warn(w);

    if (judgement.kind === "failed") return cannotJudge(judgement.error);
    if (judgement.kind === "rejected") {
      if (judgement.rejection.kind === "recursion") {
        warn(judgement.rejection.error);
        return EXIT.failure;
      }
      return cannotJudge(judgement.rejection.error);
    }

    const { outcome } = judgement;
    passEnvOn(outcome, context.env.CLAUDE_ENV_FILE);
    if (hookReply) {
      // A block carried in the JSON reply (exit 0) that no one can read would let the tool call go ahead: say it the
      // one way that needs no stdout, exit 2 with the reason.
      if (hookReply.stdout && !(await delivered(hookReply.stdout)) && (outcome.blocked || !outcome.continue)) {
        err(outcome.reason ?? outcome.stopReason ?? `blocked by qhooks (${outcome.event})`);
        return EXIT.blocked;
      }
      if (hookReply.stderr) err(hookReply.stderr);
      return hookReply.exitCode;
    }
    out(JSON.stringify(outcome, null, 2));
    if (outcome.blocked && outcome.continue) {
      err(outcome.reason ?? "blocked");
      return EXIT.blocked;
    }
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/**
 * What the person is told in the host's answer about hooks that failed or did not run (`qhooks.notify`, on by
 * default): each notice once per session, counted in a file next to the log (in this process's memory without one).
 */
function notices(outcome: Outcome, snapshot: SettingsSnapshot, shown: boolean, db: string | null, homeDir: string): string[] {
  if (!snapshot.notify || !shown) return [];
  const found = [...failureNotices(outcome, snapshot.missingPlugins), ...budgetNotices(outcome, snapshot.budget)];
  // At the start of a session, hooks configured and none loaded: the person learns it before relying on them.
  const none = outcome.event === "SessionStart" ? noneLoaded(attestLoad(snapshot, null)) : null;
  if (none !== null) found.push({ key: "none-loaded", text: `qhooks: ${none}; no hook runs (qhooks hooks says why)` });
  if (found.length === 0) return [];
  const counter = db === null ? memoryCounter() : fileNoticeCounter(join(besideLog(db, homeDir), "notices"));
  return noticesToSay(found, outcome.sessionId, counter);
}

/**
 * A `qhooks run SessionStart` that is itself a hook of an agent that gave it a $CLAUDE_ENV_FILE (Claude Code, with
 * qhooks in front): the variables its own hooks wrote are appended there, so that the agent sets them as it would
 * have had it run those hooks itself. Values are single-quoted: the agent's shell reads them literally.
 */
function passEnvOn(outcome: { readonly event: string; readonly env: Readonly<Record<string, string>> }, file: string | undefined): void {
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
 * A hook whose runs in this one event already cross a `qhooks.budget` limit per turn (the run-time check of
 * engine/steps/aggregateOutcome.ts, the same fold): the person waits on it, so they hear it like a failure, once per
 * session then counted. The decision is untouched. A shadow hook is left out, as for failures.
 */
function budgetNotices(outcome: Outcome, budget: BudgetSettings | null | undefined): FailureNotice[] {
  if (!budget || outcome.hooks.length === 0) return [];
  const hooks = outcome.hooks.filter((h) => !h.shadow);
  const usage = foldBudget([{ event: outcome.event, sessionId: outcome.sessionId, hooks }]);
  return overBudget(usage, budget).map((o) => ({ key: `over-budget\0${o.kind}\0${o.hook}`, text: `qhooks: ${overrunText(o)}` }));
}

/**
 * An entry pinned to one host called by another (Cursor runs Claude Code's hooks, qhooks' entry among them): it is
 * judged as the entry says, by the pinned host's hooks and in its answer format, so that every block of those hooks
 * stays a block (the caller runs them and reads their answers without qhooks too); one warning names the caller, on
 * stderr and in the log (docs/decisions.md).
 */
function callerWarnings(caller: Dialect | null, pinned: Dialect): string[] {
  if (caller === null) return [];
  const p = hostDialect(pinned).name;
  const tools = callerToolsText(caller, pinned);
  return [
    `${hostDialect(caller).name} called this entry for ${p} (--dialect ${pinned}); judged by ${p}'s hooks, answered in ${p}'s format${tools === "" ? "" : `; its tools matched as ${p}'s: ${tools}`}`,
  ];
}
