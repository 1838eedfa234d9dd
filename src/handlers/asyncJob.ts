import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { EventNameSchema } from "../schema/events.js";
import { HandlerSettingSchema, RedactEntrySchema } from "../schema/settings.js";

/** What the detached process needs to run one async hook and log its result: written to a private file. */
export const AsyncJobSchema = z.object({
  seq: z.number().int().nullable(),
  valid: z.object({
    event: EventNameSchema,
    sessionId: z.string(),
    payload: z.record(z.string(), z.unknown()),
    json: z.string(),
    matchValue: z.string().nullable(),
  }),
  spec: z.object({
    kind: z.literal("command"),
    command: z.string(),
    name: z.string(),
    level: z.string(),
    matcher: z.string().nullable(),
    timeoutMs: z.number(),
    env: z.record(z.string(), z.string()).optional(),
    handler: HandlerSettingSchema.optional(),
    /** Trust's verified scripts (see HookSpec.verified): the detached process checks and runs those bytes too. */
    verified: z
      .array(z.object({ path: z.string(), kind: z.enum(["program", "shell-script"]), start: z.number().int(), end: z.number().int(), sha256: z.string() }))
      .optional(),
  }),
  projectDir: z.string(),
  homeDir: z.string(),
  baseEnv: z.record(z.string(), z.string().optional()),
  callChain: z.array(z.string()),
  replay: z.boolean(),
  maxOutputBytes: z.number(),
  /** The log to append the result to; null: none (the result is not kept). */
  db: z.string().nullable(),
  /** The configuration's `qhooks.redact` patterns: the result is redacted as the event was. */
  redact: z.array(RedactEntrySchema),
});
export type AsyncJob = z.infer<typeof AsyncJobSchema>;

/** Reads a job file and removes it (and its private directory). */
export function takeAsyncJob(file: string): AsyncJob {
  try {
    return AsyncJobSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  } finally {
    rmSync(dirname(file), { recursive: true, force: true });
  }
}
