import type { z } from "zod";
import { describeIssue } from "../schema/zodIssues.js";

/**
 * A command's flags failed their schema: one line that names the flag as it was typed (`--event: ...`,
 * `--limit: ...`), never the path inside the parsed object (`filter.event`).
 */
export function flagIssueLine(error: z.ZodError): string {
  const issue = error.issues[0]!;
  // The flags of `log` and `replay` are grouped (`filter.session[0]`): the flag is the last named key.
  const key = [...issue.path].reverse().find((p): p is string => typeof p === "string");
  const message = describeIssue(issue);
  if (key === undefined) return message;
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${message}`;
}
