import { z } from "zod";
import { lazy } from "./lazy.js";

/** Seconds a hook may run when its handler sets no `timeout`. */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** A day: a larger `timeout` is almost certainly a unit mistake (milliseconds), so it is warned about. */
export const MAX_TIMEOUT_SECONDS = 86_400;

/**
 * A hook's time limit in seconds. Timeouts are counted in whole milliseconds, so a positive value that rounds to 0 ms
 * (`0.0001`) would be no limit at all: it is refused like 0.
 */
export const TimeoutSecondsSchema = lazy(() =>
  z
    .number({ error: "expected a positive number of seconds" })
    .positive({ error: "expected a positive number of seconds" })
    .refine((t) => Math.round(t * 1000) >= 1, { error: "expected a positive number of seconds (at least 0.001, one millisecond)" }),
);

const nonEmpty = (what: string) =>
  z.string({ error: `expected a non-empty ${what}` }).refine((c) => c.trim() !== "", { error: `expected a non-empty ${what}` });

/** The handler types qhooks knows; `command` runs a shell command, the others are described in docs/hooks.md. */
export const HANDLER_TYPES = ["command", "http", "prompt", "agent", "mcp_tool"] as const;
export type HandlerType = (typeof HANDLER_TYPES)[number];

/** Fields every handler type reads. */
const commonHandlerFields = () => ({
  timeout: TimeoutSecondsSchema.optional(),
  name: z.string({ error: "expected a string" }).min(1, { error: "expected a non-empty string" }).optional(),
  /** Runs in the background: never delays the outcome, never changes it; its result is logged when it ends. */
  async: z.boolean({ error: "expected true or false" }).optional(),
  /** Runs at most once per session. */
  once: z.boolean({ error: "expected true or false" }).optional(),
  /** What an agent with a user interface shows while the hook runs; qhooks keeps it, shows it in `qhooks hooks`. */
  statusMessage: z.string({ error: "expected a string" }).optional(),
  /** `block`: a hook that cannot start, times out or fails blocks the event (on events that can block) instead of failing open. */
  onFailure: z.enum(["block", "continue"], { error: 'expected "block" or "continue"' }).optional(),
  /** A label of the author's own; accepted and not used. */
  id: z
    .string({ error: "expected a string" })
    .optional() /** `shadow`: the hook runs and is logged with the verdict it would give, but never changes the outcome. */,
  mode: z.enum(["enforce", "shadow"], { error: 'expected "enforce" or "shadow"' }).optional(),
});

export const CommandHandlerSchema = lazy(() =>
  z.object({
    type: z.literal("command"),
    command: nonEmpty("command string")
      // No process can be started with a NUL in its arguments: the hook could never run.
      .refine((c) => !c.includes("\0"), { error: "a command cannot hold a NUL character" }),
    /** The shell the command runs with (`-c`), instead of /bin/sh: a path, or a name looked up on PATH. */
    shell: nonEmpty("shell (a path or a name on PATH)")
      .refine((c) => !c.includes("\0"), { error: "a shell cannot hold a NUL character" })
      .optional(),
    ...commonHandlerFields(),
  }),
);

export const HttpHandlerSchema = lazy(() =>
  z.object({
    type: z.literal("http"),
    url: z
      .string({ error: "expected an http:// or https:// URL" })
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), { error: "expected an http:// or https:// URL" }),
    /** Request headers; `$VAR` and `${VAR}` expand from the environment only for the names in `allowedEnvVars`. */
    headers: z.record(z.string(), z.string({ error: "expected a string header value" }), { error: "expected an object of header names to strings" }).optional(),
    allowedEnvVars: z.array(z.string({ error: "expected a variable name" }), { error: "expected an array of variable names" }).optional(),
    ...commonHandlerFields(),
  }),
);

export const PromptHandlerSchema = lazy(() =>
  z.object({
    type: z.enum(["prompt", "agent"]),
    /** What the evaluator is asked; `$ARGUMENTS` stands for the event's JSON. */
    prompt: nonEmpty("prompt"),
    model: z.string({ error: "expected a model name" }).optional(),
    ...commonHandlerFields(),
  }),
);

