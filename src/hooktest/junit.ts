import type { Outcome } from "../schema/outcome.js";
import { casePassed, type CaseResult } from "./runCases.js";

export interface JunitOptions {
  /** The test file as the user named it: the suite's name and, in each failure, where the case is. */
  readonly file: string;
  /** The classname of every case (CI readers show it as the suite or class). */
  readonly classname: string;
  readonly startedAt: Date;
  readonly durationMs: number;
}

/** Longest hook output quoted in a failure, in characters: enough to see why, not a megabyte per case. */
const MAX_OUTPUT = 2000;

/**
 * The results as JUnit XML: one `<testsuites>` holding one `<testsuite>`, one `<testcase>` per case, with a
 * `<failure>` (message = the line printed, type = the kind of problem) for a failed one. Written to the subset that
 * the common readers share (Jenkins' and Surefire's schema, GitLab, GitHub actions): counts on both levels, times
 * in seconds with at most three decimals, a timestamp without a zone, names unique within the suite (GitLab keeps
 * only the first of two cases with the same name), and only `<failure>`, which every schema has (a broken line
 * fails like any other case), never `<error>`. Text that XML 1.0 cannot hold (most control characters, halves of
 * surrogate pairs) is written as `\uXXXX`.
 */
export function toJunit(results: readonly CaseResult[], options: JunitOptions): string {
  const failures = results.filter((r) => !casePassed(r)).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const names = uniqueNames(results);
  const cases = results.map((r, i) => {
    const open = `    <testcase name="${attr(names[i]!)}" classname="${attr(options.classname)}" time="${seconds(r.durationMs)}"`;
    if (casePassed(r)) return `${open}/>`;
    const message = r.problems.map((p) => p.message).join("; ");
    return `${open}>\n      <failure message="${attr(message)}" type="${attr(r.problems[0]!.kind)}">${text(details(r, options.file))}</failure>\n    </testcase>`;
  });
  const counts = `tests="${results.length}" failures="${failures}" errors="0"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="qhooks test" ${counts} time="${seconds(options.durationMs)}">`,
    `  <testsuite name="${attr(options.file)}" ${counts} skipped="0" time="${seconds(options.durationMs)}" timestamp="${localTimestamp(options.startedAt)}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** Each case's name, or `line N` for a broken line that names nothing; a name used twice gets its line added. */
function uniqueNames(results: readonly CaseResult[]): string[] {
  const base = results.map((r) => r.name ?? `line ${r.line}`);
  const seen = new Map<string, number>();
  for (const n of base) seen.set(n, (seen.get(n) ?? 0) + 1);
  return base.map((n, i) => (seen.get(n)! > 1 ? `${n} (line ${results[i]!.line})` : n));
}

/** Where the case is, every problem, and each hook's run with what it printed: what a CI page shows on a click. */
function details(r: CaseResult, file: string): string {
  const lines = [`line ${r.line} of ${file}${r.event ? `: ${r.event}` : ""}`, ...r.problems.map((p) => `${p.kind}: ${p.message}`)];
  if (r.outcome) lines.push(...outcomeLines(r.outcome));
  return lines.join("\n");
}

function outcomeLines(outcome: Outcome): string[] {
  const lines = [`outcome: ${outcome.decision}${outcome.reason === null ? "" : ` (${outcome.reason})`}`];
  for (const h of outcome.hooks) {
    const exit = h.exitCode === null ? (h.signal ?? "no exit code") : `exit ${h.exitCode}`;
    lines.push(`hook ${h.name}: ${h.outcome}, ${h.decision}, ${exit}, ${Math.round(h.durationMs)} ms${h.error ? `: ${h.error}` : ""}`);
    if (h.stdout) lines.push(`  stdout: ${cut(h.stdout)}`);
    if (h.stderr) lines.push(`  stderr: ${cut(h.stderr)}`);
  }
  for (const s of outcome.skipped) lines.push(`skipped ${s.name}: ${s.message}`);
  return lines;
}

const cut = (s: string) => (s.length > MAX_OUTPUT ? `${s.slice(0, MAX_OUTPUT)}… (${s.length} characters)` : s);

// Characters XML 1.0 allows: tab, line feed, carriage return, and the rest of Unicode but the surrogates, U+FFFE
// and U+FFFF (a lone surrogate is matched on its own, with the u flag).
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

const safe = (s: string) => s.replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Text content: the markup characters escaped. */
function text(s: string): string {
  return safe(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** An attribute's value: also quotes, and the white space a parser would otherwise turn into spaces. */
function attr(s: string): string {
  return text(s).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

/** `2026-01-13T09:00:05`: local time without a zone, as the schema of the timestamp attribute wants it. */
function localTimestamp(at: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())}T${p(at.getHours())}:${p(at.getMinutes())}:${p(at.getSeconds())}`;
}
