import { nestsDeeperThan } from "./jsonDepth.js";

/**
 * A stored JSON text (a payload, a configuration) as a value when it parses; otherwise, or when it nests too deep
 * to be printed again, its text.
 */
export function parseStoredJson(text: string): unknown {
  if (nestsDeeperThan(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A stored JSON text indented for reading (two spaces); text that is not JSON, as it is. */
export function prettyStoredJson(text: string): string {
  const value = parseStoredJson(text);
  return typeof value === "string" && value === text ? text : JSON.stringify(value, null, 2);
}
