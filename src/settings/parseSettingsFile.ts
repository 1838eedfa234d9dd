import type { z } from "zod";
import { EVENT_TRAITS, EventNameSchema } from "../schema/events.js";
import {
  GroupSettingSchema,
  HandlerSettingSchema,
  KNOWN_GROUP_KEYS,
  KNOWN_HANDLER_KEYS_BY_TYPE,
  type HandlerSetting,
  MAX_TIMEOUT_SECONDS,
  SettingsFileSchema,
} from "../schema/settings.js";
import { describeIssue, formatPath } from "../schema/zodIssues.js";
import { compileMatcher } from "../core/compileMatcher.js";
import type { DeclaredHook, HookPlugin } from "../core/hookDescriptor.js";
import { isQhooksSelfCall } from "../core/selfCall.js";
import type { SettingsSource } from "./settingsSources.js";
import { DEFAULT_DIALECT } from "../hosts/hostDialect.js";
import { HOSTS, hostDialect } from "../hosts/hosts.js";
import type { HostEventNames } from "../hosts/hostEventNames.js";
import { describeJsonError } from "../json/describeJsonError.js";
import { parseJsonc, withoutComments } from "../json/parseJsonc.js";
import { editDistance } from "./editDistance.js";
import { replaceLiteral } from "../text/replaceLiteral.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/jsonDepth.js";
import { EMPTY_QHOOKS_SECTION, parseQhooksSection, type QhooksSection } from "./qhooksSection.js";
import { shownUrl } from "../text/shownUrl.js";
import { longHookName, shortHookName } from "./hookNames.js";

export interface ParsedSettingsFile {
  readonly hooks: DeclaredHook[];
  /** The file's `qhooks` section: plugin folders and the Stop-loop cap. */
  readonly qhooks: QhooksSection;
  /**
   * Claude Code's `enabledPlugins` (`name@marketplace` to true or false), read only by the claude dialect. It is
   * Claude Code's setting, not qhooks': entries that are not booleans are left to Claude Code to complain about.
   */
  readonly enabledPlugins: ReadonlyArray<readonly [string, boolean]>;
  /** The host's `disableAllHooks` switch as the file sets it; null when it does not (or not as a boolean). */
  readonly disableAllHooks: boolean | null;
  /** The hook names the host's own list switches off (Gemini CLI's `hooksConfig.disabled`); empty for most hosts. */
  readonly hostDisabled: readonly string[];
  /** Complete warning lines: `<file>: <json path>: <problem>`. */
  readonly warnings: string[];
  /** The file's `hooks` section as written (the only part of a settings file the log may keep). */
  readonly hooksSection: unknown;
}

/**
 * Validates one settings file entry by entry: a bad entry is reported and skipped, its neighbours
 * still apply. Never throws for anything the file may contain.
 */
export function parseSettingsFile(source: SettingsSource, text: string): ParsedSettingsFile {
  const warnings: string[] = [];
  let unshown = 0;
  const warn = (path: ReadonlyArray<PropertyKey>, message: string) => {
    if (warnings.length >= MAX_WARNINGS_PER_FILE) return void unshown++;
    warnings.push(path.length ? `${source.display}: ${formatPath(path)}: ${message}` : `${source.display}: ${message}`);
  };
  const parsed = parseDocument(source, text, warn);
  if (unshown > 0)
    warnings.push(`${source.display}: ${unshown} more warning${unshown === 1 ? "" : "s"} about this file not shown (at most ${MAX_WARNINGS_PER_FILE} are)`);
  return { ...parsed, warnings };
}

/**
 * Most warnings one file gives; the rest are counted in one last line. A broken or hostile file of a megabyte can
 * hold a hundred thousand bad entries, and each `qhooks run` prints its file's warnings.
 */
export const MAX_WARNINGS_PER_FILE = 100;

type Warn = (path: ReadonlyArray<PropertyKey>, message: string) => void;

