import { join } from "node:path";
import { CLASSIC_EVENT_NAMES } from "../schema/eventNames.js";
import type { Outcome } from "../schema/outcome.js";
import { toHookProtocol } from "../output/hookProtocol.js";
import { DEFAULT_TIMEOUT_SECONDS } from "../schema/settings.js";
import type { HostDialect } from "./hostDialect.js";
import { QHOOKS_EVENT_NAMES } from "./hostEventNames.js";
import { disableAllHooksKey, NO_HOOK_SETTING_KEYS } from "./hostSettingKeys.js";

/**
 * Qoder CN CLI shows the person nothing of a hook's exit 0 (no `systemMessage` line): the one channel is the stderr of
 * a block, exit 2. Notices go there, after the reason, and only there; an allowed event says nothing (the log has it).
 */
const showsNotices = (outcome: Outcome): boolean => toHookProtocol(outcome).exitCode === 2;

/** Qoder CN CLI: `~/.qoder-cn/settings.json`, then the project's `.qoder/settings.json` and `settings.local.json`. */
export const qoderHost: HostDialect = {
  id: "qoder",
  name: "Qoder CN CLI",
  settingsLevels: (homeDir, projectDir) => [
    { level: "user", path: join(homeDir, ".qoder-cn", "settings.json"), display: "~/.qoder-cn/settings.json" },
    { level: "project", path: join(projectDir, ".qoder", "settings.json"), display: ".qoder/settings.json" },
    { level: "local", path: join(projectDir, ".qoder", "settings.local.json"), display: ".qoder/settings.local.json" },
  ],
  projectFolder: ".qoder",
  projectDirVariables: ["QODERCN_PROJECT_DIR"],
  loadsEnabledPlugins: false,
  events: CLASSIC_EVENT_NAMES,
  eventNames: QHOOKS_EVENT_NAMES,
  hookSettingKeys: NO_HOOK_SETTING_KEYS,
  disablesAllHooks: disableAllHooksKey,
  timeoutUnit: "seconds",
  callsQhooksFromOutsideLevels: false,
  // The seed's one default for every handler type and event.
  defaultTimeoutSeconds: () => DEFAULT_TIMEOUT_SECONDS,
  defaultsName: "the default",
  managedSettings: () => null,
  showsNotices,
  answer(outcome, notices = []) {
    const reply = toHookProtocol(outcome);
    if (reply.exitCode !== 2 || notices.length === 0) return reply;
    return { ...reply, stderr: [reply.stderr, ...notices].join("\n") };
  },
};
