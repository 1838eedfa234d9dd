import type { EventName } from "../schema/events.js";
import { isJsonObject, type JsonObject } from "../json/jsonObject.js";
import { COPILOT_CLAUDE_TOOLS } from "./copilotNames.js";

/** Copilot CLI's tool names as Claude Code's (the first Claude Code name of each: `task` is `Agent`). */
const CLAUDE_NAME: ReadonlyMap<string, string> = new Map([...COPILOT_CLAUDE_TOOLS].reverse());

/** `transcriptPath` as `transcript_path`. */
const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Keys renamed, not only re-cased, in Copilot CLI's VS Code-compatible payloads (its hooks reference). */
const RENAMED: Readonly<Record<string, string>> = { toolArgs: "tool_input", toolInput: "tool_input", response: "last_assistant_message" };

/**
 * The payload Copilot CLI gives a hook written under a PascalCase event name (`PreToolUse`: VS Code's format), from
 * the payload qhooks received (`--dialect copilot`: the camelCase one its own entries get). Its hooks reference: the
 * event as `hook_event_name`, snake_case fields (`session_id`, `transcript_path`, `agent_type`...), `timestamp` as
 * ISO 8601 text, `tool_input` parsed from the `toolArgs` text, `tool_name` as Claude Code's name (`bash` is `Bash`),
 * `tool_result` with `result_type` and `text_result_for_llm`, a stopping subagent's `response` as
 * `last_assistant_message`. Fields already snake_case stay; a payload already in this form passes unchanged but for
 * the event's name. A text that is not a JSON object is given as it is.
 */
export function copilotVsCodePayload(json: string, event: EventName): string {
  let fields: unknown;
  try {
    fields = JSON.parse(json);
  } catch {
    return json;
  }
  if (!isJsonObject(fields)) return json;
  const out: JsonObject = { hook_event_name: event };
  for (const [key, value] of Object.entries(fields)) {
    if (key === "hook_event_name") continue;
    const name = RENAMED[key] ?? snake(key);
    // A field sent in both forms keeps the snake_case one.
    if (name !== key && Object.hasOwn(fields, name)) continue;
    out[name] = converted(name, value);
  }
  return JSON.stringify(out);
}

function converted(name: string, value: unknown): unknown {
  switch (name) {
    case "timestamp":
      return typeof value === "number" && Number.isFinite(value) ? new Date(value).toISOString() : value;
    case "tool_input":
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case "tool_name":
      return typeof value === "string" ? (CLAUDE_NAME.get(value) ?? value) : value;
    case "tool_result":
      return isJsonObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), v])) : value;
    default:
      return value;
  }
}
