/** A JSON object as parsed: string keys, any values. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not an array). */
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A value hosts send either as an object or as that object's JSON text (Copilot CLI's `toolArgs`, Cursor's MCP
 * arguments): the object; anything else, `{}`.
 */
export function objectOrJsonText(v: unknown): JsonObject {
  if (isJsonObject(v)) return v;
  if (typeof v !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(v);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
