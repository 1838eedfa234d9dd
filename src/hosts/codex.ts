import { join } from "node:path";
import { toHookProtocol } from "../output/hookProtocol.js";
import type { EventName } from "../schema/events.js";
import type { HostDialect } from "./hostDialect.js";
import { hostEventNames } from "./hostEventNames.js";
import { EVENT_NAMES } from "../schema/eventNames.js";
import { disableAllHooksKey, NO_HOOK_SETTING_KEYS } from "./hostSettingKeys.js";

/** The events Codex fires (its hooks reference), under the same names as Claude Code's and qhooks'. */
const CODEX_EVENTS: readonly EventName[] = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PreCompact",
  "PostCompact",
  "SessionStart",
  "SessionEnd",
  "UserPromptSubmit",
  "SubagentStart",
  "SubagentStop",
  "Stop",
];

/** Codex's documented default for a command hook that names no `timeout`, in seconds. */
const DEFAULT_TIMEOUT_SECONDS = 600;
/**
 * SessionEnd's hooks (and Interrupt's) run while Codex closes: 1 s when the hook names none, and Codex cuts any longer
 * `timeout` to 3 s, with a warning at every start.
 */
const SESSION_END_DEFAULT_SECONDS = 1;
const SESSION_END_MAX_SECONDS = 3;

/** Codex's own events that qhooks has none for: its hooks are warned about and skipped. */
const CODEX_EVENT_NAMES = hostEventNames(
  EVENT_NAMES.map((e) => [e, e] as const),
  ["Interrupt"],
);

/**
 * Codex: `~/.codex/hooks.json`, then the project's `.codex/hooks.json`, in Claude Code's shape and event names, and
 * Claude Code's answer protocol. The `[hooks]` tables of its `config.toml` are not read (a TOML reader would be a new
 * dependency; docs/decisions.md), nor its trust hashes (`[hooks.state]`): qhooks' own trust applies instead.
 */
export const codexHost: HostDialect = {
  id: "codex",
  name: "Codex",
  // $CODEX_HOME moves the user's folder, as it does for Codex.
  settingsLevels: (homeDir, projectDir, env = {}) => [
    env.CODEX_HOME?.trim()
      ? { level: "user", path: join(env.CODEX_HOME.trim(), "hooks.json"), display: join(env.CODEX_HOME.trim(), "hooks.json") }
      : { level: "user", path: join(homeDir, ".codex", "hooks.json"), display: "~/.codex/hooks.json" },
    { level: "project", path: join(projectDir, ".codex", "hooks.json"), display: ".codex/hooks.json" },
  ],
  projectFolder: ".codex",
  // Codex names no project variable: its hooks run in the session's working directory, which is the project.
  projectDirVariables: [],
  loadsEnabledPlugins: false,
  events: CODEX_EVENTS,
  eventNames: CODEX_EVENT_NAMES,
  hookSettingKeys: NO_HOOK_SETTING_KEYS,
  disablesAllHooks: disableAllHooksKey,
  timeoutUnit: "seconds",
  // Its own entries are skipped where qhooks reads them (core/selfCall.ts): the levels may be read.
  callsQhooksFromOutsideLevels: true,
  defaultTimeoutSeconds: (_type, event) => (event === "SessionEnd" ? SESSION_END_DEFAULT_SECONDS : DEFAULT_TIMEOUT_SECONDS),
  maxTimeoutSeconds: (event) => (event === "SessionEnd" ? SESSION_END_MAX_SECONDS : null),
  defaultsName: "Codex's default",
  managedSettings: () => null,
  // Codex shows `systemMessage` as a warning on every event; a block on exit 2 has only stderr.
  showsNotices: (outcome) => toHookProtocol({ ...outcome, systemMessages: [...outcome.systemMessages, "-"] }).exitCode === 0,
  answer: (outcome, notices = []) =>
    toHookProtocol(notices.length > 0 && codexHost.showsNotices(outcome) ? { ...outcome, systemMessages: [...outcome.systemMessages, ...notices] } : outcome),
};
