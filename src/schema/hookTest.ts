import { z } from "zod";
import { DecisionSchema, EventNameSchema } from "./events.js";

/**
 * What a hook test expects of the outcome. Strict, like the case around it: a misspelt key (`"reson"`) would
 * otherwise drop an assertion without a word, and the test would pass for the wrong reason.
 */
export const HookTestExpectSchema = z.strictObject({
  /** The outcome's decision. */
  decision: DecisionSchema,
  /** A substring of the outcome's reason (case-sensitive). */
  reason: z.string().min(1).optional(),
  /** Hooks (by name, as `qhooks log` shows them) that must have run. */
  ran: z.array(z.string().min(1)).optional(),
  /** Hooks that must not have run. */
  notRan: z.array(z.string().min(1)).optional(),
});
export type HookTestExpect = z.infer<typeof HookTestExpectSchema>;

/**
 * One hook test: one line of a test file (JSON Lines). Keys are written in this order, so that a line reads from
 * what it checks to what it sends, and a case added later is one added line in a diff.
 */
export const HookTestCaseSchema = z.strictObject({
  name: z.string().min(1),
  event: EventNameSchema,
  expect: HookTestExpectSchema,
  /** The payload, as the hooks receive it on stdin. */
  payload: z.record(z.string(), z.unknown()),
  /** The logged event the case was made from: its seq in that log and when it arrived (for the reader only). */
  from: z.strictObject({ seq: z.number().int().positive(), ts: z.string() }).optional(),
});
export type HookTestCase = z.infer<typeof HookTestCaseSchema>;
