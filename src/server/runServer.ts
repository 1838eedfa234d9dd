import { join } from "node:path";
import { openEventLogWithWarnings } from "../engine/openEventLog.js";
import { QhooksError, messageOf } from "../errors.js";
import { killAllGroupsNow } from "../exec/processGroups.js";
import { nullEventLog, type EventLog } from "../store/eventLog.js";
import { besideLog } from "../store/logPath.js";
import { openStore } from "../store/openStore.js";
import { hookService } from "./hookService.js";
import { liveView } from "./liveView.js";
import { LOOPBACK, listenHttp, type HttpTransport, type RequestLimits } from "./httpTransport.js";
import { serverPaths } from "./paths.js";
import { probeServer } from "./probe.js";
import { isAlive, readState, withLock, writeState } from "./state.js";
import { readOrCreateToken, tokenReader } from "./token.js";

export interface ServeOptions {
  readonly homeDir: string;
  /** The server's environment: where QHOOKS_* settings are read, and what hooks start from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The log file or PostgreSQL URL. */
  readonly db: string;
  /** undefined: the port of the last server (installed hooks call it), else any free one. */
  readonly port: number | undefined;
  readonly version: string;
  readonly limits?: RequestLimits;
  /** One line for the server's own output (stderr). */
  readonly say: (line: string) => void;
  /** `--idle-exit`: `idle` resolves once no event has arrived (and none is being judged) for this long. */
  readonly idleExitMs?: number;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Resolves when the server has been idle for `idleExitMs` (never without it): the caller then closes it. */
  readonly idle: Promise<void>;
  /**
   * Stops accepting, answers the events under way (each logged), stops async hooks, closes the log and marks the
   * state file stopped. Hooks still running after `graceMs` are killed, and their events answered as such.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Variables of the session whose hook started the server: they would be wrong for every other session's hooks (a
 * hook of session B must not append to session A's $CLAUDE_ENV_FILE), and the call chain and replay/test markers
 * are for the process that set them.
 */
const SESSION_VARIABLES = [
  "CLAUDE_ENV_FILE",
  "CLAUDE_CODE_SESSION_ID",
  "CLAUDE_PROJECT_DIR",
  "QODERCN_PROJECT_DIR",
  "QHOOKS_CALL_CHAIN",
  "QHOOKS_REPLAY",
  "QHOOKS_TEST",
  "QHOOKS_EVENT",
  "QHOOKS_SESSION_ID",
];

export const hooksEnvironment = (env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !SESSION_VARIABLES.includes(name)));

/** `qhooks serve` in this process: one per user, claimed under the lock; refuses to start beside a live one. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const paths = serverPaths(options.homeDir);
  const token = readOrCreateToken(paths.token);
  const env = hooksEnvironment(options.env);
  let log: EventLog = nullEventLog;
  let logged = false;
  try {
    const opened = openEventLogWithWarnings({ db: options.db, env, homeDir: options.homeDir });
    log = opened.log;
    logged = true;
    for (const w of opened.warnings) options.say(`qhooks: warning: ${w}`);
  } catch (e) {
    options.say(`qhooks: warning: ${messageOf(e)}; events are judged but not logged`);
  }
  const service = hookService({
    homeDir: options.homeDir,
    env,
    log,
    onceDir: logged ? join(besideLog(options.db, options.homeDir), "once") : null,
    warn: (line) => options.say(`qhooks: warning: ${line}`),
    forwarding: { version: options.version, db: options.db, logged, cliScript: process.argv[1] ?? "" },
  });
  // One reader for the transport and the live view: after `serve --rotate-token`, both hear only the new secret.
  const currentToken = tokenReader(paths.token, token, (line) => options.say(`qhooks serve: warning: ${line}`));
  const live = liveView({ token: currentToken, openLog: () => openStore(options.db), logPath: options.db, log: options.say });
  const startedAt = new Date().toISOString();
  let lastEvent = Date.now();
  let transport: HttpTransport;
  try {
    transport = await withLock(paths.lock, async () => {
      const state = readState(paths.state);
      if (state?.pid && state.pid !== process.pid && isAlive(state.pid) && (await probeServer(state.port, token, state.pid)) !== null) {
        throw new QhooksError("usage", `a server already runs at http://${LOOPBACK}:${state.port} (pid ${state.pid}); stop it first: qhooks serve --stop`);
      }
      const listening = await listenHttp({
        service,
        token: currentToken,
        tokenFile: paths.token,
        onEvent: () => (lastEvent = Date.now()),
        port: options.port ?? state?.port ?? 0,
        version: options.version,
        startedAt,
        limits: options.limits,
        log: options.say,
        live,
      });
      writeState(paths.state, {
        port: listening.port,
        pid: process.pid,
        version: options.version,
        startedAt,
        uid: typeof process.getuid === "function" ? process.getuid() : null,
      });
      return listening;
    });
  } catch (e) {
    await service.close();
    await log.close();
    throw e;
  }
  lastEvent = Date.now();
  let idleTimer: NodeJS.Timeout | undefined;
  const idleMs = options.idleExitMs;
  const idle = new Promise<void>((resolve) => {
    if (idleMs === undefined) return;
    const check = (): void => {
      const quiet = Date.now() - lastEvent;
      if (service.inFlight === 0 && quiet >= idleMs) return resolve();
      idleTimer = setTimeout(check, Math.max(50, idleMs - quiet));
    };
    idleTimer = setTimeout(check, idleMs);
  });
  return {
    url: `http://${LOOPBACK}:${transport.port}`,
    port: transport.port,
    idle,
    async close(graceMs) {
      clearTimeout(idleTimer);
      const grace = setTimeout(() => {
        options.say(`qhooks serve: ${service.inFlight} event(s) still running after ${graceMs} ms: their hooks are stopped`);
        killAllGroupsNow();
      }, graceMs);
      try {
        await live.close();
        await transport.close();
      } finally {
        clearTimeout(grace);
      }
      await service.close();
      // What the last appends left running (a head being signed): its failure has no next append to be said with.
      for (const w of (await log.settle?.()) ?? []) options.say(`qhooks: warning: event log: ${w.message}`);
      await log.close();
      const state = readState(paths.state);
      if (state?.pid === process.pid) writeState(paths.state, { ...state, pid: null });
    },
  };
}
