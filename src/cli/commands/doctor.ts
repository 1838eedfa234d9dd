import { z } from "zod";
import { EXIT } from "../../errors.js";
import { LEVEL_RANK, runDoctor } from "../../doctor/runDoctor.js";
import { githubFindings, prettyFindings, summaryLine } from "../../doctor/formatFindings.js";
import { RULES } from "../../doctor/rules/index.js";
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

/** `qhooks doctor`: the rule catalog over the configuration as qhooks loads it; exit 1 per --fail-on. */
export function doctorCommand(flags: DoctorFlags, context: CliContext): number {
  const snapshot = settingsOfFlags(flags, context);
  const trustCommand = trustCommandLine({ projectDir: context.projectDir, dialect: context.dialect });
  const trust = createTrustPolicy({ homeDir: context.homeDir, projectDir: context.projectDir, env: context.env, dialect: context.dialect, trustCommand }).check(
    snapshot,
  );
  const findings = runDoctor({ snapshot, dialect: context.dialect, projectDir: context.projectDir, homeDir: context.homeDir, env: context.env, trust });
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
