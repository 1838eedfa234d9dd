/**
 * One hook, whatever declares it (a settings file, a plugin, `bus.use()`) and whatever runs it: its kind is data,
 * so that choosing a runner, trust, `once` and the log read one field instead of guessing from optional ones.
 */
import type { EventName, Payload } from "../schema/events.js";
import type { HandlerVerdict } from "../schema/hookOutput.js";
import type { HandlerSetting, HandlerType } from "../schema/settings.js";
import type { PinnedSite } from "./runSite.js";
import type { Matcher } from "./compileMatcher.js";
import type { PayloadForm } from "../schema/payloadForm.js";

/** Where a hook's timeout comes from (DeclaredHook.timeoutSetting). */
export type TimeoutSetting = "settings" | "host-default" | "host-cap";

/** What runs a hook: a settings handler's `type`, or a function registered in the embedding process. */
export type HookKind = HandlerType | "in-process";

/** The plugin a hook comes from. */
export interface HookPlugin {
  /** The manifest's `name`, else the folder's name. */
  readonly name: string;
  /** The plugin folder: CLAUDE_PLUGIN_ROOT. */
  readonly root: string;
  /** Its persistent data folder (`~/.claude/plugins/data/<id>`): CLAUDE_PLUGIN_DATA. */
  readonly dataDir: string;
}

/**
 * The function a `bus.use()` handler is: it gets the payload of its event, typed by that event's schema
 * (`Payload<"PreToolUse">` has `tool_name` and `tool_input`), and answers with a HandlerVerdict, `undefined` for no
 * opinion, or a promise of either. The types hold the compiler to the protocol (`{ decision: "nope" }` does not
 * compile); what the handler returns is still read at run time, and a value that does not parse is its
 * `invalid-output`.
 */
export type InProcessHook<E extends EventName = EventName> = (
  payload: Readonly<Payload<E>>,
) => HandlerVerdict | undefined | Promise<HandlerVerdict | undefined>;

interface HookBase {
  readonly event: EventName;
  readonly name: string;
  readonly level: string;
  /** The matcher as written; null when the group has none. */
  readonly matcherSource: string | null;
  readonly matcher: Matcher;
  readonly timeoutMs: number;
  /** `"mode": "shadow"`: it runs, and its verdict is logged, but never counts. */
  readonly shadow: boolean;
}

/** A hook a settings file (or a plugin's hooks file) declares. */
export interface DeclaredHook extends HookBase {
  readonly kind: HandlerType;
  /** The handler as validated, with every field of its type (a command's with the plugin's paths filled in). */
  readonly handler: HandlerSetting;
  /**
   * What runs: the command as written, with a plugin's `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` filled in.
   * For the other handler types, one line that says what the handler does (`POST <url>`, `prompt: <text>`...).
   */
  readonly command: string;
  /**
   * The name under the old default (the command as written, after a plugin's name), or the hook's own `name`: a name
   * a user wrote before short default names still selects the hook.
   */
  readonly longName: string;
  /** The command as the file writes it (the same line for the other handler types). */
  readonly written: string;
  /** The settings file, as shown to the user. */
  readonly file: string;
  /** Where in it, e.g. `hooks.PreToolUse[0].hooks[1]`. */
  readonly path: string;
  /** The plugin the hook comes from; null for a settings file's own hooks. */
  readonly plugin: HookPlugin | null;
  /**
   * Where `timeoutMs` comes from: the hook's own `timeout`, its host's default for its type and event, or the most
   * its host gives a hook on that event (`host-cap`: Codex's 3 s on SessionEnd), which cut a longer one.
   */
  readonly timeoutSetting: TimeoutSetting;
  /** The payload's shape for this hook when its host gives it another than the one qhooks received (PayloadForm). */
  readonly payloadForm?: PayloadForm;
}

/** A handler registered with `bus.use()`. */
export interface InProcessHandler extends HookBase {
  readonly kind: "in-process";
  readonly level: "in-process";
  /** In-process handlers have no command; results and the log say null. */
  readonly command: null;
  readonly handle: InProcessHook;
}

export type HookDescriptor = DeclaredHook | InProcessHandler;

/**
 * A hook chosen to run for one event, with what selection and trust learned about it. Every field is required, so
 * a step that builds one and forgets a field does not compile.
 */
export type SelectedHook = SelectedDeclaredHook | InProcessHandler;

export interface SelectedDeclaredHook extends DeclaredHook {
  /**
   * Every settings entry that declares this command and matched the event, the one whose name, level, matcher and
   * timeout are reported first: trust asks where a command comes from, and a copy in the user's own file is
   * enough to run it.
   */
  readonly declared: readonly DeclaredHook[];
  /** Variables of this hook's own: a plugin hook's CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA (empty otherwise). */
  readonly env: Readonly<Record<string, string>>;
  /** Set by trust: the scripts the command runs directly and the hashes trusted; run from those bytes only. */
  readonly verified: readonly PinnedSite[] | null;
}

/** A declared hook as selection hands it on: its own variables, no trust verdict yet. */
export function selectedHook(hook: DeclaredHook, declared: readonly DeclaredHook[]): SelectedDeclaredHook {
  const env = hook.plugin ? { CLAUDE_PLUGIN_ROOT: hook.plugin.root, CLAUDE_PLUGIN_DATA: hook.plugin.dataDir } : NO_ENV;
  return { ...hook, declared, env, verified: null };
}

const NO_ENV: Readonly<Record<string, string>> = Object.freeze({});

/** The handler a settings hook declares; null for an in-process one. */
export const handlerOf = (hook: HookDescriptor): HandlerSetting | null => (hook.kind === "in-process" ? null : hook.handler);
