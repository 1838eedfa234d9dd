import { z } from "zod";
import { EventNameSchema } from "./events.js";
import { EventSourceSchema, LogDecisionSchema, OriginSchema } from "./logRecord.js";
import { OutcomeSchema } from "./outcome.js";
import { DialectSchema } from "./dialect.js";
import { LoadAttestationSchema } from "./doctor.js";

/** One record of the journal as the hash chain sees it. */
export const ChainRecordSchema = z.object({
  seq: z.number().int(),
  kind: z.string(),
  /** The record's hash format (3: every column hashed; 4: a content digest chained with the log's id). */
  format: z.number().int(),
  hash: z.string(),
});
export type ChainRecord = z.infer<typeof ChainRecordSchema>;

/** One settings file a configuration was read from (or looked for), as the log keeps it with the snapshot. */
export const SnapshotSourceSchema = z.object({
  /** `user`, `project`, `local`, `plugin`, or the path of a `--settings` file. */
  level: z.string(),
  /** Its path. */
  file: z.string(),
  /** How warnings name it (`.qoder/settings.json`). */
  display: z.string(),
  /** `loaded`, `missing` or `unreadable`. */
  state: z.string(),
  /** For a plugin's hooks file: the plugin's name and folders (CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA). */
  plugin: z.object({ name: z.string(), root: z.string(), dataDir: z.string() }).optional(),
});
export type SnapshotSource = z.infer<typeof SnapshotSourceSchema>;

/** One event in full, as the log holds it: what `qhooks show` and `qhooks explain` read. */
export const EventDetailSchema = z.object({
  seq: z.number().int(),
  ts: z.string(),
  source: EventSourceSchema,
  /** Null only for a rejected payload that named no known event. */
  event: EventNameSchema.nullable(),
  sessionId: z.string().nullable(),
  matchValue: z.string().nullable(),
  projectDir: z.string(),
  /** The payload exactly as stored: as hooks received it, or as it arrived when it was rejected. */
  payload: z.string(),
  /** Why the payload was rejected; null for a valid one. */
  rejection: z.string().nullable(),
  decision: LogDecisionSchema,
  /** The outcome with every hook result and its output; null when the event was never judged. */
  outcome: OutcomeSchema.nullable(),
  /** The configuration it was judged by (the hooks sections and their warnings); null for recorded and rejected events. */
  snapshot: z
    .object({
      hash: z.string(),
      document: z.unknown(),
      warnings: z.array(z.string()),
      /** Every settings file consulted; absent from snapshots logged before it was kept. */
      sources: z.array(SnapshotSourceSchema).optional(),
      /** The host whose settings they were (its defaults applied); absent for the default host (qoder), and from snapshots logged before it was kept. */
      dialect: DialectSchema.optional(),
      /** How many hooks were configured and loaded, each skipped one with why; absent from snapshots logged before it was kept. */
      attestation: LoadAttestationSchema.optional(),
    })
    .nullable(),
  /** For replayed events: the replay run and the live event re-judged. */
  replay: z.object({ runId: z.string(), of: z.number().int() }).nullable(),
  /** Who and where it came from (as in `qhooks log --json`). */
  origin: OriginSchema,
  /** Its records (the event, then its outcome when recorded apart) and the log whose chain holds them. */
  chain: z.object({ logId: z.string().nullable(), records: z.array(ChainRecordSchema) }),
});
export type EventDetail = z.infer<typeof EventDetailSchema>;
