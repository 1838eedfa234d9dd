import { existsSync } from "node:fs";
import { z } from "zod";
import { EXIT } from "../../errors.js";
import { LEVEL_RANK, runDoctor } from "../../doctor/runDoctor.js";
import { githubFindings, prettyFindings, summaryLine } from "../../doctor/formatFindings.js";
import { RULES } from "../../doctor/rules/index.js";
import { foldRunHistory, NO_HISTORY, type HistoryEvent, type RunHistory } from "../../doctor/runHistory.js";
import { isPostgresUrl, openStore } from "../../store/openStore.js";
import type { DoctorReport } from "../../schema/doctor.js";
import { createTrustPolicy } from "../../trust/trustPolicy.js";
import { trustCommandLine } from "../../trust/trustCommandLine.js";
import { stdoutTerminal } from "../../display/terminal.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";
import { err, out } from "../io.js";
import type { CliContext } from "../globals.js";
import { settingsOfFlags } from "../settingsFlags.js";

export const DoctorFlagsSchema = z.object({
  format: z.enum(["pretty", "json", "github"]).default("pretty"),
  failOn: z.enum(["error", "warn"]).default("error"),
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
});
export type DoctorFlags = z.infer<typeof DoctorFlagsSchema>;

/** The newest events of the log whose hook runs the guard rules read: recent enough to be today's hooks. */
export const HISTORY_EVENTS = 10_000;

/**
 * The log's history of hook runs; none when there is no log yet or it cannot be read (doctor checks the settings
 * first: a log it cannot read costs only what the runs would have added).
 */
async function logHistory(dbPath: string): Promise<RunHistory> {
  if (!isPostgresUrl(dbPath) && !existsSync(dbPath)) return NO_HISTORY;
  try {
    const log = openStore(dbPath, { mustExist: true, deadlines: "audit" });
    try {
      const events: HistoryEvent[] = [];
      for await (const r of log.events({}, HISTORY_EVENTS)) events.push({ seq: r.seq, event: r.event, hooks: r.hooks });
      return foldRunHistory(events);
    } finally {
      await log.close();
    }
  } catch {
    return NO_HISTORY;
  }
}

/** `qhooks doctor`: the rule catalog over the configuration as qhooks loads it, and the log's runs; exit 1 per --fail-on. */
export async function doctorCommand(flags: DoctorFlags, context: CliContext): Promise<number> {
  const snapshot = settingsOfFlags(flags, context);
  const trustCommand = trustCommandLine({ projectDir: context.projectDir, dialect: context.dialect });
  const trust = createTrustPolicy({ homeDir: context.homeDir, projectDir: context.projectDir, env: context.env, dialect: context.dialect, trustCommand }).check(
    snapshot,
  );
  const history = await logHistory(context.dbPath);
  const findings = runDoctor({
    snapshot,
    dialect: context.dialect,
    projectDir: context.projectDir,
    homeDir: context.homeDir,
    env: context.env,
    trust,
    history,
  });
  const failing = findings.some((f) => LEVEL_RANK[f.level] >= LEVEL_RANK[flags.failOn]);

  if (flags.format === "json") {
    const count = (level: string) => findings.filter((f) => f.level === level).length;
    const report: DoctorReport = {
      dialect: context.dialect,
      projectDir: context.projectDir,
      hooks: snapshot.hooks.length,
      rules: RULES.map((r) => r.id),
      findings,
      counts: { error: count("error"), warn: count("warn"), info: count("info") },
    };
    out(JSON.stringify(report, null, 2));
  } else if (flags.format === "github") {
    if (findings.length) out(githubFindings(findings));
    err(summaryLine(findings, snapshot.hooks.length));
  } else {
    // File names, commands and messages come from files anyone may have committed: escaped for the terminal.
    const shown = stdoutTerminal(context.env).utf8 ? escapeForTerminal : escapeToAscii;
    out(prettyFindings(findings, snapshot.hooks.length, shown));
  }
  return failing ? EXIT.failure : EXIT.ok;
}
