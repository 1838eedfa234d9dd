import type { EventName } from "../schema/events.js";
import type { HandlerType } from "../schema/settings.js";
import type { Outcome } from "../schema/outcome.js";
import type { HookProtocolReply } from "../output/hookProtocol.js";

import type { Dialect } from "../schema/dialect.js";
import type { HostEventNames } from "./hostEventNames.js";
import type { PayloadForm } from "../schema/payloadForm.js";

export { DIALECTS, type Dialect } from "../schema/dialect.js";
/** Without `--dialect` or $QHOOKS_DIALECT. */
export const DEFAULT_DIALECT: Dialect = "qoder";

/** Where a host keeps one level of its hook settings. */
export interface SettingsLevel {
  /** `system-defaults` and `system`: a host's machine-wide files below and above the others (Gemini CLI's). */
  readonly level: "system-defaults" | "user" | "project" | "local" | "system";
  readonly path: string;
  /** How messages name the file: `~/.claude/settings.json`, `.claude/settings.json`... */
  readonly display: string;
  /**
   * A level that is a folder of files (Copilot CLI's `.github/hooks/*.json`): every `*.json` in it is read, in name
   * order, as this level; `path` is then the folder's file that install writes to.
   */
  readonly folder?: { readonly path: string; readonly display: string };
  /** The file may hold comments and trailing commas (JSONC: Copilot CLI's `settings.json`). */
  readonly comments?: boolean;
  /**
   * The file is another host's, read by this one too (Copilot CLI reads Claude Code's `.claude/settings.json`): it
   * says nothing about which host a project uses.
   */
  readonly ownedBy?: Dialect;
}

/**
 * Where a host keeps the plugins a person installed, each in a folder two levels down (Copilot CLI's
 * `installed-plugins/<marketplace>/<plugin>/`), and how such a plugin names its manifest and hooks file.
 */
export interface InstalledPlugins {
  readonly dir: string;
  /** How messages name it: `~/.copilot/installed-plugins`. */
  readonly display: string;
  /** Where a plugin's manifest may be, relative to its folder: the first that exists is read. */
  readonly manifests: readonly string[];
  /** Where its hooks file may be when its manifest names none: the first that exists is read. */
  readonly hooksFiles: readonly string[];
}

/** The host's machine-wide (managed) settings, where `qhooks install --scope managed` puts its entries. */
export interface ManagedSettings {
  /** The managed folder (Claude Code: /etc/claude-code on Linux); the install's ownership record lives here too. */
  readonly dir: string;
  /** The drop-in file qhooks owns whole, read by the host with its other managed settings. */
  readonly file: string;
  /** Settings written with qhooks' entries so that the host runs no hooks but the managed ones (qhooks). */
  readonly onlyManagedHooks: Readonly<Record<string, unknown>>;
}

/**
 * One agent host, as qhooks needs to know it: the port every host implements (hosts/qoder.ts, hosts/claude.ts),
 * checked by one shared suite (test/hosts/hostDialect.suite.ts). A host is data and pure functions; reading its
 * files is the settings adapter's job.
 */
