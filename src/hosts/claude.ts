import { join } from "node:path";
import { EVENT_NAMES } from "../schema/eventNames.js";
import { toHookProtocol } from "../output/hookProtocol.js";
import type { HostDialect } from "./hostDialect.js";

/** Where Claude Code reads managed settings files, by platform (Windows is out of qhooks' scope). */
const MANAGED_DIRS: Partial<Record<NodeJS.Platform, string>> = {
  linux: "/etc/claude-code",
  darwin: "/Library/Application Support/ClaudeCode",
};

/**
 * Claude Code: `~/.claude/settings.json`, then the project's `.claude/settings.json` and `settings.local.json`, with
 * the plugins it has enabled. qhooks is called from its managed settings, which qhooks never reads.
 */
export const claudeHost: HostDialect = {
  id: "claude",
  name: "Claude Code",
  settingsLevels: (homeDir, projectDir) => [
    { level: "user", path: join(homeDir, ".claude", "settings.json"), display: "~/.claude/settings.json" },
    { level: "project", path: join(projectDir, ".claude", "settings.json"), display: ".claude/settings.json" },
    { level: "local", path: join(projectDir, ".claude", "settings.local.json"), display: ".claude/settings.local.json" },
  ],
  projectFolder: ".claude",
  projectDirVariables: ["CLAUDE_PROJECT_DIR", "QODERCN_PROJECT_DIR"],
  loadsEnabledPlugins: true,
  events: EVENT_NAMES,
  callsQhooksFromOutsideLevels: true,
  // Claude Code's managed folder (docs: managed-settings); drop-ins in managed-settings.d/ merge in name order.
  managedSettings: (env, platform) => {
    const dir = env.QHOOKS_CLAUDE_MANAGED_DIR || MANAGED_DIRS[platform];
    if (dir === undefined) return null;
    return { dir, file: join(dir, "managed-settings.d", "50-qhooks.json"), onlyManagedHooks: { allowManagedHooksOnly: true } };
  },
  // 600 s for command hooks (30 s on UserPromptSubmit and the model-switch events, 10 s on MessageDisplay).
  commandTimeoutSeconds: 600,
  answer: toHookProtocol,
};
