import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { messageOf } from "../errors.js";
import type { HookSpec } from "../operators/stages.js";
import type { ValidEvent } from "../payload/parsePayload.js";
import { EventNameSchema } from "../schema/events.js";
import { HandlerSettingSchema } from "../schema/settings.js";
import { oneLineText } from "../text/oneLine.js";
import type { BackgroundRunner } from "./backgroundHooks.js";

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
  }),
  projectDir: z.string(),
  homeDir: z.string(),
  baseEnv: z.record(z.string(), z.string().optional()),
  callChain: z.array(z.string()),
  replay: z.boolean(),
  maxOutputBytes: z.number(),
  /** The log to append the result to; null: none (the result is not kept). */
  db: z.string().nullable(),
});
export type AsyncJob = z.infer<typeof AsyncJobSchema>;

export type DetachedSetup = Omit<AsyncJob, "seq" | "valid" | "spec">;

/**
 * `qhooks run`'s async hooks: each is handed to a detached qhooks process of its own (a new session, its stdio
 * closed), which runs it within its timeout and appends its result to the log, so that `qhooks run` replies and
 * exits at once. The agent's process group going down does not take the hook with it; its timeout does.
 */
export class DetachedHooks implements BackgroundRunner {
  constructor(
    private readonly setup: DetachedSetup,
    /** The qhooks CLI script to start (`process.argv[1]` of the CLI). */
    private readonly cliScript: string,
    private readonly warn: (line: string) => void = () => undefined,
  ) {}

  start(seq: number | null, valid: ValidEvent, spec: HookSpec): void {
    if (spec.kind !== "command") return;
    try {
      const job: AsyncJob = {
        ...this.setup,
        seq,
        valid: { event: valid.event, sessionId: valid.sessionId, payload: { ...valid.payload }, json: valid.json, matchValue: valid.matchValue },
        spec: { kind: "command", command: spec.command, name: spec.name, level: spec.level, matcher: spec.matcher, timeoutMs: spec.timeoutMs, ...(spec.env ? { env: { ...spec.env } } : {}), ...(spec.handler ? { handler: spec.handler } : {}) },
      };
      const dir = mkdtempSync(join(tmpdir(), "qhooks-async-"));
      const file = join(dir, "job.json");
      writeFileSync(file, JSON.stringify(job), { mode: 0o600 });
      const child = spawn(process.execPath, [this.cliScript, "__async-hook", file], {
        detached: true,
        stdio: "ignore",
        cwd: this.setup.projectDir,
        env: Object.fromEntries(Object.entries(this.setup.baseEnv).filter((e): e is [string, string] => e[1] !== undefined)),
      });
      child.on("error", (e) => {
        rmSync(dir, { recursive: true, force: true });
        this.warn(`async hook ${oneLineText(spec.name)} could not be started: ${messageOf(e)}`);
      });
      child.unref();
    } catch (e) {
      this.warn(`async hook ${oneLineText(spec.name)} could not be started: ${messageOf(e)}`);
    }
  }

  /** Nothing runs here: the detached processes are on their own. */
  async settled(): Promise<void> {}
}

/** Reads a job file and removes it (and its private directory). */
export function takeAsyncJob(file: string): AsyncJob {
  try {
    return AsyncJobSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  } finally {
    rmSync(dirname(file), { recursive: true, force: true });
  }
}
