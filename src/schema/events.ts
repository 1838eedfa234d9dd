import { z } from "zod";

import { EVENT_NAMES } from "./eventNames.js";

export { EVENT_NAMES };

export const EventNameSchema = z.enum(EVENT_NAMES);
export type EventName = z.infer<typeof EventNameSchema>;

/** Every decision an outcome can carry; each event allows a subset (EVENT_TRAITS). */
export const DecisionSchema = z.enum(["allow", "deny", "ask", "block", "none"]);
export type Decision = z.infer<typeof DecisionSchema>;

/** What an event is, as far as matching and judging go. */
export interface EventTraits {
  /** Payload field the matcher is tested against; null: the event always fires, matchers are ignored. */
  readonly matchField: string | null;
  /** The decision exit code 2 produces; null: the event cannot be blocked (exit 2 is an error). */
  readonly blockDecision: "deny" | "block" | null;
  /** Decisions from strongest to weakest; `none` is always last. */
  readonly decisionRank: readonly Decision[];
  /** Whether plain stdout and `additionalContext` become context for the agent. */
  readonly carriesContext: boolean;
  /** Whether plain (non-JSON) stdout on exit 0 becomes context. */
  readonly stdoutIsContext: boolean;
}

const blockable = (matchField: string | null, carriesContext: boolean): EventTraits => ({
  matchField,
  blockDecision: "block",
  decisionRank: ["block", "none"],
  carriesContext,
  stdoutIsContext: false,
});
const informational = (matchField: string, carriesContext = false, stdoutIsContext = false): EventTraits => ({
  matchField,
  blockDecision: null,
  decisionRank: ["none"],
  carriesContext,
  stdoutIsContext,
});

export const EVENT_TRAITS: Readonly<Record<EventName, EventTraits>> = {
  PreToolUse: {
    matchField: "tool_name",
    blockDecision: "deny",
    decisionRank: ["deny", "ask", "allow", "none"],
    carriesContext: true,
    stdoutIsContext: false,
  },
  PermissionRequest: {
    matchField: "tool_name",
    blockDecision: "deny",
    decisionRank: ["deny", "allow", "none"],
    carriesContext: false,
    stdoutIsContext: false,
  },
  PostToolUse: blockable("tool_name", true),
  PostToolUseFailure: blockable("tool_name", true),
  UserPromptSubmit: { ...blockable(null, true), stdoutIsContext: true },
  Stop: blockable(null, false),
  SubagentStop: blockable("agent_type", false),
  SubagentStart: informational("agent_type", true),
  SessionStart: informational("source", true, true),
  SessionEnd: informational("reason"),
  PreCompact: informational("trigger"),
  Notification: informational("notification_type"),
};

export const isBlockingDecision = (decision: string | null | undefined): boolean =>
  decision === "deny" || decision === "block";

// ---- Payloads: loose objects, so that unknown fields pass; only what qhooks relies on is checked. ----

const object = () => z.looseObject({}, { error: "expected an object" });

/** Fields every payload has. `hook_event_name` and `cwd` are filled in when absent. */
export const CommonPayloadSchema = z.looseObject({
  session_id: z.string().min(1),
  hook_event_name: z.string().optional(),
  cwd: z.string().optional(),
});

const toolCall = {
  tool_name: z.string(),
  tool_input: object(),
};

export const PAYLOAD_SCHEMAS = {
  PreToolUse: CommonPayloadSchema.extend(toolCall),
  PermissionRequest: CommonPayloadSchema.extend(toolCall),
  PostToolUse: CommonPayloadSchema.extend({
    ...toolCall,
    tool_response: z.unknown().refine((v) => v !== undefined, { error: "missing (expected any JSON value)" }),
  }),
  PostToolUseFailure: CommonPayloadSchema.extend({ ...toolCall, error: z.string() }),
  UserPromptSubmit: CommonPayloadSchema.extend({ prompt: z.string() }),
  Stop: CommonPayloadSchema.extend({ stop_hook_active: z.boolean().optional() }),
  SubagentStop: CommonPayloadSchema.extend({ agent_type: z.string(), stop_hook_active: z.boolean().optional() }),
  SubagentStart: CommonPayloadSchema.extend({ agent_type: z.string() }),
  SessionStart: CommonPayloadSchema.extend({ source: z.string() }),
  SessionEnd: CommonPayloadSchema.extend({ reason: z.string() }),
  PreCompact: CommonPayloadSchema.extend({ trigger: z.enum(["manual", "auto"]) }),
  Notification: CommonPayloadSchema.extend({ message: z.string(), notification_type: z.string().optional() }),
} satisfies Record<EventName, z.ZodType>;

export type Payload<E extends EventName = EventName> = z.infer<(typeof PAYLOAD_SCHEMAS)[E]>;

/** The value an event's matchers are tested against: the match field, or "" when it is absent. */
export function matchValueOf(event: EventName, payload: Record<string, unknown>): string | null {
  const field = EVENT_TRAITS[event].matchField;
  if (field === null) return null;
  const value = payload[field];
  return typeof value === "string" ? value : "";
}
