import { join } from "node:path";
import type { EventName } from "../schema/events.js";
import type { HostDialect, SettingsLevel } from "./hostDialect.js";
import { disableAllHooksKey } from "./hostSettingKeys.js";
import { COPILOT_EVENT_NAMES } from "./copilotNames.js";
import { COPILOT_HOOKS_VERSION, copilotAnswer, copilotDocumentWarnings, copilotHookEntry, copilotHookOutput, copilotPayload } from "./copilotProtocol.js";

/** Where Copilot CLI reads administrators' policy hooks on Linux and macOS (its hooks reference). */
const POLICY_DIR = "/etc/github-copilot/policy.d";

/** Copilot CLI's hooks configuration reference: a hook's `timeoutSec`, 30 when it names none. */
const DEFAULT_TIMEOUT_SECONDS = 30;

/** The user's Copilot CLI folder: $COPILOT_HOME moves it, as for Copilot CLI (its configuration directory reference). */
function copilotHome(homeDir: string, env: Readonly<Record<string, string | undefined>>): { dir: string; shown: string } {
  const moved = env.COPILOT_HOME?.trim() ? env.COPILOT_HOME.trim() : null;
  return { dir: moved ?? join(homeDir, ".copilot"), shown: moved ?? "~/.copilot" };
}

/**
 * GitHub Copilot CLI: camelCase events (`preToolUse`, `userPromptSubmitted`, `agentStop`...) in every `*.json` of the
 * policy folder, the user's `~/.copilot/hooks/` ($COPILOT_HOME moves it) and the repository's `.github/hooks/`, each
 * file `{ "version": 1, "hooks": { event: [hook...] } }` with one hook per entry (`bash`/`command`/`exec`, `cwd`,
 * `env`, `timeoutSec` in seconds, `matcher` on some events, or an `http` entry). Its answers are per event
 * (copilotProtocol.ts). Its policy folder is root's: qhooks installs at the user level, in `~/.copilot/hooks/hooks.json`.
 */
export const copilotHost: HostDialect = {
  id: "copilot",
  name: "Copilot CLI",
  settingsLevels: (homeDir, projectDir, env = {}) => {
    const { dir, shown } = copilotHome(homeDir, env);
    // qhooks' own variable names another policy folder (tests, unusual installs), as for Claude Code's managed one.
    const policy = env.QHOOKS_COPILOT_POLICY_DIR?.trim() || POLICY_DIR;
    const settings = (level: "user" | "project" | "local", path: string, display: string, more: Partial<SettingsLevel> = {}): SettingsLevel => ({
      level,
      path,
      display,
      comments: true,
      ...more,
    });
    return [
      // Administrators' policy hooks, machine-wide, loaded before all others (every `*.json` of the folder, by name).
      {
        level: "system-defaults",
        path: join(policy, "policy.json"),
        display: join(policy, "policy.json"),
        folder: { path: policy, display: policy },
      },
      // The user's hooks files (install writes the first level named user), then the inline `hooks` of its settings.
      {
        level: "user",
        path: join(dir, "hooks", "hooks.json"),
        display: `${shown}/hooks/hooks.json`,
        folder: { path: join(dir, "hooks"), display: `${shown}/hooks` },
      },
      settings("user", join(dir, "settings.json"), `${shown}/settings.json`),
      {
        level: "project",
        path: join(projectDir, ".github", "hooks", "hooks.json"),
        display: ".github/hooks/hooks.json",
        folder: { path: join(projectDir, ".github", "hooks"), display: ".github/hooks" },
      },
      // The repository's inline hooks: its committed settings, Claude Code's files it also reads, then the local ones.
      settings("project", join(projectDir, ".github", "copilot", "settings.json"), ".github/copilot/settings.json"),
      settings("project", join(projectDir, ".claude", "settings.json"), ".claude/settings.json", { comments: false, ownedBy: "claude" }),
      settings("local", join(projectDir, ".github", "copilot", "settings.local.json"), ".github/copilot/settings.local.json"),
      settings("local", join(projectDir, ".claude", "settings.local.json"), ".claude/settings.local.json", { comments: false, ownedBy: "claude" }),
    ];
  },
  // Every plugin installed from a marketplace (`<marketplace>/<plugin>`) or directly (`_direct/<source>`), with its
  // manifest and hooks file where Copilot CLI's plugin reference looks for them, in its order.
  installedPlugins: (homeDir, env) => {
    const { dir, shown } = copilotHome(homeDir, env);
    return {
      dir: join(dir, "installed-plugins"),
      display: `${shown}/installed-plugins`,
      manifests: [join(".plugin", "plugin.json"), "plugin.json", join(".github", "plugin", "plugin.json"), join(".claude-plugin", "plugin.json")],
      hooksFiles: ["hooks.json", join("hooks", "hooks.json")],
    };
  },
  projectFolder: ".github",
  projectDirVariables: [],
  loadsEnabledPlugins: false,
  events: [...COPILOT_EVENT_NAMES.toHost.keys()] as EventName[],
  eventNames: COPILOT_EVENT_NAMES,
  hookSettingKeys: { section: [], group: [], handler: [] },
  // Not a documented Copilot CLI key: read as Claude Code's, so that a repository's `disableAllHooks: true` switches
  // off the repository's hooks only, never the user's (settings/loadSettings.ts).
  disablesAllHooks: disableAllHooksKey,
  timeoutUnit: "seconds",
  // Its own entries are skipped where qhooks reads them (core/selfCall.ts): the levels may be read.
  callsQhooksFromOutsideLevels: true,
  defaultTimeoutSeconds: () => DEFAULT_TIMEOUT_SECONDS,
  defaultsName: "Copilot CLI's default",
  managedSettings: () => null,
  // Copilot CLI ignores every hook's output but preToolUse's decision: notices are never shown.
  showsNotices: () => false,
  answer: (outcome) => copilotAnswer(outcome),
  readHookOutput: (event, output) => copilotHookOutput(event, output),
  readPayload: copilotPayload,
  readHookEntry: copilotHookEntry,
  documentWarnings: copilotDocumentWarnings,
  newFileKeys: { version: COPILOT_HOOKS_VERSION },
  // Its reference: a hook under a PascalCase name gets the VS Code-compatible payload (copilotVsCodePayload.ts).
  payloadFormOf: (hostEvent) => (COPILOT_EVENT_NAMES.aliases.has(hostEvent) ? "copilot-vscode" : undefined),
  writeHookEntry: ({ command, timeoutSeconds }) => ({ type: "command", bash: command, ...(timeoutSeconds !== undefined && { timeoutSec: timeoutSeconds }) }),
};
