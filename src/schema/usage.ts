import { z } from "zod";
import { HookSourceSchema } from "./explanation.js";
import { HookRunCountsSchema } from "./logRecord.js";

/** One configured hook in the usage ledger (`qhooks hooks --usage --json`): loaded or not, and what it did. */
export const HookUsageSchema = z.object({
  /** Its name (its `name`, else its command); null for an entry too broken to have one. */
  name: z.string().nullable(),
  /** The event it is declared for, as written. */
  event: z.string(),
  matcher: z.string().nullable(),
  mode: z.enum(["enforce", "shadow"]),
  source: HookSourceSchema,
  /** False for an entry that never loads; `notLoaded` says why. */
  loaded: z.boolean(),
  notLoaded: z.string().nullable(),
  /** Its runs in the window (hook runs are counted by name: two entries with one name share them). */
  ...HookRunCountsSchema.omit({ p99Ms: true }).shape,
  lastRun: z.string().nullable(),
  /** Live events of its event in the window, and how many of them its matcher matches. */
  events: z.number().int(),
  matched: z.number().int(),
  /** Loaded, its event happened in the window, and its matcher matched none of those events. */
  neverFired: z.boolean(),
});
export type HookUsage = z.infer<typeof HookUsageSchema>;

/**
 * What one hook cost the turns it ran in (`qhooks hooks --usage`, the report). A hook is its level and its name: two
 * hooks of one name at two levels (the user's `lint` and the project's) have a budget each.
 */
export const HookBudgetUsageSchema = z.object({
  name: z.string(),
  /** `user`, `project`, `local`, `plugin`, `in-process`, or the path of a `--settings` file (as in `hooks[]`). */
  level: z.string(),
  /** Turns in which it ran at least once. */
  turns: z.number().int(),
  /** Its runs' durations summed per turn: the mean over those turns, and the largest. */
  msPerTurn: z.object({ mean: z.number(), max: z.number() }),
  /** Characters of context it injected per turn: the total over the window, and the largest turn's. */
  contextChars: z.object({ total: z.number().int(), maxPerTurn: z.number().int() }),
});
export type HookBudgetUsage = z.infer<typeof HookBudgetUsageSchema>;

export const UsageLedgerSchema = z.object({
  /** The window, as ISO times (null: open). */
  since: z.string().nullable(),
  until: z.string().nullable(),
  configHash: z.string(),
  hooks: z.array(HookUsageSchema),
  /** Settings warnings of the configuration now. */
  warnings: z.array(z.string()),
});
export type UsageLedger = z.infer<typeof UsageLedgerSchema>;

/** `qhooks hooks --usage --json`: the ledger, and the budget of each of its hooks that ran in the window. */
export const UsageOutputSchema = UsageLedgerSchema.extend({ budget: z.array(HookBudgetUsageSchema) });
export type UsageOutput = z.infer<typeof UsageOutputSchema>;
