import type { HookTestExpect } from "../schema/hookTest.js";
import type { Outcome } from "../schema/outcome.js";
import { oneLineText } from "../text/oneLine.js";

/**
 * Why a case failed, by kind: the file's line is not a case, the payload was rejected, qhooks itself failed, or one
 * of the expectations was not met. JUnit's failure type is the kind.
 */
export type ProblemKind = "broken-line" | "rejected" | "internal" | "decision" | "reason" | "ran" | "not-ran";

export interface Problem {
  readonly kind: ProblemKind;
  /** One line. */
  readonly message: string;
}

/** What the outcome does not do of what the case expects; none when it passes. A pure function of the two. */
export function checkOutcome(expect: HookTestExpect, outcome: Outcome): Problem[] {
  const problems: Problem[] = [];
  if (outcome.decision !== expect.decision) {
    const because = outcome.reason ? ` (${oneLineText(outcome.reason, 120)})` : "";
    const troubles = hookTroubles(outcome);
    problems.push({
      kind: "decision",
      message: `expected ${expect.decision}, got ${outcome.decision}${because}${troubles.length ? `; ${troubles.join("; ")}` : ""}`,
    });
  }
  if (expect.reason !== undefined && !(outcome.reason ?? "").includes(expect.reason)) {
    const reason = oneLineText(expect.reason, 80);
    problems.push({
      kind: "reason",
      message:
        outcome.reason === null
          ? `no reason, expected one containing "${reason}"`
          : `the reason "${oneLineText(outcome.reason, 120)}" does not contain "${reason}"`,
    });
  }
  const ran = outcome.hooks.map((h) => h.name);
  for (const name of expect.ran ?? []) {
    if (outcome.hooks.some((h) => names(h, name))) continue;
    const skipped = outcome.skipped.find((s) => names(s, name));
    const why = skipped
      ? `skipped: ${oneLineText(skipped.message, 120)}`
      : ran.length
        ? `ran: ${ran.map((n) => oneLineText(n, 40)).join(", ")}`
        : "no hook ran";
    problems.push({ kind: "ran", message: `hook "${oneLineText(name, 60)}" did not run (${why})` });
  }
  for (const name of expect.notRan ?? []) {
    const result = outcome.hooks.find((h) => names(h, name));
    if (result) problems.push({ kind: "not-ran", message: `hook "${oneLineText(name, 60)}" ran (${result.outcome})` });
  }
  return problems;
}

/** The hooks that did not end as hooks should (timed out, failed, bad output, skipped): what explains a decision. */
function hookTroubles(outcome: Outcome): string[] {
  const name = (n: string) => oneLineText(n, 40);
  const troubles: string[] = [];
  for (const h of outcome.hooks) {
    if (h.outcome === "timeout") troubles.push(`${name(h.name)} timed out after ${(h.durationMs / 1000).toFixed(1)} s`);
    else if (h.outcome === "error") troubles.push(`${name(h.name)} failed: ${oneLineText(h.error ?? "error", 100)}`);
    else if (h.outcome === "invalid-output") troubles.push(`${name(h.name)} printed invalid output: ${oneLineText(h.error ?? "", 100)}`);
  }
  for (const s of outcome.skipped) troubles.push(`${name(s.name)} skipped (${s.reason})`);
  return troubles;
}

/**
 * Whether a case's hook name names this hook: its name, or its whole command, the default name before short names
 * (so cases written then still pass).
 */
const names = (hook: { readonly name: string; readonly command: string | null }, name: string): boolean => hook.name === name || hook.command === name;
