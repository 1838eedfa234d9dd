import type { z } from "zod";
import {
  KNOWN_QHOOKS_KEYS,
  PluginFolderSchema,
  QhooksSectionSchema,
  QhooksSettingsSchema,
  RedactEntrySchema,
  type BudgetSettings,
  type ReplayOverrides,
} from "../schema/settings.js";
import { compileRedactPattern } from "../redact/userPatterns.js";
import type { RedactPattern } from "../redact/redactor.js";
import { describeIssue } from "../schema/zodIssues.js";
import { editDistance } from "./editDistance.js";

/** What one file's `qhooks` section says, once its bad entries are dropped. */
export interface QhooksSection {
  /** Plugin folders as written (resolved later against the file's directory and the home directory). */
  readonly plugins: readonly { readonly folder: string; readonly path: string }[];
  readonly stopBlockCap: number | undefined;
  readonly requireTrust: boolean | undefined;
  /** `qhooks.redact`, compiled; entries that failed their check are left out (each said once). */
  readonly redact: readonly RedactPattern[];
  /** `qhooks.retention`, as written (`90d`). */
  readonly retention: string | undefined;
  /** `qhooks.replay`: hooks that replays skip or answer for with a stub, by name. */
  readonly replay: ReplayOverrides | undefined;
  /** `qhooks.notify`: whether failures of hooks are told to the person in the host's answer. */
  readonly notify: boolean | undefined;
  /** `qhooks.disabled`: hooks switched off by name. */
  readonly disabled: readonly string[] | undefined;
  /** `qhooks.budget`: limits on each hook's time per turn and context injected. */
  readonly budget: BudgetSettings | undefined;
}

export const EMPTY_QHOOKS_SECTION: QhooksSection = {
  plugins: [],
  stopBlockCap: undefined,
  requireTrust: undefined,
  redact: [],
  retention: undefined,
  replay: undefined,
  notify: undefined,
  disabled: undefined,
  budget: undefined,
};

/**
 * Reads the `qhooks` section of a settings file key by key, like the hooks section: a bad value is one warning
 * naming its JSON path and is ignored; everything else applies.
 */
export function parseQhooksSection(raw: unknown, warn: (path: PropertyKey[], message: string) => void): QhooksSection {
  if (raw === undefined) return EMPTY_QHOOKS_SECTION;
  const parsed = QhooksSectionSchema.safeParse(raw);
  if (!parsed.success) {
    warnIssue(["qhooks"], parsed.error, "ignored", warn);
    return EMPTY_QHOOKS_SECTION;
  }
  const section = parsed.data;
  const plugins: { folder: string; path: string }[] = [];
  let stopBlockCap: number | undefined;
  let requireTrust: boolean | undefined;
  let retention: string | undefined;
  let replay: ReplayOverrides | undefined;
  let notify: boolean | undefined;
  let disabled: string[] | undefined;
  let budget: BudgetSettings | undefined;
  const redact: RedactPattern[] = [];
  for (const [key, value] of Object.entries(section)) {
    const path = ["qhooks", key];
    if (!KNOWN_QHOOKS_KEYS.has(key)) {
      const close = [...KNOWN_QHOOKS_KEYS].find((k) => editDistance(k.toLowerCase(), key.toLowerCase()) <= 2);
      warn(path, `unknown key${close ? ` (did you mean "${close}"?)` : ""}, ignored`);
      continue;
    }
    const checked = QhooksSettingsSchema.shape[key as keyof typeof QhooksSettingsSchema.shape].safeParse(value);
    if (!checked.success) {
      warnIssue(path, checked.error, "ignored", warn);
      continue;
    }
    if (key === "stopBlockCap") stopBlockCap = checked.data as number;
    if (key === "requireTrust") requireTrust = checked.data as boolean;
    if (key === "retention") retention = checked.data as string;
    if (key === "replay") replay = checked.data as ReplayOverrides;
    if (key === "notify") notify = checked.data as boolean;
    if (key === "disabled") disabled = checked.data as string[];
    if (key === "budget") budget = checked.data as BudgetSettings;
    if (key === "redact") {
      (checked.data as unknown[]).forEach((entry, i) => {
        const parsedEntry = RedactEntrySchema.safeParse(entry);
        if (!parsedEntry.success) return warnIssue([...path, i], parsedEntry.error, "ignored", warn);
        const compiled = compileRedactPattern(parsedEntry.data);
        if (compiled.pattern !== null) redact.push(compiled.pattern);
        if (compiled.warning !== null) warn([...path, i, "pattern"], compiled.warning.text);
      });
    }
    if (key === "plugins") {
      (checked.data as unknown[]).forEach((entry, i) => {
        const folder = PluginFolderSchema.safeParse(entry);
        if (folder.success) plugins.push({ folder: folder.data, path: `qhooks.plugins[${i}]` });
        else warnIssue([...path, i], folder.error, "ignored", warn);
      });
    }
  }
  return { plugins, stopBlockCap, requireTrust, redact, retention, replay, notify, disabled, budget };
}

function warnIssue(path: PropertyKey[], error: z.ZodError, consequence: string, warn: (path: PropertyKey[], message: string) => void): void {
  const issue = error.issues[0]!;
  warn([...path, ...issue.path], `${describeIssue(issue)}; ${consequence}`);
}
