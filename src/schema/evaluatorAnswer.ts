import { z } from "zod";
import { quoteValue } from "../text/oneLine.js";
import { lazy } from "./lazy.js";

/**
 * The short answer Claude Code asks of its prompt hooks, `{ "ok": true }` or `{ "ok": false, "reason": "..." }`, as
 * an evaluator (or an MCP tool caller) gives it. `ok` is the whole decision, so it must be exactly true or false:
 * `"false"`, `0` or `null` is an invalid answer (the hook's invalid output, which `onFailure: "block"` turns into a
 * block), never a go-ahead. The other fields are read afterwards, like an in-process handler's answer.
 */
export const EvaluatorAnswerSchema = lazy(() =>
  z.looseObject({
    ok: z.boolean({
      error: (issue) => (issue.input === undefined ? '"ok" is missing (expected true or false)' : `"ok" is ${quoteValue(issue.input)}, not true or false`),
    }),
  }),
);
export type EvaluatorAnswer = z.infer<typeof EvaluatorAnswerSchema>;
