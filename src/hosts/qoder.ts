import { join } from "node:path";
import { CLASSIC_EVENT_NAMES } from "../schema/eventNames.js";
import { toHookProtocol } from "../output/hookProtocol.js";
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
  managedSettings: () => null,
  // The classic generation's default.
  commandTimeoutSeconds: 60,
  answer: toHookProtocol,
};
