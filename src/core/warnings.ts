import type { LogWarning } from "../schema/logWarning.js";
import { envFileProblemText, type EnvFileProblem } from "./envFileProblem.js";
import { overrunText, type BudgetOverrun } from "./hookBudget.js";

/**
 * What the pipeline has to say about one event besides its decision, as values with a kind: the steps that add,
 * merge or replace warnings (a failed arrival followed by a failed outcome is one line, not two) find them by kind.
 * They become the outcome's `warnings` lines in one place, warningText().
 */
export type PipelineWarning =
  /** A line another step already wrote (selection, a hook's output, the fold, the env file...). */
  | { readonly kind: "line"; readonly text: string }
  /** $CLAUDE_ENV_FILE of a SessionStart: not made, not a regular file, too large, a line that is not an assignment. */
  | { readonly kind: "env-file"; readonly problem: EnvFileProblem }
  /**
   * What the log said about itself while appending (it was reopened, its projector stopped, the event went to the
   * fallback file): `of` is the log's own kind for it.
   */
  | { readonly kind: "log"; readonly of: LogWarning["kind"]; readonly message: string }
  /** The event's arrival could not be written; its hooks ran all the same. */
  | { readonly kind: "arrival-not-recorded"; readonly event: string; readonly why: string }
  /** The outcome could not be written (alone after its arrival, or with the event when no hook ran). */
  | { readonly kind: "outcome-not-recorded"; readonly event: string; readonly why: string }
  /** The arrival could not be written, and then neither could the event with its outcome: one line for both. */
  | { readonly kind: "event-not-recorded"; readonly event: string; readonly why: string }
  | { readonly kind: "rejection-not-recorded"; readonly why: string }
  /**
   * A `qhooks` setting of a file whose hooks need trust, not applied while trust is required (trust pins hooks, not
   * settings).
   */
  | { readonly kind: "setting-needs-trust"; readonly file: string; readonly key: string }
  /** The Stop-loop guard could not count this event's streak. */
  | { readonly kind: "stop-guard-off"; readonly why: "no-log" | "unreadable"; readonly detail: string | null }
  /** A hook's run in this event alone crossed a `qhooks.budget` limit per turn (time added, context injected). */
  | { readonly kind: "over-budget"; readonly overrun: BudgetOverrun };

export const line = (text: string): PipelineWarning => ({ kind: "line", text });

export function warningText(w: PipelineWarning): string {
  switch (w.kind) {
    case "line":
      return w.text;
    case "env-file":
      return envFileProblemText(w.problem);
    case "log":
      return `event log: ${w.message}`;
    case "arrival-not-recorded":
      return `event log: arrival of this ${w.event} event not recorded: ${w.why}`;
    case "outcome-not-recorded":
      return `event log: outcome of this ${w.event} event not recorded: ${w.why}`;
    case "event-not-recorded":
      return `event log: this ${w.event} event and its outcome not recorded: ${w.why}`;
    case "rejection-not-recorded":
      return `event log: rejection not recorded: ${w.why}`;
    case "setting-needs-trust":
      return `${w.file}: qhooks.${w.key}: not applied while trust is required (qhooks trust covers this file's hooks, not its settings); only your own settings set it`;
    case "over-budget":
      return overrunText(w.overrun);
    case "stop-guard-off":
      return w.why === "no-log"
        ? "Stop-loop guard is off without an event log: a Stop hook that always blocks can keep the agent going forever"
        : `Stop-loop guard is off for this event: the log cannot be read (${w.detail ?? "unknown error"})`;
  }
}

export const warningLines = (warnings: readonly PipelineWarning[]): string[] => warnings.map(warningText);
