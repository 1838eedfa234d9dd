import { join } from "node:path";
import type { HostDialect, SettingsLevel } from "./hostDialect.js";
import { GEMINI_EVENT_NAMES } from "./geminiNames.js";
import { geminiAnswer, geminiHookOutput } from "./geminiProtocol.js";

/** Where Gemini CLI keeps its system-wide files, by platform (its configuration reference; Windows is out of scope). */
const SYSTEM_DIRS: Partial<Record<NodeJS.Platform, string>> = {
  linux: "/etc/gemini-cli",
  darwin: "/Library/Application Support/GeminiCli",
};

/** Gemini CLI's hooks reference: a hook's `timeout` is in milliseconds, 60000 when it names none. */
const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * Gemini CLI's four settings files, lowest priority first: the system defaults, the user's, the project's, and the
 * system settings that override them all. Their `hooks` lists are concatenated (its merge strategy for hooks), so
 * qhooks lists each level's after the one before. `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH` and
 * `$GEMINI_CLI_SYSTEM_SETTINGS_PATH` move the system files, as they do for Gemini CLI.
 */
function settingsLevels(homeDir: string, projectDir: string, env: Readonly<Record<string, string | undefined>> = {}): SettingsLevel[] {
  const dir = SYSTEM_DIRS[process.platform] ?? SYSTEM_DIRS.linux!;
  const defaults = env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH || join(dir, "system-defaults.json");
  const system = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || join(dir, "settings.json");
  return [
    { level: "system-defaults", path: defaults, display: defaults },
    { level: "user", path: join(homeDir, ".gemini", "settings.json"), display: "~/.gemini/settings.json" },
    { level: "project", path: join(projectDir, ".gemini", "settings.json"), display: ".gemini/settings.json" },
    { level: "system", path: system, display: system },
  ];
}

/**
 * Gemini CLI: `BeforeTool`, `AfterTool`, `BeforeAgent`... in `settings.json` files, timeouts in milliseconds, and its
 * own answer: exit 2 with the reason, or `decision: "deny"` in JSON. It has no managed settings that silence the
 * others, so qhooks is installed at the user level, beside the user's hooks.
 */
export const geminiHost: HostDialect = {
  id: "gemini",
  name: "Gemini CLI",
  settingsLevels,
  projectFolder: ".gemini",
  projectDirVariables: ["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
  loadsEnabledPlugins: false,
  events: [...GEMINI_EVENT_NAMES.toHost.keys()],
  eventNames: GEMINI_EVENT_NAMES,
  hookSettingKeys: { section: ["enabled", "disabled", "notifications"], group: ["sequential"], handler: ["description"] },
  disablesAllHooks: (document) => {
    const config = document.hooksConfig;
    if (typeof config !== "object" || config === null || !("enabled" in config)) return null;
    return typeof config.enabled === "boolean" ? !config.enabled : null;
  },
  // `hooksConfig.disabled`: the names (a hook's `name`, else its command) Gemini CLI does not run.
  disabledHookNames: (document) => {
    const config = document.hooksConfig;
    if (typeof config !== "object" || config === null || !("disabled" in config) || !Array.isArray(config.disabled)) return [];
    return config.disabled.filter((n: unknown): n is string => typeof n === "string" && n !== "");
  },
  timeoutUnit: "milliseconds",
  // Its own entries are skipped where qhooks reads them (core/selfCall.ts): the levels may be read.
  callsQhooksFromOutsideLevels: true,
  defaultTimeoutSeconds: () => DEFAULT_TIMEOUT_SECONDS,
  defaultsName: "Gemini CLI's default",
  managedSettings: () => null,
  // Gemini CLI shows `systemMessage` on every event it fires.
  showsNotices: () => true,
  answer: geminiAnswer,
  readHookOutput: geminiHookOutput,
};
