import { InProcessResultSchema } from "../../core/readRun.js";
import { EvaluatorAnswerSchema } from "../../schema/evaluatorAnswer.js";
import { describeIssue } from "../../schema/zodIssues.js";

/**
 * `{ ok, reason }`, the answer Claude Code asks of its prompt hooks, in the engine's vocabulary; any other value
 * (the engine's own vocabulary, which a library evaluator or an MCP caller may use) is passed on as it is. An `ok`
 * that is not true or false is an invalid answer. `ok: false` always blocks: no other field of the answer
 * (`decision: "approve"`, a `reason` that is not a string) can turn it into a go-ahead or an error.
 */
export function readShortForm(value: unknown): { ok: true; value: unknown } | { ok: false; why: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !("ok" in value)) return { ok: true, value };
  const parsed = EvaluatorAnswerSchema.safeParse(value);
  if (!parsed.success) return { ok: false, why: `an answer whose ${describeIssue(parsed.error.issues[0]!)}` };
  const { ok, ...rest } = parsed.data;
  if (ok) return { ok: true, value: rest };
  const blocked = { ...rest, decision: "block" };
  if (InProcessResultSchema.safeParse(blocked).success) return { ok: true, value: blocked };
  // The rest of the answer cannot be read: the block stands, with the reason when there is one.
  return { ok: true, value: { decision: "block", ...(typeof rest.reason === "string" ? { reason: rest.reason } : {}) } };
}