function parseDocument(source: SettingsSource, text: string, warn: Warn): Omit<ParsedSettingsFile, "warnings"> {
  // The issue's own path continues the entry's (`hooks.PreToolUse[1].hooks[0].timeout: …`).
  const warnIssue = (path: ReadonlyArray<PropertyKey>, error: z.ZodError, consequence: string) => {
    const issue = error.issues[0]!;
    warn([...path, ...issue.path], `${describeIssue(issue)}; ${consequence}`);
  };

  let document: unknown;
  // Its hooks section is hashed and logged: a document too deep to serialise again is skipped like broken JSON (and a
  // JSONC file is checked before it is parsed: its parser recurses).
  const tooDeep = nestsDeeperThan(source.comments === true ? withoutComments(text) : text);
  if (source.comments === true && !tooDeep) {
    const read = parseJsonc(text);
    if (!read.ok) {
      warn([], `not valid JSON with comments (${read.why}); this file is skipped`);
      return { hooks: [], qhooks: EMPTY_QHOOKS_SECTION, enabledPlugins: [], disableAllHooks: null, hostDisabled: [], hooksSection: undefined };
    }
    document = read.value;
  } else if (source.comments !== true) {
    try {
      document = JSON.parse(text);
    } catch (e) {
      warn([], `not valid JSON (${describeJsonError(text, e)}); this file is skipped`);
      return { hooks: [], qhooks: EMPTY_QHOOKS_SECTION, enabledPlugins: [], disableAllHooks: null, hostDisabled: [], hooksSection: undefined };
    }
  }
  if (tooDeep) {
    warn([], `nests deeper than ${MAX_JSON_DEPTH} levels; this file is skipped`);
    return { hooks: [], qhooks: EMPTY_QHOOKS_SECTION, enabledPlugins: [], disableAllHooks: null, hostDisabled: [], hooksSection: undefined };
  }
  const file = SettingsFileSchema.safeParse(document);
  if (!file.success) {
    warnIssue([], file.error, "this file is skipped");
    return { hooks: [], qhooks: EMPTY_QHOOKS_SECTION, enabledPlugins: [], disableAllHooks: null, hostDisabled: [], hooksSection: undefined };
  }
  const qhooks = parseQhooksSection(file.data.qhooks, warn);
  const enabled = file.data.enabledPlugins;
  const enabledPlugins =
    typeof enabled === "object" && enabled !== null && !Array.isArray(enabled)
      ? Object.entries(enabled).flatMap(([id, on]) => (typeof on === "boolean" ? [[id, on] as const] : []))
      : [];
  const host = hostDialect(source.dialect ?? DEFAULT_DIALECT);
  // The host's own switch (Claude Code's `disableAllHooks`, Gemini CLI's `hooksConfig.enabled`).
  const disableAllHooks = host.disablesAllHooks(file.data);
  const hostDisabled = host.disabledHookNames?.(file.data) ?? [];
  for (const w of host.documentWarnings?.(file.data) ?? []) warn([w.key], w.message);
  const section = file.data.hooks;
  if (section === undefined) return { hooks: [], qhooks, enabledPlugins, disableAllHooks, hostDisabled, hooksSection: undefined };

  const hooks: DeclaredHook[] = [];
  const groupKeys = withKeys(KNOWN_GROUP_KEYS, host.hookSettingKeys.group);
  for (const [key, groups] of Object.entries(section)) {
    if (host.hookSettingKeys.section.includes(key)) continue;
    const eventPath = ["hooks", key];
    const event = host.eventNames.toQhooks.get(key);
    if (event === undefined) {
      if (host.eventNames.unmapped.has(key)) warn(eventPath, `${host.name} event with no qhooks equivalent; its hooks are skipped`);
      else warn(eventPath, `unknown event${suggestEvent(key, host.eventNames, host.name)}; its hooks are skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warn(eventPath, "expected an array of matcher groups");
      continue;
    }
    const payloadForm = host.payloadFormOf?.(key);
    groups.forEach((written: unknown, g) => {
      const groupPath = [...eventPath, g];
      const rawGroup = host.readHookEntry ? host.readHookEntry(key, written, (k, message) => warn([...groupPath, k], message)) : written;
      // A host that writes one hook per entry (Cursor): the hook's path is the entry's. A group the host's reader
      // rewrote (Copilot CLI's Claude Code matchers) is still a group.
      const flat = rawGroup !== written && !(typeof written === "object" && written !== null && Array.isArray((written as { hooks?: unknown }).hooks));
      const group = GroupSettingSchema.safeParse(rawGroup);
      if (!group.success) {
        warnIssue(groupPath, group.error, "this group is skipped");
        return;
      }
      warnUnknownKeys(rawGroup, groupKeys, groupPath, warn);
      const { matcher, warnings: matcherWarnings } = compileMatcher(group.data.matcher, EVENT_TRAITS[event]);
      for (const w of matcherWarnings) warn([...groupPath, "matcher"], w);

      group.data.hooks.forEach((rawHandler, h) => {
        const handlerPath = flat ? groupPath : [...groupPath, "hooks", h];
        const handler = HandlerSettingSchema.safeParse(rawHandler);
        if (!handler.success) {
          warnIssue(handlerPath, handler.error, "this hook is skipped");
          return;
        }
        // qhooks' own entry (`qhooks install --scope managed`, the old hand-made recipe) in a level it reads: running it would run qhooks
        // inside itself. Files named on purpose (--settings) are read as given.
        if (handler.data.type === "command" && source.explicit !== true && isQhooksSelfCall(handler.data.command)) return;
        warnUnknownKeys(rawHandler, withKeys(KNOWN_HANDLER_KEYS_BY_TYPE[handler.data.type], host.hookSettingKeys.handler), handlerPath, warn);
        const blockable = EVENT_TRAITS[event].blockDecision !== null;
        if (handler.data.onFailure === "block" && !blockable)
          warn([...handlerPath, "onFailure"], `${event} cannot be blocked; a failure of this hook stays an error`);
        else if (handler.data.onFailure === "block" && handler.data.async === true)
          warn([...handlerPath, "onFailure"], "an async hook never changes the outcome; a failure of this hook stays an error");
        const hostDefault = host.defaultTimeoutSeconds(handler.data.type, event);
        const written = writtenTimeout(handler.data.timeout, host.timeoutUnit);
        let timeout = written ?? hostDefault;
        if (timeout > MAX_TIMEOUT_SECONDS) {
          warn([...handlerPath, "timeout"], `${timeout} s is more than a day (milliseconds?); ${host.defaultsName} of ${hostDefault} s applies`);
          timeout = hostDefault;
        } else if (host.timeoutUnit === "milliseconds" && timeout < MIN_MILLISECONDS_TIMEOUT_SECONDS) {
          warn(
            [...handlerPath, "timeout"],
            `${handler.data.timeout} ms is less than a tenth of a second (${host.name} reads milliseconds: seconds?); ${host.defaultsName} of ${hostDefault} s applies`,
          );
          timeout = hostDefault;
        }
        const bound = host.maxTimeoutSeconds?.(event) ?? null;
        const capped = bound !== null && timeout > bound;
        if (capped) {
          warn(
            [...handlerPath, "timeout"],
            `${timeout} s is more than the ${bound} s ${host.name} allows on ${event}; cut to ${bound} s, as ${host.name} does`,
          );
          timeout = bound;
        }
        const plugin = source.plugin ?? null;
        const handlerData: HandlerSetting =
          handler.data.type === "command" && plugin ? { ...handler.data, command: expandPluginPaths(handler.data.command, plugin) } : handler.data;
        const shown = handler.data.type === "command" ? handler.data.command : describeHandler(handler.data);
        hooks.push({
          kind: handlerData.type,
          event,
          level: source.level,
          file: source.display,
          path: formatPath(handlerPath),
          matcherSource: group.data.matcher ?? null,
          matcher,
          command: handlerData.type === "command" ? handlerData.command : shown,
          written: shown,
          handler: handlerData,
          // A plugin's hooks are named after it, so that logs and stats tell two plugins' `hooks/check.sh` apart.
          // A command is named by its script (hookNames.ts); the other types by what they do, as before.
          name: handler.data.name ?? (handler.data.type === "command" ? shortHookName(shown, plugin?.name ?? null) : longHookName(shown, plugin?.name ?? null)),
          longName: handler.data.name ?? longHookName(shown, plugin?.name ?? null),
          timeoutMs: Math.round(timeout * 1000),
          // Said as it is: a timeout the host's bound cut is the host's cap, not the file's and not the default.
          timeoutSetting: capped ? "host-cap" : timeout === written ? "settings" : "host-default",
          ...(payloadForm !== undefined ? { payloadForm } : {}),
          plugin,
          shadow: handler.data.mode === "shadow",
        });
      });
    });
  }
  return { hooks, qhooks, enabledPlugins, disableAllHooks, hostDisabled, hooksSection: section };
}

/** A timeout below this, in a host's file that counts milliseconds, was almost certainly meant in seconds. */
const MIN_MILLISECONDS_TIMEOUT_SECONDS = 0.1;

/** A hook's `timeout` in seconds, from the unit its host's files count in. */
const writtenTimeout = (timeout: number | undefined, unit: "seconds" | "milliseconds"): number | undefined =>
  timeout === undefined || unit === "seconds" ? timeout : timeout / 1000;

/** qhooks' keys and the host's own, which qhooks accepts without reading them. */
const withKeys = (known: ReadonlySet<string>, more: readonly string[]): ReadonlySet<string> => (more.length === 0 ? known : new Set([...known, ...more]));

/** Keys qhooks does not read: one warning per entry, naming each (with a likely intended key). */
function warnUnknownKeys(raw: unknown, known: ReadonlySet<string>, path: PropertyKey[], warn: Warn): void {
  const unknown = Object.keys(raw as object).filter((key) => !known.has(key));
  const named = unknown.map((key) => {
    const close = [...known].find((k) => editDistance(k, key) <= 2);
    return { key, hint: close ? ` (did you mean "${close}"?)` : "" };
  });
  if (named.length === 1) warn([...path, named[0]!.key], `unknown key${named[0]!.hint}, ignored`);
  else if (named.length > 1) warn(path, `unknown keys ${named.map((n) => `${JSON.stringify(n.key)}${n.hint}`).join(", ")}, ignored`);
}

/** One line saying what a handler that is not a command does: its `command` in listings, logs and outcomes. */
export function describeHandler(handler: HandlerSetting): string {
  switch (handler.type) {
    case "command":
      return handler.command;
    case "http":
      return `POST ${shownUrl(handler.url)}`;
    case "prompt":
    case "agent":
      return `${handler.type}: ${oneLine(handler.prompt)}`;
    case "mcp_tool":
      return `mcp_tool ${handler.server}/${handler.tool}`;
  }
}

const oneLine = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
};

function suggestEvent(key: string, names: HostEventNames, hostName: string): string {
  // The host's own names: aliases (Copilot CLI's PascalCase ones) are read, not suggested.
  const known = [...names.toQhooks.keys()].filter((name) => !names.aliases.has(name));
  // Another host's name for one of this host's events (Claude Code's PreToolUse in Gemini CLI's file).
  const theirs = EventNameSchema.safeParse(key);
  const ours = theirs.success ? names.toHost.get(theirs.data) : undefined;
  if (ours !== undefined) return ` (${hostName} calls it ${ours})`;
  // Another host's own name (Cursor's and Copilot CLI's `preToolUse`): a file of that host's shape read as this one's.
  const others = theirs.success ? [] : Object.values(HOSTS).filter((h) => h.name !== hostName && h.eventNames.toQhooks.has(key));
  if (others.length) {
    const event = others[0]!.eventNames.toQhooks.get(key)!;
    const whose = others.map((h) => `${h.name}'s`).join(" or ");
    const flags = others.map((h) => `--dialect ${h.id}`).join(" or ");
    return ` (${whose} name for ${event}: a file of another host? ${hostName} calls it ${names.toHost.get(event) ?? event}; ${flags} reads that host's own files)`;
  }
  const close = known.find((e) => e.toLowerCase() === key.toLowerCase() || editDistance(e, key) <= 2);
  return close ? ` (did you mean ${close}?)` : ` (known: ${known.join(", ")})`;
}

/** Levenshtein distance, for did-you-mean suggestions. */

/**
 * `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` replaced by the plugin's folders, as plain text wherever they
 * appear (Claude Code does the same, so that `'${CLAUDE_PLUGIN_ROOT}/x'` in single quotes works too). The hook's
 * environment holds both variables as well, for `$CLAUDE_PLUGIN_ROOT` and for the scripts it starts.
 */
export function expandPluginPaths(command: string, plugin: HookPlugin): string {
  // Plain text, in one pass: a folder name holding `$&` or `${CLAUDE_PLUGIN_DATA}` stays as it is.
  return command
    .split("${CLAUDE_PLUGIN_ROOT}")
    .map((piece) => replaceLiteral(piece, "${CLAUDE_PLUGIN_DATA}", plugin.dataDir))
    .join(plugin.root);
}
