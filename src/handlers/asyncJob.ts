import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { EVENT_TRAITS, EventNameSchema } from "../schema/events.js";
import { compileMatcher } from "../core/compileMatcher.js";
import type { SelectedDeclaredHook } from "../core/hookDescriptor.js";
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
  /** The hook, as data: everything of a selected hook but its compiled matcher and the entries that declare it. */
  spec: z.object({
    command: z.string(),
    written: z.string(),
    name: z.string(),
    // Absent from job files written before short default names.
    longName: z.string().optional(),
    level: z.string(),
    file: z.string(),
    path: z.string(),
    matcherSource: z.string().nullable(),
    timeoutMs: z.number(),
    timeoutSetting: z.enum(["settings", "host-default", "host-cap"]),
    payloadForm: z.enum(["copilot-vscode"]).optional(),
    shadow: z.boolean(),
    plugin: z.object({ name: z.string(), root: z.string(), dataDir: z.string() }).nullable(),
    env: z.record(z.string(), z.string()),
    handler: HandlerSettingSchema,
    /** Trust's verified scripts (see SelectedHook.verified): the detached process checks and runs those bytes too. */
    verified: z
      .array(z.object({ path: z.string(), kind: z.enum(["program", "shell-script"]), start: z.number().int(), end: z.number().int(), sha256: z.string() }))
      .nullable(),
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

/** What of a hook goes into a job file: its data, copied (its kind is its handler's type). */
export function jobSpecOf(hook: SelectedDeclaredHook): AsyncJob["spec"] {
  return {
    command: hook.command,
    written: hook.written,
    name: hook.name,
    longName: hook.longName,
    level: hook.level,
    file: hook.file,
    path: hook.path,
    matcherSource: hook.matcherSource,
    timeoutMs: hook.timeoutMs,
    timeoutSetting: hook.timeoutSetting,
    ...(hook.payloadForm !== undefined ? { payloadForm: hook.payloadForm } : {}),
    shadow: hook.shadow,
    plugin: hook.plugin && { ...hook.plugin },
    env: { ...hook.env },
    handler: hook.handler,
    verified: hook.verified === null ? null : hook.verified.map((s) => ({ ...s })),
  };
}

/** The hook of a job, whole again: it was selected and trusted already, so its matcher is only compiled to be complete. */
export function hookOfJob(job: AsyncJob): SelectedDeclaredHook {
  const { matcher } = compileMatcher(job.spec.matcherSource ?? undefined, EVENT_TRAITS[job.valid.event]);
  return { ...job.spec, longName: job.spec.longName ?? job.spec.name, kind: job.spec.handler.type, event: job.valid.event, matcher, declared: [] };
}
