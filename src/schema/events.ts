import { z } from "zod";

import { EVENT_NAMES } from "./eventNames.js";
import { lazyRecord } from "./lazy.js";

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
  /** The match value is the field itself, or its last path segment (FileChanged matches file names). */
  readonly matchOn: "value" | "basename";
  /**
   * A matcher of plain names may hold only letters, digits, `_` and `|` (FileChanged, StopFailure): as in Claude
   * Code, a `-`, space or comma there makes it a regex.
   */
  readonly narrowNames: boolean;
  /** The decision exit code 2 produces; null: the event cannot be blocked (exit 2 is an error). */
  readonly blockDecision: "deny" | "block" | null;
  /** Decisions from strongest to weakest; `none` is always last. */
  readonly decisionRank: readonly Decision[];
  /** Whether plain stdout and `additionalContext` become context for the agent. */
  readonly carriesContext: boolean;
  /** Whether plain (non-JSON) stdout on exit 0 becomes context. */
  readonly stdoutIsContext: boolean;
}

const base = { matchOn: "value", narrowNames: false, stdoutIsContext: false } as const;

const blockable = (matchField: string | null, carriesContext: boolean): EventTraits => ({
  ...base,
  matchField,
  blockDecision: "block",
  decisionRank: ["block", "none"],
  carriesContext,
});
const informational = (matchField: string | null, carriesContext = false, stdoutIsContext = false): EventTraits => ({
  ...base,
  matchField,
  blockDecision: null,
  decisionRank: ["none"],
  carriesContext,
  stdoutIsContext,
});
/** PreToolUse and PreModelSwitch: a permission decision, deny > ask > allow. */
const permission = (matchField: string, carriesContext: boolean): EventTraits => ({
  ...base,
  matchField,
  blockDecision: "deny",
  decisionRank: ["deny", "ask", "allow", "none"],
  carriesContext,
});

/**
 * The twelve classic events follow the Qoder CN CLI document (PreCompact cannot block there); the others follow
 * Claude Code's hooks reference: what the matcher filters, what exit 2 or a JSON decision can stop, and where
 * context goes.
 */
export const EVENT_TRAITS: Readonly<Record<EventName, EventTraits>> = {
  PreToolUse: permission("tool_name", true),
  PermissionRequest: {
    ...base,
    matchField: "tool_name",
    blockDecision: "deny",
    decisionRank: ["deny", "allow", "none"],
    carriesContext: false,
  },
  PostToolUse: blockable("tool_name", true),
  PostToolUseFailure: blockable("tool_name", true),
  UserPromptSubmit: { ...blockable(null, true), stdoutIsContext: true },
  // Current Claude Code reads additionalContext on a Stop as feedback that keeps the conversation going.
  Stop: blockable(null, true),
  SubagentStop: blockable("agent_type", true),
  SubagentStart: informational("agent_type", true),
  SessionStart: informational("source", true, true),
  SessionEnd: informational("reason"),
  PreCompact: informational("trigger"),
  Notification: informational("notification_type"),
  Setup: informational("trigger", true),
  InstructionsLoaded: informational("load_reason"),
  UserPromptExpansion: { ...blockable("command_name", true), stdoutIsContext: true },
  MessageDisplay: informational(null),
  PermissionDenied: informational("tool_name"),
  PostToolBatch: blockable(null, true),
  TaskCreated: blockable(null, false),
  TaskCompleted: blockable(null, false),
  StopFailure: { ...informational("error"), narrowNames: true },
  TeammateIdle: blockable(null, false),
  ConfigChange: blockable("source", false),
  CwdChanged: informational(null),
  DirectoryAdded: informational("source"),
  FileChanged: { ...informational("file_path"), matchOn: "basename", narrowNames: true },
  WorktreeCreate: blockable(null, false),
  WorktreeRemove: informational(null),
  PostCompact: informational("trigger"),
  PreModelSwitch: permission("to_model", false),
  PostModelSwitch: informational("to_model", true, true),
  Elicitation: blockable("mcp_server_name", false),
  ElicitationResult: blockable("mcp_server_name", false),
};

export const isBlockingDecision = (decision: string | null | undefined): boolean => decision === "deny" || decision === "block";

// ---- Payloads: loose objects, so that unknown fields pass; only what qhooks relies on is checked. ----
//
// Required: what every agent always sends for the event, its subject (the tool call, the prompt, the task...).
// The match field is never required: Claude Code 2.0 sends SubagentStop without agent_type, and an agent may add
// values or drop a field qhooks only matches on. A missing match field matches as "" (only a missing, empty or `*`
// matcher matches it); a present one of the wrong type is still rejected, with the field named.

const object = () => z.looseObject({}, { error: "expected an object" });
const matched = () => z.string().optional();

