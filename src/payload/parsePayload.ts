import { describeJsonError } from "../json/describeJsonError.js";
import { quoteValue } from "../text/oneLine.js";
import { EVENT_NAMES, EVENT_TRAITS, PAYLOAD_SCHEMAS, matchValueOf, type EventName } from "../schema/events.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import type { HostEventNames } from "../hosts/hostEventNames.js";

import { MAX_PAYLOAD_BYTES } from "./payloadLimit.js";

export { MAX_PAYLOAD_BYTES };

/** A payload that passed validation, ready to be matched and handed to hooks. */
export interface ValidEvent {
  readonly event: EventName;
  readonly sessionId: string;
  /** The payload with missing common fields filled in; unknown fields (even `__proto__`) kept as own properties. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** What hooks receive on stdin: the agent's own text, byte for byte, with only the filled-in fields added. */
  readonly json: string;
  /** The value matchers are tested against; null for events that always fire. */
  readonly matchValue: string | null;
}

/** A payload that failed validation: no hook runs; the rejection is logged. */
export interface RejectedEvent {
  /** Why it was refused: its payload, or a `qhooks run` nested in its own hooks (the recursion guard). */
  readonly kind: "invalid-payload" | "recursion";
  readonly event: EventName | null;
  readonly sessionId: string | null;
  /** One line, e.g. `invalid PreToolUse payload: tool_input: expected an object`. */
  readonly error: string;
  /** What arrived, for the log (cut to the payload limit). */
  readonly raw: string;
}

export type ParsedPayload = { readonly ok: true; readonly value: ValidEvent } | { readonly ok: false; readonly value: RejectedEvent };

export interface ParsePayloadOptions {
  /** The event named on the command line; the payload's `hook_event_name` must agree with it. */
  readonly event?: EventName | undefined;
  /** Fills in a missing `cwd`. */
  readonly projectDir: string;
  /**
   * The names of the host that sent it: a `hook_event_name` in the host's words (Gemini CLI's `BeforeTool`) stands for
   * its qhooks event, and a missing one is filled in with the host's name. qhooks' own names when absent.
   */
  readonly hostEvents?: HostEventNames | undefined;
  /** The host's payload in the shape qhooks checks (Cursor's `command` as `tool_input.command`); hooks get the text as sent. */
  readonly readPayload?: ((fields: Readonly<Record<string, unknown>>) => Record<string, unknown>) | undefined;
}

/**
 * Validates a payload. Takes the agent's JSON text, or an object from an embedding agent. Never
 * throws: a rejection is a value.
 */
export function parsePayload(input: string | object, options: ParsePayloadOptions): ParsedPayload {
  let text: string;
  if (typeof input === "string") text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  else {
    try {
      text = JSON.stringify(input) ?? "";
    } catch (e) {
      return reject(options.event ?? null, null, `payload cannot be serialised as JSON (${(e as Error).message})`, "");
    }
  }
  // Characters count at most as many bytes as UTF-8 needs, so the exact count is only needed near the limit.
  if (text.length * 3 > MAX_PAYLOAD_BYTES && Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    return reject(options.event ?? null, null, `payload is larger than ${MAX_PAYLOAD_BYTES} bytes`, text.slice(0, 4096));
  }

  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (e) {
    return reject(options.event ?? null, null, `payload is not valid JSON (${describeJsonError(text, e)})`, text);
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    const what = document === null ? "null" : Array.isArray(document) ? "an array" : `a ${typeof document}`;
    return reject(options.event ?? null, null, `payload must be a JSON object, got ${what}`, text);
  }
  const fields = options.readPayload ? options.readPayload(document as Record<string, unknown>) : (document as Record<string, unknown>);
  const sessionId = typeof fields.session_id === "string" && fields.session_id !== "" ? fields.session_id : null;

  const named = fields.hook_event_name;
  let event = options.event;
  if (named !== undefined) {
    // The host's name first; else a known name is a key of EVENT_TRAITS (what EventNameSchema accepts, without a zod
    // parse per event).
    const translated = typeof named === "string" ? options.hostEvents?.toQhooks.get(named) : undefined;
    if (translated === undefined && (typeof named !== "string" || !Object.hasOwn(EVENT_TRAITS, named))) {
      const known = options.hostEvents ? [...options.hostEvents.toQhooks.keys()] : EVENT_NAMES;
      return reject(event ?? null, sessionId, `payload names an unknown hook_event_name ${quoteValue(named)} (known: ${known.join(", ")})`, text);
    }
    const parsed = translated ?? (named as EventName);
    if (event !== undefined && parsed !== event) {
      return reject(event, sessionId, `payload's hook_event_name is ${parsed}, but the event is ${event}`, text);
    }
    event = parsed;
  }
  if (event === undefined) return reject(null, sessionId, "payload has no hook_event_name and no event was given", text);

  const checked = PAYLOAD_SCHEMAS[event].safeParse(fields);
  if (!checked.success) return reject(event, sessionId, `invalid ${event} payload: ${firstIssueLine(checked.error)}`, text);

  const filled: Record<string, unknown> = {};
  if (named === undefined) filled.hook_event_name = options.hostEvents?.toHost.get(event) ?? event;
  if (fields.cwd === undefined) filled.cwd = options.projectDir;
  if ((event === "Stop" || event === "SubagentStop") && fields.stop_hook_active === undefined) filled.stop_hook_active = false;

  return {
    ok: true,
    value: {
      event,
      sessionId: sessionId!,
      // A copy only when fields are added: the parsed document is this event's alone.
      payload: named === undefined || fields.cwd === undefined || event === "Stop" || event === "SubagentStop" ? { ...fields, ...filled } : fields,
      json: insertFields(text, filled),
      matchValue: matchValueOf(event, fields),
    },
  };
}

/** Adds fields at the start of a JSON object's text, leaving every byte the agent sent as it was. */
function insertFields(text: string, fields: Record<string, unknown>): string {
  const keys = Object.keys(fields);
  if (keys.length === 0) return text;
  const open = text.indexOf("{");
  const inserted = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(fields[k])}`).join(",");
  const rest = text.slice(open + 1);
  const separator = rest.trimStart().startsWith("}") ? "" : ",";
  return `${text.slice(0, open + 1)}${inserted}${separator}${rest}`;
}

function reject(event: EventName | null, sessionId: string | null, error: string, raw: string): ParsedPayload {
  return { ok: false, value: { kind: "invalid-payload", event, sessionId, error, raw: raw.slice(0, MAX_PAYLOAD_BYTES) } };
}
