import { join } from "node:path";
import { CLASSIC_EVENT_NAMES } from "../schema/eventNames.js";
import { toHookProtocol } from "../output/hookProtocol.js";
import { DEFAULT_TIMEOUT_SECONDS } from "../schema/settings.js";
import type { HostDialect } from "./hostDialect.js";

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
  callsQhooksFromOutsideLevels: false,
  // The seed's one default for every handler type and event.
  defaultTimeoutSeconds: () => DEFAULT_TIMEOUT_SECONDS,
  defaultsName: "the default",
  managedSettings: () => null,
  answer: toHookProtocol,
};
