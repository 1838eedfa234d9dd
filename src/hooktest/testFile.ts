import { appendFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { QhooksError } from "../errors.js";
import { describeJsonError } from "../json/describeJsonError.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/jsonDepth.js";
import { HookTestCaseSchema, type HookTestCase } from "../schema/hookTest.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import { oneLineText } from "../text/oneLine.js";

/** Where a project keeps its hook tests: next to its settings, in the folder of the dialect's settings. */
export function defaultTestFile(projectDir: string, dialect: Dialect): string {
  return join(projectDir, hostDialect(dialect).projectFolder, "hook-tests.jsonl");
}

/** One non-blank line of a test file: a case, or why it is none. */
export type TestFileEntry =
  | { readonly line: number; readonly ok: true; readonly testCase: HookTestCase }
  | { readonly line: number; readonly ok: false; readonly name: string | null; readonly message: string };

/**
 * The cases of a test file, one per line (JSON Lines). A line that is not one is an entry of its own, with its
 * line number, so that one broken line fails alone and every other case still runs. Blank lines are skipped.
 */
export function parseTestFile(text: string): TestFileEntry[] {
  const entries: TestFileEntry[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split("\n")
    .forEach((raw, i) => {
      const content = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (content.trim() === "") return;
      entries.push(parseLine(content, i + 1));
    });
  return entries;
}

function parseLine(content: string, line: number): TestFileEntry {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (e) {
    return { line, ok: false, name: null, message: `not JSON (${describeJsonError(content, e).replace(/^line 1 /, "")})` };
  }
  const named = json !== null && typeof json === "object" && typeof (json as { name?: unknown }).name === "string" ? (json as { name: string }).name : null;
  // JSON.parse reads any depth, but the case's payload is serialised again to be judged, and JSON.stringify
  // overflows the stack a few thousand levels down: such a line fails alone, before anything recurses into it.
  if (nestsDeeperThan(content, MAX_JSON_DEPTH + 1))
    return { line, ok: false, name: named, message: `nests deeper than ${MAX_JSON_DEPTH} levels; a hook test cannot hold it` };
  const parsed = HookTestCaseSchema.safeParse(json);
  if (parsed.success) return { line, ok: true, testCase: parsed.data };
  return { line, ok: false, name: named, message: `not a hook test: ${firstIssueLine(parsed.error)}` };
}

/** A case as one line of the file: keys in the schema's order, nothing else, so that a line is stable. */
export const caseLine = (testCase: HookTestCase): string => JSON.stringify(testCase);

/** The file's text; a file that is missing or is no regular file is one clear line (a FIFO would hang a read). */
export function readTestFile(path: string, shown: string): string {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new QhooksError("io", `no hook tests at ${oneLineText(shown)} (qhooks test add SEQ saves a logged event there)`);
    throw new QhooksError("io", `cannot read ${oneLineText(shown)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (!isFile) throw new QhooksError("io", `${oneLineText(shown)} is not a file`);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new QhooksError("io", `cannot read ${oneLineText(shown)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/** Appends a case as the file's last line (creating the file and its folder); resolves to its line number. */
export function appendCase(path: string, testCase: HookTestCase, shown: string): number {
  try {
    let existing = "";
    try {
      if (!statSync(path).isFile()) throw new QhooksError("io", `${oneLineText(shown)} is not a file`);
      existing = readFileSync(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      mkdirSync(dirname(path), { recursive: true });
    }
    // A file whose last line has no line break (edited by hand) gets one first: the new case is a line of its own.
    const separator = existing === "" || existing.endsWith("\n") ? "" : "\n";
    appendFileSync(path, `${separator}${caseLine(testCase)}\n`);
    return (existing + separator).split("\n").length;
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("io", `cannot write ${oneLineText(shown)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
