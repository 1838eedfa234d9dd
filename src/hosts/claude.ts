import { join } from "node:path";
import type { EventName } from "../schema/events.js";
import { EVENT_NAMES } from "../schema/eventNames.js";
import type { Outcome } from "../schema/outcome.js";
import { toHookProtocol } from "../output/hookProtocol.js";
import type { HandlerType } from "../schema/settings.js";
import type { HostDialect } from "./hostDialect.js";
import { QHOOKS_EVENT_NAMES } from "./hostEventNames.js";
import { disableAllHooksKey, NO_HOOK_SETTING_KEYS } from "./hostSettingKeys.js";

/** Where Claude Code reads managed settings files, by platform (Windows is out of qhooks' scope). */
const MANAGED_DIRS: Partial<Record<NodeJS.Platform, string>> = {
  linux: "/etc/claude-code",
  darwin: "/Library/Application Support/ClaudeCode",
};

/**
 * Events whose `systemMessage` Claude Code discards (its hooks reference; docs/claude-code.md): a notice there would
 * reach no one, so the answer stays as it was.
 */
const DISCARDS_SYSTEM_MESSAGE: ReadonlySet<EventName> = new Set([
  "Notification",
  "PreCompact",
  "PostCompact",
  "SessionEnd",
  "Setup",
  "InstructionsLoaded",
  "MessageDisplay",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "Elicitation",
  "ElicitationResult",
  "StopFailure",
]);

const withNotices = (outcome: Outcome, notices: readonly string[]): Outcome => ({ ...outcome, systemMessages: [...outcome.systemMessages, ...notices] });

/**
 * Notices go out as `systemMessage` lines, which Claude Code shows the person. A block that would have been exit 2
 * and stderr is then answered in the JSON form with the decision inside (as for any block with a system message),
 * except on the events that take a block from exit 2 alone: there the block wins and the notice is not said.
 */
const showsNotices = (outcome: Outcome): boolean => !DISCARDS_SYSTEM_MESSAGE.has(outcome.event) && toHookProtocol(withNotices(outcome, ["-"])).exitCode === 0;

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
  eventNames: QHOOKS_EVENT_NAMES,
  hookSettingKeys: NO_HOOK_SETTING_KEYS,
  disablesAllHooks: disableAllHooksKey,
  timeoutUnit: "seconds",
  callsQhooksFromOutsideLevels: true,
  defaultTimeoutSeconds,
  defaultsName: "Claude Code's default",
  // Claude Code's managed folder (docs: managed-settings); drop-ins in managed-settings.d/ merge in name order.
  managedSettings: (env, platform) => {
    const dir = env.QHOOKS_CLAUDE_MANAGED_DIR || MANAGED_DIRS[platform];
    if (dir === undefined) return null;
    return { dir, file: join(dir, "managed-settings.d", "50-qhooks.json"), onlyManagedHooks: { allowManagedHooksOnly: true } };
  },
  showsNotices,
  answer: (outcome, notices = []) => toHookProtocol(notices.length > 0 && showsNotices(outcome) ? withNotices(outcome, notices) : outcome),
};

/** Claude Code's hooks reference: 600 s for command, http and mcp_tool hooks, 30 s for prompt, 60 s for agent. */
const BY_TYPE: Readonly<Record<HandlerType, number>> = { command: 600, http: 600, mcp_tool: 600, prompt: 30, agent: 60 };
/** Events whose hooks get less, whatever their type: the user is waiting on them. */
const BY_EVENT: Partial<Readonly<Record<EventName, number>>> = { UserPromptSubmit: 30, PreModelSwitch: 30, PostModelSwitch: 30, MessageDisplay: 10 };

function defaultTimeoutSeconds(type: HandlerType, event: EventName): number {
  return Math.min(BY_TYPE[type], BY_EVENT[event] ?? Number.POSITIVE_INFINITY);
}
