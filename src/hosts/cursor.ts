import { join } from "node:path";
import type { EventName } from "../schema/events.js";
import type { HostDialect } from "./hostDialect.js";
import { CURSOR_EVENT_NAMES } from "./cursorNames.js";
import { CURSOR_HOOKS_VERSION, cursorAnswer, cursorDocumentWarnings, cursorHookEntry, cursorHookOutput } from "./cursorProtocol.js";
import { cursorPayload } from "./cursorPayload.js";

/** Where Cursor reads its enterprise hooks.json, by platform (Windows is out of scope). */
const ENTERPRISE_FILES: Partial<Record<NodeJS.Platform, string>> = {
  linux: "/etc/cursor/hooks.json",
  darwin: "/Library/Application Support/Cursor/hooks.json",
};
const enterpriseFile = (env: Readonly<Record<string, string | undefined>>): string =>
  env.QHOOKS_CURSOR_ENTERPRISE_FILE?.trim() || (ENTERPRISE_FILES[process.platform] ?? ENTERPRISE_FILES.linux!);

/** A hook's timeout when its entry names none: Cursor documents none that qhooks could confirm (docs/hosts.md). */
const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * Cursor: the enterprise `/etc/cursor/hooks.json`, `~/.cursor/hooks.json`, then the project's `.cursor/hooks.json` (`version: 1`, one hook per entry, its own
 * event names), its payload fields (`conversation_id`, `command`...) and its answer (`permission`, `continue`,
 * `followup_message` on stdout). It has no managed settings qhooks writes to.
 */
export const cursorHost: HostDialect = {
  id: "cursor",
  name: "Cursor",
  settingsLevels: (homeDir, projectDir, env = {}) => [
    // The enterprise file administrators deploy, machine-wide, listed first; qhooks' own variable moves it (tests).
    { level: "system-defaults", path: enterpriseFile(env), display: enterpriseFile(env) },
    { level: "user", path: join(homeDir, ".cursor", "hooks.json"), display: "~/.cursor/hooks.json" },
    { level: "project", path: join(projectDir, ".cursor", "hooks.json"), display: ".cursor/hooks.json" },
  ],
  projectFolder: ".cursor",
  projectDirVariables: ["CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
  loadsEnabledPlugins: false,
  events: [...CURSOR_EVENT_NAMES.toHost.keys()] as EventName[],
  eventNames: CURSOR_EVENT_NAMES,
  hookSettingKeys: { section: [], group: [], handler: [] },
  // hooks.json has no switch for all hooks.
  disablesAllHooks: () => null,
  timeoutUnit: "seconds",
  // Its own entries are skipped where qhooks reads them (core/selfCall.ts): the levels may be read.
  callsQhooksFromOutsideLevels: true,
  defaultTimeoutSeconds: () => DEFAULT_TIMEOUT_SECONDS,
  defaultsName: "qhooks' default for Cursor",
  managedSettings: () => null,
  // Where Cursor shows a hook's other output to the person is not documented: notices are not counted as said.
  showsNotices: () => false,
  answer: (outcome) => cursorAnswer(outcome),
  readHookOutput: (event, output) => cursorHookOutput(event, output),
  readPayload: cursorPayload,
  readHookEntry: cursorHookEntry,
  documentWarnings: cursorDocumentWarnings,
  // install writes one hook per entry, in a file that starts with the one version Cursor documents.
  newFileKeys: { version: CURSOR_HOOKS_VERSION },
  writeHookEntry: ({ command, timeoutSeconds }) => ({ command, ...(timeoutSeconds !== undefined && { timeout: timeoutSeconds }) }),
  // A user report (Cursor 3.21.16): a beforeShellExecution `ask` prompts in Allowlist and Run Everything but the
  // command runs unasked in Auto-review; deny held in all three. Not in Cursor's docs, so marked reported (docs/hosts.md).
  modesDroppingAsk: [{ mode: "Auto-review", event: "PreToolUse", hostEvent: "beforeShellExecution", evidence: "reported" }],
};