export interface HostDialect {
  readonly id: Dialect;
  /** The product, for messages: "Claude Code". */
  readonly name: string;
  /**
   * Its settings levels, lowest priority first: a later level's hooks are listed after, and its settings win. `env`
   * may move the machine-wide ones (the documented places when absent).
   */
  settingsLevels(homeDir: string, projectDir: string, env?: Readonly<Record<string, string | undefined>>): readonly SettingsLevel[];
  /** The folder of a project that holds this host's settings (`.claude`): the project's hook tests live there too. */
  readonly projectFolder: string;
  /**
   * The variables the host sets to the project's directory, the one to prefer first; none for a host that runs its
   * hooks in the project (Codex): the working directory is then the project.
   */
  readonly projectDirVariables: readonly string[];
  /** Whether the plugins the host has enabled (Claude Code's plugin layout) load with its settings. */
  readonly loadsEnabledPlugins: boolean;
  /** The folder of installed plugins whose hooks all load with its settings (Copilot CLI's); absent where none. */
  readonly installedPlugins?: (homeDir: string, env: Readonly<Record<string, string | undefined>>) => InstalledPlugins;
  /** The events the host fires: what a recorder installed in front of it listens to. */
  readonly events: readonly EventName[];
  /**
   * Its names for events, both ways: the keys of its settings' `hooks` sections and its payloads' `hook_event_name`
   * (Gemini CLI's `BeforeTool` is `PreToolUse`), and the events it has that qhooks has not.
   */
  readonly eventNames: HostEventNames;
  /**
   * Keys its files hold that qhooks reads nothing from but accepts without a warning: in the `hooks` section (Gemini
   * CLI's old `enabled`), in a matcher group (`sequential`), in a hook (`description`).
   */
  readonly hookSettingKeys: { readonly section: readonly string[]; readonly group: readonly string[]; readonly handler: readonly string[] };
  /**
   * The hook names a settings document switches off in the host's own words (Gemini CLI's `hooksConfig.disabled`);
   * absent for a host that has no such list.
   */
  readonly disabledHookNames?: (document: Readonly<Record<string, unknown>>) => readonly string[];
  /** Whether a settings document switches all hooks off (true), on (false), or says nothing (null). */
  disablesAllHooks(document: Readonly<Record<string, unknown>>): boolean | null;
  /** The unit of a hook's `timeout` in its files. */
  readonly timeoutUnit: "seconds" | "milliseconds";
  /**
   * A hook's stdout JSON, written for this host, in the shape qhooks reads (Claude Code's); absent where it is that
   * shape already. `payload` is the event's, for answers that change part of it.
   */
  readonly readHookOutput?: (event: EventName, output: unknown, payload: Readonly<Record<string, unknown>>) => unknown;
  /**
   * A payload in the host's words, in the shape qhooks checks and matches (Claude Code's): absent where it is that
   * shape already. Hooks still receive the host's own text.
   */
  readonly readPayload?: (fields: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /**
   * One entry of an event's list in the host's file, as a matcher group (absent where its entries are groups already):
   * Cursor writes a hook per entry. `hostEvent` is the file's key; `warn` names a part of the entry qhooks ignores.
   */
  readonly readHookEntry?: (hostEvent: string, entry: unknown, warn: (key: string, message: string) => void) => unknown;
  /**
   * The entry `qhooks install` writes for its one command hook on an event, in the host's shape (Copilot CLI's
   * `bash` and `timeoutSec`): absent where the host's entries are matcher groups (install writes `{ hooks: [...] }`).
   */
  readonly writeHookEntry?: (hook: { readonly command: string; readonly timeoutSeconds?: number }) => Record<string, unknown>;
  /**
   * The payload's shape the host gives a hook written under this event name of its files, when it is not the one
   * qhooks receives (Copilot CLI's PascalCase names get its VS Code-compatible payload); absent: the payload as sent.
   */
  readonly payloadFormOf?: (hostEvent: string) => PayloadForm | undefined;
  /** Top-level keys a settings file `qhooks install` creates starts with (Copilot CLI's `version: 1`). */
  readonly newFileKeys?: Readonly<Record<string, unknown>>;
  /** Problems with the file as a whole that leave its hooks loading (a `version` the host's format does not know). */
  readonly documentWarnings?: (document: Readonly<Record<string, unknown>>) => ReadonlyArray<{ readonly key: string; readonly message: string }>;
  /**
   * Whether `qhooks run --format hook` may read this host's own levels: true where the entries that call qhooks live
   * in files qhooks never reads (Claude Code's managed settings), false where they would be among the levels read
   * (qhooks would then run itself).
   */
  readonly callsQhooksFromOutsideLevels: boolean;
  /**
   * The timeout, in seconds, the host gives a hook of this type on this event when its settings name none: qhooks
   * gives the same, so that a hook that works under the host is not killed sooner under qhooks.
   */
  defaultTimeoutSeconds(type: HandlerType, event: EventName): number;
  /**
   * The most the host gives a hook on this event whatever its settings ask (Codex cuts SessionEnd's to 3 s), or null
   * for no such bound: install writes no more, and a longer timeout in its files is one warning and cut the same way.
   */
  readonly maxTimeoutSeconds?: (event: EventName) => number | null;
  /** What the user's settings are called when they name no timeout: "Claude Code's default". */
  readonly defaultsName: string;
  /**
   * Its managed settings on this platform (`env` may move the folder: tests, unusual installs); null when the host has
   * none (Qoder CN CLI reads only the user, project and local files).
   */
  managedSettings(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): ManagedSettings | null;
  /**
   * Whether the person sees notices (qhooks' lines about failed or skipped hooks) in the answer to this outcome: false
   * where the host discards the one channel qhooks has on this event. A notice not shown is not counted as said.
   */
  showsNotices(outcome: Outcome): boolean;
  /**
   * What the single hook the host calls answers for an outcome: exit code, stdout, stderr; with `notices` put where
   * the host shows them to the person (nowhere when `showsNotices` is false). The decision is the same with or
   * without them.
   */
  answer(outcome: Outcome, notices?: readonly string[]): HookProtocolReply;
  /**
   * Modes of the host in which it drops an `ask` its answer carries (the call goes on unasked), for a qhooks event and
   * the host event it is seen on; `reported` when only a user report says so, not the host's documentation.
   */
  readonly modesDroppingAsk?: ReadonlyArray<{
    readonly mode: string;
    readonly event: EventName;
    readonly hostEvent: string;
    readonly evidence: "documented" | "reported";
  }>;
}
