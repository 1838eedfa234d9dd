import { z } from "zod";

/** How much a finding matters: `error` means a hook does not do what its file says (or does not load at all). */
export const FindingLevelSchema = z.enum(["error", "warn", "info"]);
export type FindingLevel = z.infer<typeof FindingLevelSchema>;

/** One problem `qhooks doctor` found, placed in the settings file that causes it. */
export const DoctorFindingSchema = z.object({
  /** The rule that found it (docs/doctor.md lists them): `command-missing`, `guard-timeout`... */
  rule: z.string(),
  level: FindingLevelSchema,
  /** The settings level: `user`, `project`, `local`, `plugin`, or a `--settings` file's path; null when none applies. */
  settingsLevel: z.string().nullable(),
  /** The file as messages name it; null when the problem is in no one file. */
  file: z.string().nullable(),
  /** The file's absolute path, for editors and CI annotations; null when not known. */
  filePath: z.string().nullable(),
  /** 1-based line of `path` in the file; null when it cannot be found (a file that is not JSON, a path it lacks). */
  line: z.number().int().positive().nullable(),
  /** The JSON path in the file, e.g. `hooks.PreToolUse[0].hooks[1].timeout`; null for the file as a whole. */
  path: z.string().nullable(),
  message: z.string(),
  /** One line: what to change. */
  fix: z.string(),
});
export type DoctorFinding = z.infer<typeof DoctorFindingSchema>;

/** What `qhooks doctor --format json` prints. */
export const DoctorReportSchema = z.object({
  dialect: z.string(),
  projectDir: z.string(),
  /** Hooks loaded from the settings files (valid entries), and the rules that read them. */
  hooks: z.number().int().nonnegative(),
  rules: z.array(z.string()),
  findings: z.array(DoctorFindingSchema),
  counts: z.object({ error: z.number().int(), warn: z.number().int(), info: z.number().int() }),
});
export type DoctorReport = z.infer<typeof DoctorReportSchema>;

/** Why a configured hook entry does not load, as a kind. */
export const SkipKindSchema = z.enum(["unknown-event", "no-qhooks-event", "wrong-shape", "invalid", "switched-off", "overruled", "untrusted"]);
export type SkipKind = z.infer<typeof SkipKindSchema>;

/** A hook entry configured on disk that qhooks does not run, and why. */
export const SkippedHookSchema = z.object({
  /** The settings level (`user`, `project`, `local`, `plugin`, or a `--settings` file's path). */
  level: z.string(),
  file: z.string(),
  /** The entry, or the part of the file that holds it (`hooks.PreToolUse[0].hooks[1]`, `hooks.Nope`). */
  path: z.string(),
  why: z.string(),
  /**
   * Why, as a kind: an event the host does not have (`unknown-event`) or has with no qhooks equivalent
   * (`no-qhooks-event`), a part that is not the shape the host reads (`wrong-shape`), an entry with an invalid field
   * (`invalid`), switched off by a setting (`switched-off`), a weaker copy of a user's guard (`overruled`), not trusted
   * (`untrusted`). Absent in attestations logged before it existed.
   */
  kind: SkipKindSchema.optional(),
});
export type SkippedHook = z.infer<typeof SkippedHookSchema>;

/** Configured on disk vs loaded: proof that the hooks written in the files are the ones that run. */
export const LoadAttestationSchema = z.object({
  /** Hook entries in the hooks sections of the files that could be read as JSON. */
  configured: z.number().int().nonnegative(),
  /** Of those, the ones qhooks runs when their event and matcher fit (valid, and trusted where trust is required). */
  loaded: z.number().int().nonnegative(),
  /** The first skipped entries (at most MAX_SKIPPED_LISTED), in file order. */
  skipped: z.array(SkippedHookSchema),
  /**
   * Skipped entries beyond those listed, counted only (a file of 300,000 broken entries is not copied into every
   * answer and the log): how many, and how many of them a switch the user set turned off.
   */
  notListed: z.object({ count: z.number().int().positive(), switchedOff: z.number().int().nonnegative() }).optional(),
  /** Files whose hooks cannot be counted (not JSON, unreadable, too large): every hook in them is skipped. */
  unreadFiles: z.array(z.object({ level: z.string(), file: z.string(), why: z.string() })),
});
export type LoadAttestation = z.infer<typeof LoadAttestationSchema>;
