import { z } from "zod";

/**
 * What an event's payload becomes when `qhooks erase` removes its content: still a JSON object (so `jq
 * .payload.tool_input` reads null, not an error), naming the erasure, with only the payload's keys that the log
 * keeps in its small columns anyway (event, session, tool). Strict: a host's payload that happens to carry an
 * `erased` key is not taken for an erased one.
 */
export const ErasedPayloadSchema = z.strictObject({
  erased: z.literal(true),
  hook_event_name: z.string().optional(),
  session_id: z.string().optional(),
  tool_name: z.string().optional(),
});
export type ErasedPayload = z.infer<typeof ErasedPayloadSchema>;

/** The text erased strings read as (reasons, hook output); before 1.0.0 an erased payload was this string too. */
export const ERASED_TEXT = "[ERASED]";

/** The payload's keys an erased payload keeps (their values are also the event's small columns). */
const KEPT_PAYLOAD_KEYS = ["hook_event_name", "session_id", "tool_name"] as const;

/** An erased payload, from the payload it replaces (its text as stored; a text that is not JSON keeps nothing). */
export function erasedPayloadOf(payloadText: string): ErasedPayload {
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch {
    payload = null;
  }
  const kept: Record<string, string> = {};
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) {
    for (const key of KEPT_PAYLOAD_KEYS) {
      const value = (payload as Record<string, unknown>)[key];
      if (typeof value === "string") kept[key] = value;
    }
  }
  return ErasedPayloadSchema.parse({ erased: true, ...kept });
}

/**
 * Whether a payload (its stored text, or its parsed value) is an erased one: the object above, or the string
 * `[ERASED]` that logs written before 1.0.0 hold.
 */
export function isErasedPayload(payload: unknown): boolean {
  if (payload === ERASED_TEXT) return true;
  let value = payload;
  if (typeof payload === "string") {
    if (!payload.includes('"erased"')) return false;
    try {
      value = JSON.parse(payload);
    } catch {
      return false;
    }
  }
  return ErasedPayloadSchema.safeParse(value).success;
}
