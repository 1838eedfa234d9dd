import { builtInRedactor } from "../redact/redactor.js";
import { formatPath } from "../schema/zodIssues.js";
import type { EventDetail, SnapshotSource } from "../schema/eventDetail.js";
import type { EventName } from "../schema/events.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import { parseSettingsFile } from "../settings/parseSettingsFile.js";
import type { SettingsSource } from "../settings/settingsSources.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";
import { DEFAULT_DIALECT, type Dialect } from "../hosts/hostDialect.js";

/** One entry of a `hooks` section as written: a handler, or a group or event too broken to have handlers. */
export interface RawEntry {
  /** Index of its source in `ConfigView.sources`. */
  readonly source: number;
  /** `hooks.PreToolUse[0].hooks[1]` (a handler), `hooks.PreToolUse[0]` (a group), `hooks.PreTool` (an event). */
  readonly path: string;
  /** The event key as written. */
  readonly event: string;
  readonly matcher: string | null;
  /** The handler's `command` and `name` when they are strings. */
  readonly command: string | null;
  readonly name: string | null;
  readonly shadow: boolean;
  /** The paths that hold it (its group's, its event key's), where a warning may name the problem instead. */
  readonly within: readonly string[];
}

/** A configuration seen entry by entry: what explain walks. */
export interface ConfigView {
  readonly snapshot: SettingsSnapshot;
  readonly sources: readonly SettingsSource[];
  /** Every entry of every source, in priority order then declaration order. */
  readonly entries: readonly RawEntry[];
  /** The valid hooks by `source index \0 path`, and each one's key. */
  readonly hooksAt: ReadonlyMap<string, DeclaredHook>;
  readonly keyOf: ReadonlyMap<DeclaredHook, string>;
  /** The warnings about entries (each `display: path: problem`), re-derived from the sections. */
  readonly warnings: readonly string[];
}

export const entryKey = (source: number, path: string) => `${source}\0${path}`;

/**
 * The configuration an event was judged by, rebuilt from its logged snapshot: each file's `hooks` section as it was
 * then, read again by the same rules. A snapshot logged with its sources gives each file's name and a plugin's
 * folders; an older one gives its level and path only (a plugin's `${CLAUDE_PLUGIN_ROOT}` then stays unexpanded).
 */
export function configOfSnapshot(snapshot: NonNullable<EventDetail["snapshot"]>): ConfigView {
  const document = Array.isArray(snapshot.document) ? (snapshot.document as unknown[]) : [];
  const parts = document.flatMap((d): { source: SettingsSource; hooks: unknown }[] => {
    if (typeof d !== "object" || d === null) return [];
    const { level, file, plugin, hooks } = d as { level?: unknown; file?: unknown; plugin?: unknown; hooks?: unknown };
    if (typeof level !== "string" || typeof file !== "string") return [];
    const logged = snapshot.sources?.find((s) => s.file === file && s.level === level);
    const source = sourceOf(level, file, typeof plugin === "string" ? plugin : null, logged);
    // Read by the rules of the host it was logged under (its default timeouts); before the dialect was logged, the default.
    return [{ source: snapshot.dialect ? { ...source, dialect: snapshot.dialect } : source, hooks }];
  });
  return viewOf(parts, snapshot.hash, snapshot.dialect);
}

/** The same view of a configuration loaded now (an event that was never logged). */
export function configOfSettings(snapshot: SettingsSnapshot): ConfigView {
  const parts = snapshot.document.flatMap((d) => {
    const source = snapshot.sources.find((s) => s.path === d.file && s.level === d.level);
    return source ? [{ source: source as SettingsSource, hooks: d.hooks }] : [];
  });
  return viewOf(parts, snapshot.hash, snapshot.dialect);
}

function sourceOf(level: string, file: string, plugin: string | null, logged: SnapshotSource | undefined): SettingsSource {
  const display = logged?.display ?? file;
  if (plugin === null) return { level, path: file, display };
  // Before sources were logged, a plugin's folders are unknown: a marker of its own keeps two plugins apart.
  const info = logged?.plugin ?? { name: plugin, root: `<plugin ${plugin}>`, dataDir: `<plugin ${plugin} data>` };
  return { level, path: file, display, plugin: info };
}

function viewOf(parts: readonly { source: SettingsSource; hooks: unknown }[], hash = "", dialect: Dialect = DEFAULT_DIALECT): ConfigView {
  const sources = parts.map((p) => p.source);
  const hooksAt = new Map<string, DeclaredHook>();
  const keyOf = new Map<DeclaredHook, string>();
  const hooks: DeclaredHook[] = [];
  const warnings: string[] = [];
  parts.forEach((p, i) => {
    const parsed = parseSettingsFile(p.source, JSON.stringify({ hooks: p.hooks }));
    for (const hook of parsed.hooks) {
      hooksAt.set(entryKey(i, hook.path), hook);
      keyOf.set(hook, entryKey(i, hook.path));
      hooks.push(hook);
    }
    for (const w of parsed.warnings) warnings.push(w);
  });
  const byEvent = new Map<EventName, DeclaredHook[]>();
  for (const hook of hooks) byEvent.set(hook.event, [...(byEvent.get(hook.event) ?? []), hook]);
  const snapshot: SettingsSnapshot = {
    hash,
    dialect,
    // Only the hooks sections are logged: a disableAllHooks is in the hash, not in what explain can read back.
    disabled: [],
    overruled: [],
    sources: sources.map((s) => ({ ...s, state: "loaded" as const })),
    hooks,
    byEvent,
    warnings,
    stopBlockCap: null,
    stopBlockCaps: [],
    requireTrust: null,
    // Explaining runs nothing and logs nothing: neither redaction nor retention applies.
    redactor: builtInRedactor,
    retention: null,
    replay: { skip: [], stub: new Map() },
    notify: true,
    missingPlugins: [],
    watched: [],
    document: parts.map((p) => ({ level: p.source.level, file: p.source.path, ...(p.source.plugin ? { plugin: p.source.plugin.name } : {}), hooks: p.hooks })),
  };
  const entries = parts.flatMap((p, i) => entriesOf(p.hooks, i));
  return { snapshot, sources, entries, hooksAt, keyOf, warnings };
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Every handler of a `hooks` section, and each group or event key that holds none it could read. */
function entriesOf(section: unknown, source: number): RawEntry[] {
  if (typeof section !== "object" || section === null || Array.isArray(section)) return [];
  const entries: RawEntry[] = [];
  for (const [event, groups] of Object.entries(section)) {
    const eventPath = formatPath(["hooks", event]);
    const none = { source, event, matcher: null, command: null, name: null, shadow: false };
    if (!Array.isArray(groups)) {
      entries.push({ ...none, path: eventPath, within: [] });
      continue;
    }
    groups.forEach((group: unknown, g) => {
      const handlers = typeof group === "object" && group !== null ? (group as { hooks?: unknown }).hooks : undefined;
      const matcher = typeof group === "object" && group !== null ? str((group as { matcher?: unknown }).matcher) : null;
      if (!Array.isArray(handlers)) {
        entries.push({ ...none, matcher, path: formatPath(["hooks", event, g]), within: [eventPath] });
        return;
      }
      handlers.forEach((h: unknown, i) => {
        const handler = typeof h === "object" && h !== null ? (h as Record<string, unknown>) : {};
        entries.push({
          source,
          event,
          matcher,
          path: formatPath(["hooks", event, g, "hooks", i]),
          command: str(handler.command),
          name: str(handler.name),
          shadow: handler.mode === "shadow",
          within: [formatPath(["hooks", event, g]), eventPath],
        });
      });
    });
  }
  return entries;
}
