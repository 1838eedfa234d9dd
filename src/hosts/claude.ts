import { join } from "node:path";
import { EVENT_NAMES } from "../schema/eventNames.js";
import { toHookProtocol } from "../output/hookProtocol.js";
import type { HostDialect } from "./hostDialect.js";

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
  answer: toHookProtocol,
};
