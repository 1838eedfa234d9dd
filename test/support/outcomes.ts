import type { EventName } from "../../src/schema/events.js";
import { HookResultSchema, OutcomeSchema, type HookResult, type Outcome } from "../../src/schema/outcome.js";

/** An outcome as the engine makes it (checked against its schema), with what a test says about it. */
export function outcomeOf(event: EventName, said: Partial<Outcome> = {}): Outcome {
  return OutcomeSchema.parse({
    event,
    sessionId: "s1",
    seq: null,
    decision: "none",
    blocked: false,
    reason: null,
    continue: true,
    stopReason: null,
    systemMessages: [],
    additionalContext: [],
    updatedInput: null,
    suppressOutput: false,
    configHash: "0".repeat(64),
    durationMs: 1,
    hooks: [],
    skipped: [],
    env: {},
    warnings: [],
    ...said,
  });
}

/** One hook's result as the engine makes it (checked against its schema): a successful run, with what a test says. */
export function hookResultOf(said: Partial<HookResult> & Pick<HookResult, "name">): HookResult {
  return HookResultSchema.parse({
    command: "x",
    level: "user",
    matcher: null,
    outcome: "success",
    decision: "none",
    reason: null,
    error: null,
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    stdout: "",
    stderr: "",
    truncated: false,
    ...said,
  });
}
