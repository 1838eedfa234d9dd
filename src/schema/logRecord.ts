import { z } from "zod";
import { DialectSchema } from "./dialect.js";
import { DecisionSchema, EventNameSchema } from "./events.js";
import { HookResultSchema, OutcomeSchema } from "./outcome.js";

/**
 * A log record's decision: an outcome's, or what became of an event that was never judged:
 * `recorded` (captured by `qhooks record`), `rejected` (invalid payload), `unfinished` (arrived; no outcome came).
 */
// One flat enum rather than a union of two: a bad value (`qhooks log --decision maybe`) is then reported with the
// list of valid ones, instead of zod's bare "Invalid input".
export const LogDecisionSchema = z.enum([...DecisionSchema.options, "recorded", "rejected", "unfinished"]);
export type LogDecision = z.infer<typeof LogDecisionSchema>;

export const EventSourceSchema = z.enum(["dispatch", "record", "replay"]);

/**
 * Who and where an event came from: the machine (host name) and OS user of the process that logged it, the log it
 * was written to (its writer: the log id; `host:<name>` for a machine writing to PostgreSQL directly), its number in
 * that log, and the agent host (dialect) whose settings judged it, or for a recorded event the host that sent it
 * (`qhooks record --dialect X`). Null where the record is older than hash format 5 (machine, user), or the event was
 * neither judged nor recorded with a host (a rejected payload of `run`, a record older than this).
 */
export const OriginSchema = z.object({
  machine: z.string().nullable(),
  user: z.string().nullable(),
  writer: z.string().nullable(),
  /** The event's seq in its origin log (a shipped event's number on the laptop; the same as `seq` in a local log). */
  seq: z.number().int(),
  host: z.string().nullable(),
});
export type Origin = z.infer<typeof OriginSchema>;

/** One event as `qhooks log --json` lists it: every outcome field plus where and when it came from. */
export const LogRecordSchema = OutcomeSchema.extend({
  /** Null only for a rejected payload that named no known event. */
  event: EventNameSchema.nullable(),
  sessionId: z.string().nullable(),
  seq: z.number().int(),
  decision: LogDecisionSchema,
  configHash: z.string().nullable(),
  durationMs: z.number().nullable(),
  ts: z.string(),
  matchValue: z.string().nullable(),
  /**
   * What the agent tried, in one line of at most 80 characters (the Bash command, the file, the URL, the MCP tool and
   * its first arguments, the prompt), made from the payload when the record is read; null when the payload says
   * nothing of the kind. A listing's column: the whole input is in `payload`.
   */
  tried: z.string().nullable(),
  /**
   * The host that called an entry pinned to another host (`cursor` for Cursor running the entry `qhooks install
   * claude` wrote): the event was judged by `origin.host`'s hooks, sent by this one. Made from the payload when the
   * record is read, as `tried` is; null when the judging host called, or the event was not judged.
   */
  caller: DialectSchema.nullable(),
  projectDir: z.string(),
  /** The payload as hooks received it (a string when it was not even JSON). */
  payload: z.unknown(),
  source: EventSourceSchema,
  /** For replayed events: the replay run and the live event re-judged. */
  replay: z.object({ runId: z.string(), of: z.number().int() }).nullable(),
  /** Results of the event's `async: true` hooks, logged as each ended (never part of the outcome). */
  asyncHooks: z.array(HookResultSchema).default([]),
  origin: OriginSchema,
});
export type LogRecord = z.infer<typeof LogRecordSchema>;

/** One row of `qhooks sessions --json`. */
export const SessionRowSchema = z.object({
  sessionId: z.string(),
  projectDir: z.string(),
  firstTs: z.string(),
  lastTs: z.string(),
  events: z.number().int(),
  blocked: z.number().int(),
  /** Who and where its first event came from, and the host whose settings judged it (null when none did). */
  origin: OriginSchema.omit({ seq: true }),
});
export type SessionRow = z.infer<typeof SessionRowSchema>;

/** What one hook's runs came to: `qhooks stats`'s per-hook row, and the counts of the usage ledger. */
export const HookRunCountsSchema = z.object({
  runs: z.number().int(),
  blocks: z.number().int(),
  errors: z.number().int(),
  invalidOutputs: z.number().int(),
  timeouts: z.number().int(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
});

/** `qhooks stats --json`. */
export const StatsSchema = z.object({
  events: z.number().int(),
  byEvent: z.array(z.object({ event: z.string(), decision: LogDecisionSchema, count: z.number().int() })),
  hooks: z.array(
    z.object({
      name: z.string(),
      /** Its settings level (`user`, `project`, `plugin`, a `--settings` file's path): one name at two levels is two hooks. Null where the log does not say (a damaged outcome, or a run projected by an older qhooks still running). */
      level: z.string().nullable(),
      ...HookRunCountsSchema.shape,
      /** When its latest run's event arrived. */
      lastTs: z.string().nullable(),
    }),
  ),
});
export type Stats = z.infer<typeof StatsSchema>;

/**
 * `qhooks stats --by host --json`: the counts by event and decision for each agent host whose settings judged events
 * in the window (hosts with none are left out); `unattributed` counts the events no host's settings judged.
 */
export const StatsByHostSchema = z.object({
  events: z.number().int(),
  byHost: z.array(z.object({ host: z.string(), events: z.number().int(), byEvent: StatsSchema.shape.byEvent })),
  unattributed: z.number().int(),
});
export type StatsByHost = z.infer<typeof StatsByHostSchema>;

/** How many live events of each event had each match value (the tool name...): what tells a hook that never fires. */
export const MatchCountSchema = z.object({ event: z.string(), matchValue: z.string().nullable(), count: z.number().int() });
export type MatchCount = z.infer<typeof MatchCountSchema>;

/** `qhooks verify`: the chain is whole, or the first record where it breaks. */
export const VerifyResultSchema = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    records: z.number().int(),
    /** Records whose content was erased (each verified through the digests its erasure record keeps). */
    erased: z.number().int().optional(),
    /** The first record checked: 1, or the record after the anchor older records were pruned to. */
    from: z.number().int().optional(),
    /**
     * The heads a log's key signed that were checked against the chain and still match: SQLite, `<log>.heads`;
     * PostgreSQL, the heads each shipped chain's key signed, which ship keeps centrally.
     */
    signedHeads: z.number().int().optional(),
    /** PostgreSQL: chains with no signed head (written directly, or shipped before heads were signed): only their links are checked. */
    unsignedChains: z.number().int().optional(),
    /**
     * Key records saying a key was lost (`qhooks key reset --lost`): from each seq on, the chain is vouched for by a
     * key (its fingerprint) that no earlier key signed for. A visible break, reported beside ok, never hidden in it.
     */
    keyBreaks: z.array(z.object({ seq: z.number().int(), key: z.string(), chain: z.string().optional() })).optional(),
    /**
     * PostgreSQL: records of a chain that has signed heads, after the newest of them (records `from` to `to` of that
     * chain, in its own numbering): their links hold, but no head its writer signed covers them (shipped while its key
     * could not sign, or heads removed from the database). Reported beside ok, each on its own line.
     */
    uncovered: z.array(z.object({ chain: z.string(), from: z.number().int(), to: z.number().int() })).optional(),
  }),
  z.object({
    ok: z.literal(false),
    records: z.number().int(),
    firstBad: z.number().int(),
    problem: z.string(),
    /** Where the log keeps several chains (PostgreSQL: one per writer), the one that breaks; firstBad is its own numbering. */
    chain: z.string().optional(),
  }),
]);
export type VerifyResult = z.infer<typeof VerifyResultSchema>;
