import { z } from "zod";

/** Seconds a hook may run when its handler sets no `timeout`. */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** A day: a larger `timeout` is almost certainly a unit mistake (milliseconds), so it is warned about. */
export const MAX_TIMEOUT_SECONDS = 86_400;

/**
 * A hook's time limit in seconds. Timeouts are counted in whole milliseconds, so a positive value that rounds to 0 ms
 * (`0.0001`) would be no limit at all: it is refused like 0.
 */
export const TimeoutSecondsSchema = z
  .number({ error: "expected a positive number of seconds" })
  .positive({ error: "expected a positive number of seconds" })
  .refine((t) => Math.round(t * 1000) >= 1, { error: "expected a positive number of seconds (at least 0.001, one millisecond)" });

/**
 * One handler of a matcher group, as written in a settings file. Strict about what qhooks reads; unknown keys are
 * reported separately (a warning, the handler still applies), so that `"timout": 5` does not pass unnoticed.
 */
export const HandlerSettingSchema = z.object({
  type: z.literal("command", { error: 'expected "command" (the only handler type qhooks runs)' }),
  command: z
    .string({ error: "expected a non-empty command string" })
    .refine((c) => c.trim() !== "", { error: "expected a non-empty command string" })
    // No process can be started with a NUL in its arguments: the hook could never run.
    .refine((c) => !c.includes("\0"), { error: "a command cannot hold a NUL character" }),
  timeout: TimeoutSecondsSchema.optional(),
  name: z.string({ error: "expected a string" }).min(1, { error: "expected a non-empty string" }).optional(),
});
export type HandlerSetting = z.infer<typeof HandlerSettingSchema>;

/** A matcher group; its handlers are validated one by one, each on its own. */
export const GroupSettingSchema = z.object({
  matcher: z.string({ error: "expected a string (a tool name, a list such as Write|Edit, or a regex)" }).optional(),
  hooks: z.array(z.unknown(), { error: "expected an array of handlers" }),
});

/** The part of a settings file qhooks reads. Everything else in the file belongs to other features. */
export const SettingsFileSchema = z.looseObject({
  hooks: z.record(z.string(), z.unknown(), { error: "expected an object mapping event names to matcher groups" }).optional(),
  /**
   * qhooks' own settings, under a key of its own so that no agent's setting can collide with them. Checked key by
   * key (QhooksSectionSchema), so that a bad value costs that value, never the file's hooks.
   */
  qhooks: z.unknown().optional(),
});

export const QhooksSectionSchema = z.record(z.string(), z.unknown(), { error: "expected an object (qhooks' own settings)" });

/** Each key of the `qhooks` section, validated on its own: a bad value is one warning, the others still apply. */
export const QhooksSettingsSchema = z.object({
  /** Plugin folders (Claude Code's layout: hooks/hooks.json) whose hooks run as well; `~` and relative paths allowed. */
  plugins: z.array(z.unknown(), { error: "expected an array of plugin folders" }).optional(),
  /** Consecutive blocked Stop outcomes before the next block is overruled; 0 turns the Stop-loop guard off. */
  stopBlockCap: z
    .number({ error: "expected a whole number >= 0 (0 turns the Stop-loop guard off)" })
    .int({ error: "expected a whole number >= 0 (0 turns the Stop-loop guard off)" })
    .min(0, { error: "expected a whole number >= 0 (0 turns the Stop-loop guard off)" })
    .optional(),
  /**
   * Hooks from the project, its local settings and plugins run only once `qhooks trust` has pinned their content.
   * Read from the user-level settings file only: a project must not be able to switch its own check off.
   */
  requireTrust: z.boolean({ error: "expected true or false" }).optional(),
  /** Patterns of the user's own secrets, redacted in the log after the built-in detectors; each entry checked alone. */
  redact: z.array(z.unknown(), { error: "expected an array of {\"pattern\", \"kind\"} entries" }).optional(),
  /** How long records stay in the log: what `qhooks prune` removes when no --before is given (`90d`, `12w`, `48h`). */
  retention: z.string({ error: 'expected a duration such as "90d"' }).regex(/^[1-9][0-9]{0,5}[hdw]$/, { error: 'expected a duration such as "90d" (hours h, days d, weeks w)' }).optional(),
});
export type QhooksSettings = z.infer<typeof QhooksSettingsSchema>;
export const KNOWN_QHOOKS_KEYS = new Set(Object.keys(QhooksSettingsSchema.shape));
/** One entry of `qhooks.redact`: a regex (JavaScript syntax, case-sensitive unless it says otherwise) and its kind. */
export const RedactEntrySchema = z.strictObject(
  {
    pattern: z.string({ error: "expected a regex string" }).min(1, { error: "expected a non-empty regex" }).max(512, { error: "at most 512 characters" }),
    kind: z.string({ error: "expected a kind" }).regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { error: "expected a kind of lowercase letters, digits and -, at most 32" }),
  },
  { error: 'expected {"pattern": "...", "kind": "..."}' },
);
export type RedactEntry = z.infer<typeof RedactEntrySchema>;
export const PluginFolderSchema = z.string({ error: "expected a plugin folder path" }).min(1, { error: "expected a plugin folder path" });

export const KNOWN_HANDLER_KEYS = new Set(Object.keys(HandlerSettingSchema.shape));
export const KNOWN_GROUP_KEYS = new Set(Object.keys(GroupSettingSchema.shape));
