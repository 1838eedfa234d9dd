import type { SkippedHook } from "../schema/outcome.js";
import { oneLineText } from "../text/oneLine.js";
import type { TrustCheck } from "./trustPolicy.js";
import { whereOf } from "./trustScope.js";
import type { SelectedHook } from "../core/hookDescriptor.js";

/** The hooks selected for an event, split by trust: those that run, and those reported as skipped. */
export interface TrustSplit {
  readonly runnable: readonly SelectedHook[];
  readonly skipped: readonly SkippedHook[];
  /** One line per untrusted hook (naming it and the command that trusts it), or one line for a refused store. */
  readonly warnings: readonly string[];
}

/**
 * Keeps every selected hook that trust lets run, in selection order, and reports each other one in `skipped`,
 * never silently. Without a check (trust not required) everything runs and nothing is computed.
 */
export function splitByTrust(hooks: readonly SelectedHook[], check: TrustCheck | null): TrustSplit {
  if (check === null) return { runnable: hooks, skipped: [], warnings: [] };
  const runnable: SelectedHook[] = [];
  const skipped: SkippedHook[] = [];
  const warnings: string[] = [];
  for (const spec of hooks) {
    const verdict = spec.kind === "in-process" ? ({ runs: true } as const) : check.verdict(spec.command, spec.declared);
    if (verdict.runs) {
      runnable.push(verdict.verified && spec.kind !== "in-process" ? { ...spec, verified: verdict.verified } : spec);
      continue;
    }
    skipped.push({
      name: spec.name,
      command: spec.command,
      level: spec.level,
      matcher: spec.matcherSource,
      type: spec.kind === "in-process" ? "command" : spec.kind,
      reason: "untrusted",
      message: verdict.message,
    });
    const declared = spec.kind === "in-process" ? undefined : spec.declared[0];
    // What would be trusted is the command: said whole when the hook's (short) name does not.
    const command = declared && declared.name !== declared.written ? `${oneLineText(declared.written)}, ` : "";
    const where = declared ? ` (${command}${whereOf(declared)})` : "";
    if (check.storeProblem() === null) warnings.push(`hook ${oneLineText(spec.name)}${where} did not run: ${verdict.message}`);
  }
  const storeProblem = check.storeProblem();
  if (storeProblem !== null && skipped.length > 0) {
    warnings.push(`${storeProblem}; no hook from the project, its local settings or plugins runs until it is fixed (${skipped.length} skipped)`);
  }
  return { runnable, skipped, warnings };
}
