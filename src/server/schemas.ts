import { z } from "zod";
import { DIALECTS } from "../hosts/hostDialect.js";
import { RunReplySchema } from "../schema/runReply.js";

/** The server's state file: where the user's one server listens and which process it is. */
export const ServerStateSchema = z.object({
  /** The loopback port: kept after the server stops, so that the next one listens where installed hooks call. */
  port: z.number().int().min(1).max(65535),
  /** null once the server has stopped. */
  pid: z.number().int().positive().nullable(),
  /** The qhooks version the server runs. */
  version: z.string(),
  startedAt: z.string().nullable(),
  /** The user it runs as (its owner); null where the platform has no uid. */
  uid: z.number().int().nullable(),
});
export type ServerState = z.infer<typeof ServerStateSchema>;

/** What GET /health answers: who listens, and with a challenge, the proof that it holds the secret. */
export const HealthAnswerSchema = z.object({
  service: z.literal("qhooks serve"),
  pid: z.number().int().positive(),
  version: z.string(),
  port: z.number().int(),
  startedAt: z.string(),
  uid: z.number().int().nullable(),
  /** HMAC-SHA256 of the challenge under the secret (hex); absent when no challenge was sent. */
  proof: z.string().optional(),
});
export type HealthAnswer = z.infer<typeof HealthAnswerSchema>;

/** A challenge a client sends in X-Qhooks-Challenge: random, short, header-safe. */
export const ChallengeSchema = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/);

/** The route of an event: POST /hook/<dialect>. */
export const HookDialectSchema = z.enum(DIALECTS, { error: `the route is /hook/<dialect>, one of ${DIALECTS.join(", ")}` });

/**
 * The query of POST /hook/<dialect>: what `qhooks run` takes as flags. `project` (or the X-Qhooks-Project header)
 * names the project; `settings` and `plugin` are absolute paths, repeatable.
 */
export const HookQuerySchema = z.object({
  project: z.string().startsWith("/", { error: "project must be an absolute path" }).optional(),
  settings: z.array(z.string().startsWith("/", { error: "settings must be absolute paths" })).default([]),
  plugin: z.array(z.string().startsWith("/", { error: "plugin must be absolute paths" })).default([]),
});
export type HookQuery = z.infer<typeof HookQuerySchema>;

/**
 * POST /run: a `qhooks run --format hook` that forwarded itself (cli/forwardClient.ts), with what its process would
 * have judged with: its command line (parsed), environment, working directory, home, qhooks version and stdin.
 */
export const ForwardedRunSchema = z.object({
  version: z.string(),
  homeDir: z.string().startsWith("/"),
  cwd: z.string().startsWith("/"),
  env: z.record(z.string(), z.string()),
  event: z.string(),
  settings: z.array(z.string()),
  plugins: z.array(z.string()),
  log: z.boolean(),
  hooks: z.boolean(),
  failClosed: z.boolean(),
  globals: z.object({
    db: z.string().optional(),
    projectDir: z.string().optional(),
    dialect: z.string().optional(),
    host: z.string().optional(),
  }),
  stdin: z.string(),
});
export type ForwardedRun = z.infer<typeof ForwardedRunSchema>;

/** The answer to a forwarded run: what the caller prints, in order, and its exit status (engine/runEvent.ts's reply). */
export const ForwardedReplySchema = RunReplySchema.extend({
  /** What the run said on stderr before its answer (warnings, errors), as written. */
  early: z.string(),
});
export type ForwardedReply = z.infer<typeof ForwardedReplySchema>;
