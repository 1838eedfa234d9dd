import { EVENT_TRAITS, type EventName } from "../schema/events.js";
import { compareVersions } from "../text/semver.js";

/** The variable Claude Code takes the server's secret from, for the `Authorization` header of an http entry. */
export const TOKEN_VARIABLE = "QHOOKS_SERVER_TOKEN";

/** Where the user's running server listens, as `install --server` writes it into the entries. */
export interface ServerTarget {
  /** `http://127.0.0.1:<port>`, from the server's state, verified by a challenge before install writes it. */
  readonly url: string;
  /** The 0600 file holding the secret (the user exports it as TOKEN_VARIABLE). */
  readonly tokenFile: string;
  /** Whether TOKEN_VARIABLE in install's own environment holds the secret: install tells the user when not. */
  readonly tokenExported: boolean;
  /** What `claude --version` said: a too old one is refused before this is made; unknown gets a line in the report. */
  readonly hostVersion: HostVersionCheck;
}

/**
 * Events that stay command entries (`qhooks run`) under `--server`: SessionStart and Setup cannot be http hooks in
 * Claude Code, and SessionStart must start the server first; the others block by exit 2 only, which an HTTP answer
 * has no form for (a non-2xx is a failed hook, a block only under onFailure).
 */
export const COMMAND_ONLY_EVENTS: ReadonlySet<EventName> = new Set([
  "SessionStart",
  "Setup",
  "TaskCompleted",
  "TeammateIdle",
  "Elicitation",
  "ElicitationResult",
  "WorktreeCreate",
]);

/** Blockable events that never fail closed: a Stop blocked because the server is down would keep the agent looping. */
const NEVER_FAIL_CLOSED: ReadonlySet<EventName> = new Set(["Stop", "SubagentStop"]);

/**
 * The fail policy of an http entry when the server is down or cannot judge: a guard event (one a hook can block)
 * blocks, so a dead server is loud and never silently permissive; Stop, SubagentStop and the events that cannot be
 * blocked go on (a non-blocking hook error).
 */
export const failsClosed = (event: EventName): boolean => EVENT_TRAITS[event].blockDecision !== null && !NEVER_FAIL_CLOSED.has(event);

/** The http handler of one event: the server's route for the dialect, the secret interpolated from TOKEN_VARIABLE. */
export function httpHandler(server: ServerTarget, dialect: string, event: EventName, timeout: number): Record<string, unknown> {
  return {
    type: "http",
    url: `${server.url}/hook/${dialect}`,
    headers: { Authorization: `Bearer \${${TOKEN_VARIABLE}}` },
    allowedEnvVars: [TOKEN_VARIABLE],
    timeout,
    ...(failsClosed(event) ? { onFailure: "block" } : {}),
  };
}

/**
 * The oldest Claude Code that `install --server` writes http entries for. Claude Code's changelog dates http hooks
 * (`"type": "http"`) to 2.1.63; the release that added `onFailure` to them could not be established, so this is the
 * lower bound that is known, raised when a later one is (docs/decisions.md).
 */
export const MIN_CLAUDE_VERSION = "2.1.63";

/** What `claude --version` says about the host install writes for: recent enough, too old, or not known. */
export type HostVersionCheck =
  | { readonly kind: "ok"; readonly version: string }
  | { readonly kind: "too-old"; readonly version: string }
  | { readonly kind: "unknown"; readonly why: string };

/** Reads `claude --version`'s output ("2.1.70 (Claude Code)"); null: no `claude` could be run. */
export function checkHostVersion(output: string | null, minimum: string = MIN_CLAUDE_VERSION): HostVersionCheck {
  if (output === null) return { kind: "unknown", why: "no claude command on PATH" };
  const version = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(output)?.[1];
  if (version === undefined) return { kind: "unknown", why: `claude --version said ${JSON.stringify(output.trim().slice(0, 80))}` };
  return compareVersions(version, minimum) === -1 ? { kind: "too-old", version } : { kind: "ok", version };
}