export const McpToolHandlerSchema = lazy(() =>
  z.object({
    type: z.literal("mcp_tool"),
    server: nonEmpty("MCP server name"),
    tool: nonEmpty("tool name"),
    /** Arguments of the tool call; the event's payload when absent. */
    input: z.record(z.string(), z.unknown(), { error: "expected an object" }).optional(),
    ...commonHandlerFields(),
  }),
);

/**
 * One handler of a matcher group, as written in a settings file. Strict about what qhooks reads; unknown keys are
 * reported separately (a warning, the handler still applies), so that `"timout": 5` does not pass unnoticed.
 */
export const HandlerSettingSchema = lazy(() =>
  z.discriminatedUnion("type", [CommandHandlerSchema, HttpHandlerSchema, PromptHandlerSchema, McpToolHandlerSchema], {
    error: `expected "command", "http", "prompt", "agent" or "mcp_tool" (the handler's type)`,
  }),
);
export type HandlerSetting = z.infer<typeof HandlerSettingSchema>;
export type CommandHandler = z.infer<typeof CommandHandlerSchema>;
export type HttpHandler = z.infer<typeof HttpHandlerSchema>;
export type PromptHandler = z.infer<typeof PromptHandlerSchema>;
export type McpToolHandler = z.infer<typeof McpToolHandlerSchema>;

/** The keys each handler type reads; any other key is warned about once per entry. */
export const KNOWN_HANDLER_KEYS_BY_TYPE: Readonly<Record<HandlerType, ReadonlySet<string>>> = lazy(() => ({
  command: new Set(Object.keys(CommandHandlerSchema.shape)),
  http: new Set(Object.keys(HttpHandlerSchema.shape)),
  prompt: new Set(Object.keys(PromptHandlerSchema.shape)),
  agent: new Set(Object.keys(PromptHandlerSchema.shape)),
  mcp_tool: new Set(Object.keys(McpToolHandlerSchema.shape)),
}));

/** A matcher group; its handlers are validated one by one, each on its own. */
export const GroupSettingSchema = lazy(() =>
  z.object({
    /** Descriptive only: accepted without a warning, not used. */
    description: z.string({ error: "expected a string" }).optional(),
    id: z.string({ error: "expected a string" }).optional(),
    matcher: z.string({ error: "expected a string (a tool name, a list such as Write|Edit, or a regex)" }).optional(),
    hooks: z.array(z.unknown(), { error: "expected an array of handlers" }),
  }),
);

/** The part of a settings file qhooks reads. Everything else in the file belongs to other features. */
export const SettingsFileSchema = lazy(() =>
  z.looseObject({
    hooks: z.record(z.string(), z.unknown(), { error: "expected an object mapping event names to matcher groups" }).optional(),
    /**
     * qhooks' own settings, under a key of its own so that no agent's setting can collide with them. Checked key by
     * key (QhooksSectionSchema), so that a bad value costs that value, never the file's hooks.
     */
    qhooks: z.unknown().optional(),
  }),
);

export const QhooksSectionSchema = lazy(() => z.record(z.string(), z.unknown(), { error: "expected an object (qhooks' own settings)" }));

/** One set of `qhooks.budget` limits: the global ones, or one hook's. */
const budgetLimits = () =>
  z.strictObject({
    /** Milliseconds a hook may add per turn (its runs' durations summed over the turn). */
    msPerTurn: z.number({ error: "expected a number of milliseconds > 0" }).positive({ error: "expected a number of milliseconds > 0" }).optional(),
    /** Characters of context (`additionalContext`, or plain stdout where it is context) a hook may inject per turn. */
    contextChars: z
      .number({ error: "expected a whole number >= 0" })
      .int({ error: "expected a whole number >= 0" })
      .min(0, { error: "expected a whole number >= 0" })
      .optional(),
  });

/**
 * `qhooks.budget`: limits on what each hook costs a turn, for every hook (`msPerTurn`, `contextChars`) and per hook
 * by name (`hooks: {"name": {...}}`, which replaces the global limit it sets). Crossing one is a warning, never a block.
 */
export const BudgetSettingsSchema = lazy(() =>
  budgetLimits().extend({
    hooks: z.record(z.string(), budgetLimits(), { error: "expected an object of hook names to limits" }).optional(),
  }),
);
export type BudgetSettings = z.infer<typeof BudgetSettingsSchema>;

