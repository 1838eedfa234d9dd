import { oneLineText } from "../text/oneLine.js";
import type { z } from "zod";
import { describeJsonError } from "../json/describeJsonError.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/jsonDepth.js";
import { EVENT_TRAITS, isBlockingDecision, type Decision, type EventName } from "../schema/events.js";
import { EMPTY_VERDICT, HandlerVerdictSchema, HOOK_OUTPUT_SCHEMAS, type Verdict } from "../schema/hookOutput.js";
import { lazy } from "../schema/lazy.js";
import type { HookOutcomeKind, HookResult } from "../schema/outcome.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import { readMalformedDecision } from "./malformedDecision.js";
import type { HookRun, JudgedHook } from "./hookRun.js";
import type { SelectedHook } from "./hookDescriptor.js";

/** What an in-process handler may return; `undefined` means no opinion (HandlerVerdictSchema, schema/hookOutput.ts). */
export const InProcessResultSchema = lazy(() => HandlerVerdictSchema.optional());
export type InProcessResult = z.infer<typeof InProcessResultSchema>;

/**
 * Reads a finished run of `spec` as a decision: exit codes and JSON for commands, return values for in-process handlers
 * (docs/hooks.md). `readOutput` puts a command's stdout JSON written for another host in the shape read here.
 */
export function interpretRun(event: EventName, spec: SelectedHook, run: HookRun, readOutput?: (output: unknown) => unknown): JudgedHook {
  return blockOnFailure(event, spec, readRun(event, spec, run, readOutput));
}

/** Results that say the hook could not give a decision: what `onFailure: "block"` turns into a block. */
const FAILURES: ReadonlySet<HookOutcomeKind> = new Set(["error", "timeout", "invalid-output"]);

/**
 * `onFailure: "block"`: a guard that could not start, timed out, failed or printed something unreadable blocks the
 * event (when the event can be blocked) instead of failing open. The result keeps its error; its outcome becomes
 * `block`, with the failure as the reason.
 */
function blockOnFailure(event: EventName, spec: SelectedHook, judged: JudgedHook): JudgedHook {
  const blockDecision = EVENT_TRAITS[event].blockDecision;
  if (spec.kind === "in-process" || spec.handler.onFailure !== "block" || spec.handler.async === true) return judged;
  if (blockDecision === null || !FAILURES.has(judged.result.outcome)) return judged;
  const reason = `hook ${spec.name} failed and blocks on failure (onFailure: "block"): ${judged.result.error ?? judged.result.outcome}`;
  return {
    result: { ...judged.result, outcome: "block", decision: blockDecision, reason },
    verdict: { ...EMPTY_VERDICT, decision: blockDecision, reason },
    warnings: judged.warnings,
  };
}