/** Fields every payload has. `hook_event_name` and `cwd` are filled in when absent. */
const commonFields = () => ({
  session_id: z.string().min(1),
  hook_event_name: z.string().optional(),
  cwd: z.string().optional(),
});

export const CommonPayloadSchema = z.looseObject(commonFields());

const toolCall = () => ({
  tool_name: matched(),
  tool_input: object(),
});

/**
 * Each event's own fields besides the common ones. A schema is built from them the first time its event is
 * validated: a `qhooks run` judges one event, and building all of them cost more than the rest of its validation.
 */
const PAYLOAD_FIELDS = {
  PreToolUse: toolCall,
  PermissionRequest: toolCall,
  PostToolUse: () => ({
    ...toolCall(),
    tool_response: z.unknown().refine((v) => v !== undefined, { error: "missing (expected any JSON value)" }),
  }),
  PostToolUseFailure: () => ({ ...toolCall(), error: z.string() }),
  UserPromptSubmit: () => ({ prompt: z.string() }),
  Stop: () => ({ stop_hook_active: z.boolean().optional() }),
  SubagentStop: () => ({ agent_type: matched(), stop_hook_active: z.boolean().optional() }),
  SubagentStart: () => ({ agent_type: matched() }),
  SessionStart: () => ({ source: matched() }),
  SessionEnd: () => ({ reason: matched() }),
  PreCompact: () => ({ trigger: matched() }),
  Notification: () => ({ message: z.string(), notification_type: matched() }),
  Setup: () => ({ trigger: matched() }),
  InstructionsLoaded: () => ({ file_path: z.string(), load_reason: matched() }),
  UserPromptExpansion: () => ({ prompt: z.string(), command_name: matched() }),
  MessageDisplay: () => ({ delta: z.string() }),
  PermissionDenied: toolCall,
  PostToolBatch: () => ({ tool_calls: z.array(z.unknown(), { error: "expected an array" }) }),
  TaskCreated: () => ({ task_id: z.string(), task_subject: z.string() }),
  TaskCompleted: () => ({ task_id: z.string(), task_subject: z.string() }),
  StopFailure: () => ({ error: matched() }),
  TeammateIdle: () => ({ teammate_name: z.string() }),
  ConfigChange: () => ({ source: matched() }),
  CwdChanged: () => ({ old_cwd: z.string(), new_cwd: z.string() }),
  DirectoryAdded: () => ({ directory: z.string(), source: matched() }),
  FileChanged: () => ({ file_path: matched() }),
  WorktreeCreate: () => ({ name: z.string() }),
  WorktreeRemove: () => ({ worktree_path: z.string() }),
  PostCompact: () => ({ trigger: matched() }),
  PreModelSwitch: () => ({ to_model: matched() }),
  PostModelSwitch: () => ({ to_model: matched() }),
  Elicitation: () => ({ message: z.string(), mcp_server_name: matched() }),
  ElicitationResult: () => ({ action: z.string(), mcp_server_name: matched() }),
} satisfies Record<EventName, () => z.ZodRawShape>;

/** An event's payload schema: the common fields (their declared order first), then the event's own. */
type PayloadSchemaOf<E extends EventName> = z.ZodObject<ReturnType<typeof commonFields> & ReturnType<(typeof PAYLOAD_FIELDS)[E]>, z.core.$loose>;

/**
 * Every event's payload schema, by event name. Each is built on first access and kept (a getter per event), so
 * that reading one builds one.
 */
export const PAYLOAD_SCHEMAS = lazyRecord(EVENT_NAMES, (event) => z.looseObject({ ...commonFields(), ...PAYLOAD_FIELDS[event]() })) as unknown as {
  readonly [E in EventName]: PayloadSchemaOf<E>;
};

/** The payload schema of one event (built the first time it is asked for). */
export const payloadSchema = <E extends EventName>(event: E): PayloadSchemaOf<E> => PAYLOAD_SCHEMAS[event];

export type Payload<E extends EventName = EventName> = z.infer<PayloadSchemaOf<E>>;

/**
 * The value an event's matchers are tested against: the match field, or "" when it is absent; for FileChanged the
 * changed file's name; for the model-switch events the model id without a `[1m]` context suffix.
 */
export function matchValueOf(event: EventName, payload: Record<string, unknown>): string | null {
  const traits = EVENT_TRAITS[event];
  if (traits.matchField === null) return null;
  const value = payload[traits.matchField];
  if (typeof value !== "string") return "";
  if (traits.matchOn === "basename") return value.slice(value.lastIndexOf("/") + 1);
  if (event === "PreModelSwitch" || event === "PostModelSwitch") return value.replace(/\[1m\]$/, "");
  return value;
}
