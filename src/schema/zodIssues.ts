import type { z } from "zod";
import { oneLineText } from "../text/oneLine.js";

const ARTICLE_TYPES: Record<string, string> = {
  object: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  nonoptional: "a value",
};

/** `hooks.PreToolUse[1].hooks[0]`-style path, the notation of our warnings and errors. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else {
      // Keys come from files and payloads: a line break or a huge key must not split or bury the message.
      const key = oneLineText(String(part), 64);
      out += out === "" ? key : `.${key}`;
    }
  }
  return out;
}

/**
 * One zod issue as a short, user-facing phrase ("expected an object"), instead of zod's generic
 * "Invalid input: expected object, received string". Schemas that need wording of their own carry it as a
 * custom message, which wins.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type": {
      const expected = ARTICLE_TYPES[issue.expected] ?? issue.expected;
      if (issue.message && !issue.message.startsWith("Invalid input")) return issue.message;
      return /received undefined$/.test(issue.message) ? `missing (expected ${expected})` : `expected ${expected}`;
    }
    case "invalid_value":
      if (issue.message && !issue.message.startsWith("Invalid")) return issue.message;
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "too_small":
      if (issue.origin === "string" && issue.minimum === 1) return "expected a non-empty string";
      return issue.message;
    default:
      return issue.message;
  }
}

/** `path: phrase` for the first issue: errors and warnings are one line each. */
export function firstIssueLine(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): string {
  const issue = error.issues[0]!;
  const path = formatPath([...prefix, ...issue.path]);
  return path === "" ? describeIssue(issue) : `${path}: ${describeIssue(issue)}`;
}
