import type { EventName } from "../schema/events.js";

/**
 * What a `prompt` or `agent` hook asks: the prompt (with `$ARGUMENTS` replaced by the event's JSON), the model the
 * hook names, and the event. The answer is read like an in-process handler's return value (`decision`, `reason`,
 * `systemMessage`...), or in the short form `{ ok: false, reason }` (block) / `{ ok: true }` (no objection).
 * `signal` aborts when the hook's timeout ends or the bus closes.
 */
export interface EvaluatorRequest {
  readonly type: "prompt" | "agent";
  readonly prompt: string;
  readonly model: string | null;
  readonly event: EventName;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly hookName: string;
  readonly signal: AbortSignal;
}
export type Evaluator = (request: EvaluatorRequest) => unknown;

/** What an `mcp_tool` hook calls; the answer is read like an evaluator's. */
export interface McpToolRequest {
  readonly server: string;
  readonly tool: string;
  /** The handler's `input`, or the event's payload when it has none. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly event: EventName;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly hookName: string;
  readonly signal: AbortSignal;
}
export type McpToolCaller = (request: McpToolRequest) => unknown;

/** What the embedding agent (or the CLI's configuration) lends the runners of hooks that are not commands. */
export interface HandlerServices {
  readonly evaluator?: Evaluator | undefined;
  readonly mcpToolCaller?: McpToolCaller | undefined;
}
