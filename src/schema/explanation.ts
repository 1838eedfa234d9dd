import { z } from "zod";
import { DialectSchema } from "./dialect.js";
import { DecisionSchema, EventNameSchema } from "./events.js";
import { LogDecisionSchema } from "./logRecord.js";
import { HookOutcomeKindSchema } from "./outcome.js";
import { LoadAttestationSchema } from "./doctor.js";

/** Where a hook is declared: the settings level, the file, the plugin, and the entry's place in the file. */
export const HookSourceSchema = z.object({
  /** `user`, `project`, `local`, `plugin`, `in-process`, or the path of a `--settings` file. */
  level: z.string(),
  /** The file as messages name it; null for an in-process handler or when the log does not say. */
  file: z.string().nullable(),
  /** The plugin it comes from; null for a settings file's own hooks. */
  plugin: z.string().nullable(),
  /** The entry in the file, e.g. `hooks.PreToolUse[0].hooks[1]`; null when not known. */
  path: z.string().nullable(),
});
export type HookSource = z.infer<typeof HookSourceSchema>;

/** What became of one configured hook for this event: exactly one of these. */
export const HookVerdictSchema = z.discriminatedUnion("kind", [
  /** It ran: how it ended and what it said. `shadow`: it ran in shadow mode, so it did not count. */
  z.object({
    kind: z.literal("ran"),
    outcome: HookOutcomeKindSchema,
    decision: DecisionSchema,
    reason: z.string().nullable(),
    error: z.string().nullable(),
    durationMs: z.number(),
    shadow: z.boolean(),
    /** One of the hooks whose decision is the outcome's. */
    decided: z.boolean(),
  }),
  /** It matches and would run (explaining an event that was never judged). */
  z.object({ kind: z.literal("would-run"), shadow: z.boolean() }),
  /** It is declared for another event. */
  z.object({ kind: z.literal("other-event"), event: z.string() }),
  /** Its group's matcher did not match: the matcher and the value it was tested against. */
  z.object({ kind: z.literal("no-match"), matcher: z.string(), value: z.string().nullable(), field: z.string() }),
  /** The entry is not valid, so it never loads: the warning that said so. */
  z.object({ kind: z.literal("invalid"), warning: z.string() }),
  /** The same command matched more than once; it ran once, as this other entry. */
  z.object({ kind: z.literal("deduplicated"), with: z.object({ name: z.string(), source: HookSourceSchema }) }),
  /** Selected but did not run, and why (untrusted, ...). */
  z.object({ kind: z.literal("skipped"), reason: z.string(), message: z.string() }),
  /** Selected, but the log holds no run of it (the event was never judged, or its outcome was not written). */
  z.object({ kind: z.literal("not-run"), why: z.string() }),
]);
export type HookVerdict = z.infer<typeof HookVerdictSchema>;

/** One hook of the configuration in force, with what became of it. */
export const ExplainedHookSchema = z.object({
  /** The name it runs under (its `name`, else its command); null for an entry too broken to have one. */
  name: z.string().nullable(),
  command: z.string().nullable(),
  /** The event it is declared for (as written in the file, for an invalid entry). */
  event: z.string().nullable(),
  matcher: z.string().nullable(),
  /** `shadow` for a hook that runs without ever changing the outcome. */
  mode: z.enum(["enforce", "shadow"]),
  source: HookSourceSchema,
  verdict: HookVerdictSchema,
});
export type ExplainedHook = z.infer<typeof ExplainedHookSchema>;

/** `qhooks explain --json`: why one event got its outcome. */
/** A session's start as `qhooks explain` shows it: the SessionStart event, its configuration, and what loaded then. */
export const SessionStartSchema = z.object({
  seq: z.number().int(),
  ts: z.string(),
  /** How the session started: SessionStart's `source` (`startup`, `resume`, `clear`, `compact`); null when absent. */
  source: z.string().nullable(),
  /** The configuration the SessionStart was judged by; null when none was logged with it (a recorded event). */
  configHash: z.string().nullable(),
  /** The event explained was judged by that same configuration (false: the settings changed since the start). */
  sameConfig: z.boolean(),
  /** Configured, loaded, each skipped with why, at the start; null when no configuration was logged with it. */
  attestation: LoadAttestationSchema.nullable(),
});
export type SessionStart = z.infer<typeof SessionStartSchema>;

export const ExplanationSchema = z.object({
  /** The logged event; null for `explain EVENT --payload`. */
  seq: z.number().int().nullable(),
  ts: z.string().nullable(),
  event: EventNameSchema,
  sessionId: z.string().nullable(),
  /** The payload field matchers are tested against (`tool_name`...), null when this event ignores matchers. */
  matchField: z.string().nullable(),
  matchValue: z.string().nullable(),
  /** `log`: the configuration snapshot logged with the event; `settings`: the files as they are now (unlogged event). */
  basis: z.enum(["log", "settings"]),
  configHash: z.string().nullable(),
  /**
   * The host that sent the event to an entry pinned to another host (`entry`): Cursor calling the entry `qhooks
   * install claude` wrote. Judged by `entry`'s hooks; null when the entry's own host sent it.
   */
  caller: z.object({ host: DialectSchema, entry: DialectSchema }).nullable(),
  /** The logged decision; null for an event that was never logged (no hook is run to find it). */
  decision: LogDecisionSchema.nullable(),
  blocked: z.boolean(),
  reason: z.string().nullable(),
  /** Every hook of the configuration, each with one verdict, in the configuration's order; in-process handlers first. */
  hooks: z.array(ExplainedHookSchema),
  /** How the outcome was formed; null when the event was never judged. */
  formed: z
    .object({
      /** The hooks whose decision is the outcome's. */
      decidedBy: z.array(z.string()),
      /** The rule that made their decision win, in one sentence. */
      rule: z.string(),
      /** Anything else that shaped the outcome (a stop asked for, an input rewritten, the Stop-loop guard...). */
      notes: z.array(z.string()),
    })
    .nullable(),
  /** What enforcing the shadow hooks would have given; null when no shadow hook ran. */
  shadow: z.object({ decision: DecisionSchema, changed: z.boolean(), hooks: z.array(z.string()) }).nullable(),
  /** What explain cannot know from the log, one line each (an old log without the snapshot...). */
  unknown: z.array(z.string()),
  /** The configuration's own warnings, as logged with it. */
  configWarnings: z.array(z.string()),
  /**
   * The configuration's load attestation: hooks configured on disk, loaded, each skipped with why. From the log when
   * it kept one (it does when an entry did not load), else counted from the logged hooks sections; null when the
   * log holds no configuration for the event.
   */
  attestation: LoadAttestationSchema.nullable(),
  /**
   * What loaded when the event's session started: the load attestation recorded with its SessionStart (the newest one
   * at or before the event: a resumed or compacted session starts again). Null when the log holds none for the
   * session, and for an unlogged event.
   */
  sessionStart: SessionStartSchema.nullable(),
});
export type Explanation = z.infer<typeof ExplanationSchema>;
