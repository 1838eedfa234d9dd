import { z } from "zod";
import { lazy } from "./lazy.js";

/** Whose hooks a trust entry covers: one project's (its settings and local settings), or one plugin folder's. */
export const TrustScopeSchema = lazy(() =>
  z.object({
    kind: z.enum(["project", "plugin"]),
    /** The project directory (its real path) or the plugin folder. */
    path: z.string().min(1),
  }),
);
export type TrustScope = z.infer<typeof TrustScopeSchema>;

/** One trusted hook content: a hook of this scope whose pin has this digest runs. */
export const TrustEntrySchema = lazy(() =>
  z.object({
    scope: TrustScopeSchema,
    /** sha256 over the command and the path and sha256 of each project or plugin file it names. */
    digest: z.string().regex(/^[0-9a-f]{64}$/, { error: "expected 64 lowercase hex digits" }),
    /** The command as it runs (a plugin's `${CLAUDE_PLUGIN_ROOT}` filled in), for people reading the list. */
    command: z.string(),
    /** The handler's `shell`, when it sets one: pinned with the command. */
    shell: z.string().optional(),
    /** The files whose bytes the digest covers, absolute. */
    files: z.array(z.string()),
    /** Where the hook was declared when it was trusted: `.qoder/settings.json hooks.PreToolUse[0].hooks[0]`. */
    where: z.string(),
    trustedAt: z.string(),
  }),
);
export type TrustEntry = z.infer<typeof TrustEntrySchema>;

/** The user-level trust store, `~/.qhooks/trust.json`. */
export const TrustStoreSchema = lazy(() =>
  z.object({
    version: z.literal(1, { error: "expected version 1" }),
    trusted: z.array(TrustEntrySchema),
  }),
);
export type TrustStore = z.infer<typeof TrustStoreSchema>;

/** A hook `qhooks trust` found untrusted, or could not trust. */
export const TrustCandidateSchema = lazy(() =>
  z.object({
    event: z.string(),
    level: z.string(),
    plugin: z.string().nullable(),
    where: z.string(),
    command: z.string(),
    /** The handler's `shell` (what runs the command), null for /bin/sh: part of what is pinned. */
    shell: z.string().nullable(),
    scope: TrustScopeSchema,
    /** The pin's digest; null when the hook cannot be pinned. */
    digest: z.string().nullable(),
    files: z.array(z.string()),
    /** Why it cannot be trusted; null when it can. */
    problem: z.string().nullable(),
  }),
);
export type TrustCandidate = z.infer<typeof TrustCandidateSchema>;

/** `qhooks trust --json`: what was untrusted, what is now trusted, what could not be. */
export const TrustReportSchema = lazy(() =>
  z.object({
    projectDir: z.string(),
    store: z.string(),
    /** Whether hooks of the project and plugins need trust to run now (the settings or QHOOKS_REQUIRE_TRUST). */
    required: z.boolean(),
    /** Hooks of the project and plugins that were trusted already. */
    alreadyTrusted: z.number().int(),
    /** Untrusted hooks found, each recorded unless `problem` says why not (or `--dry-run`). */
    untrusted: z.array(TrustCandidateSchema),
    recorded: z.boolean(),
  }),
);
export type TrustReport = z.infer<typeof TrustReportSchema>;
