import { EVENT_TRAITS, type EventName } from "../schema/events.js";

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