/** Each key of the `qhooks` section, validated on its own: a bad value is one warning, the others still apply. */
export const QhooksSettingsSchema = lazy(() =>
  z.object({
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
    redact: z.array(z.unknown(), { error: 'expected an array of {"pattern", "kind"} entries' }).optional(),
    /**
     * Whether `qhooks run --format hook` tells the person, in the host's own channel (a `systemMessage` line), that a
     * hook failed, timed out, printed invalid output or was skipped for a reason to act on. On by default; read from
     * the user's own files only: a project must not be able to silence the failures of the guards the user relies on.
     */
    notify: z.boolean({ error: "expected true or false" }).optional(),
    /** How long records stay in the log: what `qhooks prune` removes when no --before is given (`90d`, `12w`, `48h`). */
    retention: z
      .string({ error: 'expected a duration such as "90d"' })
      .regex(/^[1-9][0-9]{0,5}[hdw]$/, { error: 'expected a duration such as "90d" (hours h, days d, weeks w)' })
      .optional(),
    /** What `qhooks replay` does instead of running some hooks (those with side effects): see ReplayOverridesSchema. */
    replay: ReplayOverridesSchema.optional(),
    /**
     * Hooks switched off by name (any level's). Read from the user's own files only: a project must not be able to
     * switch off the guards the user relies on.
     */
    disabled: z.array(hookName(), { error: "expected an array of hook names" }).optional(),
    /** Limits on what each hook costs a turn (time added, context injected): see BudgetSettingsSchema. */
    budget: BudgetSettingsSchema.optional(),
  }),
);
export type QhooksSettings = z.infer<typeof QhooksSettingsSchema>;

const hookName = () => z.string({ error: "expected a hook name" }).min(1, { error: "expected a hook name" });

/**
 * A stub: the answer a hook gives in replays instead of running, read as its output would be (exit code 2 and
 * stderr block, JSON on stdout is a decision...).
 */
export const ReplayStubSchema = lazy(() =>
  z.strictObject(
    {
      exitCode: z
        .number({ error: "expected an exit code (0-255)" })
        .int({ error: "expected an exit code (0-255)" })
        .min(0, { error: "expected an exit code (0-255)" })
        .max(255, { error: "expected an exit code (0-255)" })
        .default(0),
      stdout: z.string({ error: "expected a string" }).default(""),
      stderr: z.string({ error: "expected a string" }).default(""),
    },
    { error: 'expected {"exitCode", "stdout", "stderr"} (each optional)' },
  ),
);
export type ReplayStub = z.infer<typeof ReplayStubSchema>;

/**
 * `qhooks.replay`: hooks, by name, that `qhooks replay` does not run (a desktop notification, a formatter, an audit
 * log: their side effects would happen again), or answers for with a stub. Keyed by hook name under qhooks' own
 * key, never as new keys in the host's handler objects.
 */
export const ReplayOverridesSchema = lazy(() =>
  z.strictObject(
    {
      skip: z.array(hookName(), { error: "expected an array of hook names" }).optional(),
      stub: z.record(hookName(), ReplayStubSchema, { error: "expected an object of hook names to stub answers" }).optional(),
    },
    { error: 'expected {"skip": [hook names], "stub": {hook name: {"exitCode", "stdout", "stderr"}}}' },
  ),
);
export type ReplayOverrides = z.infer<typeof ReplayOverridesSchema>;
export const KNOWN_QHOOKS_KEYS = lazy(() => new Set(Object.keys(QhooksSettingsSchema.shape)));
/** One entry of `qhooks.redact`: a regex (JavaScript syntax, case-sensitive unless it says otherwise) and its kind. */
export const RedactEntrySchema = lazy(() =>
  z.strictObject(
    {
      pattern: z.string({ error: "expected a regex string" }).min(1, { error: "expected a non-empty regex" }).max(512, { error: "at most 512 characters" }),
      kind: z
        .string({ error: "expected a kind" })
        .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { error: "expected a kind of lowercase letters, digits and -, at most 32" }),
    },
    { error: 'expected {"pattern": "...", "kind": "..."}' },
  ),
);
export type RedactEntry = z.infer<typeof RedactEntrySchema>;
export const PluginFolderSchema = lazy(() => z.string({ error: "expected a plugin folder path" }).min(1, { error: "expected a plugin folder path" }));

export const KNOWN_GROUP_KEYS = lazy(() => new Set(Object.keys(GroupSettingSchema.shape)));
