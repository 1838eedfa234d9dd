import { claudeHost } from "./claude.js";
import type { Dialect, HostDialect } from "./hostDialect.js";
import { qoderHost } from "./qoder.js";
import { geminiHost } from "./gemini.js";
import { codexHost } from "./codex.js";
import { cursorHost } from "./cursor.js";
import { copilotHost } from "./copilot.js";

/** Every host qhooks speaks for, by dialect id: adding a host is one file and one line here. */
export const HOSTS: Readonly<Record<Dialect, HostDialect>> = {
  qoder: qoderHost,
  claude: claudeHost,
  gemini: geminiHost,
  codex: codexHost,
  cursor: cursorHost,
  copilot: copilotHost,
};

export const hostDialect = (id: Dialect): HostDialect => HOSTS[id];

/**
 * Every host as `install` and `uninstall` name it, `claude (Claude Code), ...`: one text for their help and their
 * errors, so that neither forgets a host when one is added.
 */
export const hostChoicesText = (): string => {
  const choices = Object.values(HOSTS).map((h) => `${h.id} (${h.name})`);
  return `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;
};
