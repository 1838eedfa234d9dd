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
