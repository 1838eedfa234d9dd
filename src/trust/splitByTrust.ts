import type { HookSpec } from "../core/stages.js";
import type { SkippedHook } from "../schema/outcome.js";
import { oneLineText } from "../text/oneLine.js";
import type { TrustCheck } from "./trustPolicy.js";
import { whereOf } from "./trustScope.js";

/** The hooks selected for an event, split by trust: those that run, and those reported as skipped. */
export interface TrustSplit {
  readonly runnable: readonly HookSpec[];
  readonly skipped: readonly SkippedHook[];
  /** One line per untrusted hook (naming it and the command that trusts it), or one line for a refused store. */
  readonly warnings: readonly string[];
}

/**
 * Keeps every selected hook that trust lets run, in selection order, and reports each other one in `skipped`,
 * never silently. Without a check (trust not required) everything runs and nothing is computed.
 */
export function splitByTrust(hooks: readonly HookSpec[], check: TrustCheck | null): TrustSplit {
  if (check === null) return { runnable: hooks, skipped: [], warnings: [] };
  const runnable: HookSpec[] = [];
  const skipped: SkippedHook[] = [];
  const warnings: string[] = [];
  for (const spec of hooks) {
    const verdict = spec.kind === "command" && spec.declared ? check.verdict(spec.command, spec.declared) : ({ runs: true } as const);
    if (verdict.runs) {
      runnable.push(verdict.verified && spec.kind === "command" ? { ...spec, verified: verdict.verified } : spec);
      continue;
    }
    skipped.push({
      name: spec.name,
      command: spec.command,
      level: spec.level,
      matcher: spec.matcher,
      type: spec.kind === "command" ? (spec.handler?.type ?? "command") : "command",
      reason: "untrusted",
      message: verdict.message,
    });
    const declared = spec.kind === "command" ? spec.declared?.[0] : undefined;
    const where = declared ? ` (${whereOf(declared)})` : "";
    if (check.storeProblem() === null) warnings.push(`hook ${oneLineText(spec.name)}${where} did not run: ${verdict.message}`);
  }
  const storeProblem = check.storeProblem();
  if (storeProblem !== null && skipped.length > 0) {
    warnings.push(`${storeProblem}; no hook from the project, its local settings or plugins runs until it is fixed (${skipped.length} skipped)`);
  }
  return { runnable, skipped, warnings };
}
