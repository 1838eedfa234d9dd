import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { CALL_CHAIN_VAR, parseCallChain } from "../../exec/hookEnvironment.js";
import { caseFromEvent } from "../../hooktest/caseFromEvent.js";
import { toJunit } from "../../hooktest/junit.js";
import { readLoggedEvent } from "../../hooktest/loggedEvent.js";
import { casePassed, runCases, type CaseResult } from "../../hooktest/runCases.js";
import { appendCase, defaultTestFile, parseTestFile, readTestFile } from "../../hooktest/testFile.js";
import { DecisionSchema } from "../../schema/events.js";
import { openStore } from "../../store/openStore.js";
import { oneLineText } from "../../text/oneLine.js";
import { requireProjectDir, requireSettingsFiles, type CliContext } from "../globals.js";
import { out, warn } from "../io.js";
import { stdoutTerminal } from "../../display/terminal.js";
import { notInLog, seqArgument } from "../seqArg.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";

const nonEmpty = z.string().min(1);

export const TestFlagsSchema = z.object({
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  file: nonEmpty.optional(),
  junit: nonEmpty.optional(),
});
export type TestFlags = z.infer<typeof TestFlagsSchema>;

export const TestAddFlagsSchema = z.object({
  expect: z.enum(DecisionSchema.options, { error: `must be one of ${DecisionSchema.options.join(", ")}` }).optional(),
  name: nonEmpty.optional(),
  reason: nonEmpty.optional(),
  ran: z.array(nonEmpty).default([]),
  notRan: z.array(nonEmpty).default([]),
  file: nonEmpty.optional(),
});
export type TestAddFlags = z.infer<typeof TestAddFlagsSchema>;

/** `qhooks test add <seq>`: a logged event, saved as a case of the project's test file. */
export async function testAddCommand(seqArg: string, flags: TestAddFlags, context: CliContext): Promise<number> {
  const seq = seqArgument(seqArg);
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const logged = await readLoggedEvent(log, seq);
    if (logged === null) throw new QhooksError("usage", await notInLog(log, seq));
    const made = caseFromEvent(logged, flags);
    if (!made.ok) throw new QhooksError("usage", made.problem.message);
    // The test file of the host the event was judged for, unless the person names one (--dialect, $QHOOKS_DIALECT).
    const dialect = context.dialectNamed ? context.dialect : (logged.dialect ?? context.dialect);
    const { file, shown } = testFile(flags.file, { ...context, dialect });
    const line = appendCase(file, made.testCase, shown);
    const text = stdoutText(context);
    const { name, event, expect } = made.testCase;
    out(`Added "${text(name)}" to ${text(shown)}, line ${line}: ${event}${logged.matchValue ? ` ${text(logged.matchValue)}` : ""} expects ${expect.decision}`);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/** `qhooks test`: every case of the test file judged with the settings in force; exit 1 when one fails. */
export async function testCommand(flags: TestFlags, context: CliContext): Promise<number> {
  const projectDir = requireProjectDir(context);
  // A test run judges with exactly the files named: a mistyped one would otherwise judge with no hooks at all.
  requireSettingsFiles(flags.settings);
  const { file, shown } = testFile(flags.file, context);
  const entries = parseTestFile(readTestFile(file, shown));
  const text = stdoutText(context);
  if (entries.length === 0) warn(`no test cases in ${oneLineText(shown)}`);

  const startedAt = new Date();
  const started = performance.now();
  const results: CaseResult[] = [];
  const warned = new Set<string>();
  const cases = runCases(entries, {
    projectDir,
    homeDir: context.homeDir,
    settingsFiles: flags.settings,
    plugins: flags.plugin,
    dialect: context.dialect,
    env: context.env,
    callChain: parseCallChain(context.env[CALL_CHAIN_VAR]),
  });
  for await (const { result, warnings } of cases) {
    // The same settings warning would come with every case: once is enough.
    for (const w of warnings) {
      if (warned.has(w)) continue;
      warned.add(w);
      warn(w);
    }
    results.push(result);
    out(caseLine(result, text));
  }
  const failed = results.filter((r) => !casePassed(r)).length;
  out(`${results.length - failed} passed, ${failed} failed`);

  if (flags.junit !== undefined) {
    const xml = toJunit(results, {
      file: shown,
      classname: basename(file)
        .replace(/\.jsonl$/, "")
        .replace(/\./g, "_"),
      startedAt,
      durationMs: performance.now() - started,
    });
    writeReport(resolve(flags.junit), xml, flags.junit);
  }
  return failed === 0 ? EXIT.ok : EXIT.failure;
}

/** `ok    name (line 3): deny`, or `FAIL  name (line 4): expected deny, got none; ...`. */
function caseLine(r: CaseResult, text: (s: string) => string): string {
  const where = r.name === null ? `line ${r.line}` : `${text(oneLineText(r.name, 100))} (line ${r.line})`;
  if (casePassed(r)) return `ok    ${where}: ${r.outcome?.decision ?? ""}`;
  return `FAIL  ${where}: ${text(r.problems.map((p) => p.message).join("; "))}`;
}

/** The test file: `--file`, else the project's; with the path to show (relative to here when it is below). */
function testFile(flag: string | undefined, context: CliContext): { file: string; shown: string } {
  // The project's file: in a project that exists (a mistyped --project-dir must not be created by `test add`).
  const file = flag === undefined ? defaultTestFile(requireProjectDir(context), context.dialect) : resolve(flag);
  const rel = relative(process.cwd(), file);
  return { file, shown: rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file };
}

/** Human output shows what comes from files and hooks escaped, as the listings do. */
function stdoutText(context: CliContext): (s: string) => string {
  return stdoutTerminal(context.env).utf8 ? escapeForTerminal : escapeToAscii;
}

function writeReport(path: string, xml: string, shown: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, xml);
  } catch (e) {
    throw new QhooksError("io", `cannot write the JUnit report ${oneLineText(shown)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