function readRun(event: EventName, spec: SelectedHook, run: HookRun, readOutput?: (output: unknown) => unknown): JudgedHook {
  const traits = EVENT_TRAITS[event];
  const base: HookResult = {
    name: spec.name,
    command: spec.command,
    level: spec.level,
    matcher: spec.matcherSource,
    outcome: "success",
    decision: "none",
    reason: null,
    error: null,
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: round(run.durationMs),
    stdout: "",
    stderr: "",
    truncated: false,
    ...(spec.shadow ? { shadow: true as const } : {}),
  };
  const failed = (outcome: HookOutcomeKind, error: string, extra: Partial<HookResult> = {}): JudgedHook => ({
    result: { ...base, ...extra, outcome, error },
    verdict: EMPTY_VERDICT,
    warnings: [],
  });
  const decided = (verdict: Verdict, extra: Partial<HookResult>): JudgedHook => {
    const blocking = isBlockingDecision(verdict.decision);
    const reason = verdict.reason ?? (blocking ? `blocked by hook ${spec.name} (no reason given)` : null);
    return {
      result: { ...base, ...extra, outcome: blocking ? "block" : "success", decision: verdict.decision, reason },
      verdict: { ...verdict, reason },
      warnings: verdict.ignored.map((what) => `hook ${oneLineText(spec.name)}: ${what} ignored`),
    };
  };

  /** The output's defect, on the result (kind-tagged) and as the event's warning (one line, naming the hook). */
  const withDefect = (judged: JudgedHook, message: string, kept: string): JudgedHook => ({
    result: { ...judged.result, warnings: [{ kind: "malformed-output", message }] },
    verdict: judged.verdict,
    warnings: [...judged.warnings, `hook ${oneLineText(spec.name)}: ${message}; read as ${kept} all the same`],
  });

  switch (run.type) {
    case "spawn-error":
      return failed("error", run.message);
    case "failed":
      return failed("error", run.message, { stdout: run.stdout ?? "", truncated: run.truncated ?? false });
    case "threw":
      return failed("error", `threw: ${run.message}`);
    case "timeout": {
      const output = { stdout: run.stdout, stderr: run.stderr, truncated: run.truncated, timedOut: true };
      return failed("timeout", `timed out after ${run.limitMs / 1000} s`, output);
    }
    case "unreadable":
      return failed("invalid-output", `returned ${run.message}`);
    case "returned": {
      const parsed = InProcessResultSchema.safeParse(run.value);
      if (!parsed.success) return failed("invalid-output", `returned ${firstIssueLine(parsed.error)}`);
      return decided(verdictFromHandler(event, parsed.data), {});
    }
    case "exited": {
      const output = { exitCode: run.exitCode, signal: run.signal, stdout: run.stdout, stderr: run.stderr, truncated: run.truncated };
      if (run.signal !== null) return failed("error", `killed by ${run.signal}`, output);
      if (run.exitCode === 0) {
        const text = run.stdout.trim();
        if (text.startsWith("{")) {
          if (nestsDeeperThan(text)) {
            return failed("invalid-output", `stdout JSON nests deeper than ${MAX_JSON_DEPTH} levels`, output);
          }
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch (e) {
            const cut = run.truncated ? ", and was cut at the output cap" : "";
            return failed("invalid-output", `stdout starts with { but is not valid JSON (${describeJsonError(text, e)})${cut}`, output);
          }
          if (readOutput !== undefined) json = readOutput(json);
          const verdict = HOOK_OUTPUT_SCHEMAS[event].safeParse(json);
          if (verdict.success) return decided(verdict.data, output);
          const issue = firstIssueLine(verdict.error);
          // A malformed deny stays a deny (malformedDecision.ts); anything less is invalid output, as it always was.
          const kept = readMalformedDecision(event, json);
          if (kept === null) return failed("invalid-output", `stdout JSON: ${issue}`, output);
          return withDefect(decided(kept, output), `stdout JSON: ${issue}`, whatWasKept(kept));
        }
        const context = traits.stdoutIsContext && text !== "" ? text : null;
        return decided({ ...EMPTY_VERDICT, additionalContext: context }, output);
      }
      if (run.exitCode === 2 && traits.blockDecision !== null) {
        const reason = run.stderr.trim() || null;
        return decided({ ...EMPTY_VERDICT, decision: traits.blockDecision, reason }, output);
      }
      const detail = firstLine(run.stderr);
      if (run.exitCode === 2) return failed("error", `exit 2, but ${event} cannot be blocked${detail ? `: ${detail}` : ""}`, output);
      if (run.exitCode === 127) return failed("error", `exit 127: command not found${detail ? ` (${detail})` : ""}`, output);
      return failed("error", `exit ${run.exitCode}${detail ? `: ${detail}` : ""}`, output);
    }
  }
}

/** How the warning names what a malformed output was read as: `its deny`, `its stop`, `its block and stop`. */
function whatWasKept(verdict: Verdict): string {
  const parts = [...(verdict.decision === "none" ? [] : [verdict.decision]), ...(verdict.continue ? [] : ["stop"])];
  return `its ${parts.join(" and ")}`;
}

/** An in-process handler speaks the engine's vocabulary; map it to what this event can decide. */
function verdictFromHandler(event: EventName, out: InProcessResult): Verdict {
  const ignored: string[] = [];
  let decision: Decision = "none";
  if (out?.decision !== undefined) {
    const mapped = mapDecision(event, out.decision);
    if (mapped === null) ignored.push(`decision "${out.decision}" (not one ${event} can make)`);
    else decision = mapped;
  }
  const carries = EVENT_TRAITS[event].carriesContext;
  if (out?.additionalContext !== undefined && !carries) ignored.push(`additionalContext (${event} carries no context)`);
  return {
    ...EMPTY_VERDICT,
    decision,
    reason: out?.reason ?? null,
    updatedInput: out?.updatedInput ?? null,
    additionalContext: carries ? (out?.additionalContext ?? null) : null,
    systemMessage: out?.systemMessage ?? null,
    continue: out?.continue ?? true,
    stopReason: out?.stopReason ?? null,
    ignored,
  };
}

function mapDecision(event: EventName, decision: "allow" | "deny" | "ask" | "block"): Decision | null {
  const { decisionRank, blockDecision } = EVENT_TRAITS[event];
  if (decision === "deny" || decision === "block") return blockDecision;
  return decisionRank.includes(decision) ? decision : null;
}

function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
