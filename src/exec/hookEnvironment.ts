import { sha256Hex } from "../json/canonicalHash.js";
import type { EventName } from "../schema/events.js";

/**
 * The chain of hooks a `qhooks run` was started from, outermost first, as `Event:commandHash` entries. Each hook
 * qhooks starts inherits the chain plus itself, so a nested `qhooks run` can refuse a cycle.
 */
export const CALL_CHAIN_VAR = "QHOOKS_CALL_CHAIN";

export const chainEntry = (event: EventName, command: string): string => `${event}:${sha256Hex(command).slice(0, 16)}`;

export function parseCallChain(value: string | undefined): string[] {
  return value ? value.split(" ").filter((e) => e !== "") : [];
}

export interface HookEnvironmentOptions {
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly projectDir: string;
  readonly homeDir: string;
  readonly event: EventName;
  readonly sessionId: string;
  readonly replay: boolean;
  readonly callChain: readonly string[];
}

/** Longest value qhooks puts in a hook's environment from a payload, in bytes (Linux refuses 128 KiB in one). */
export const MAX_ENV_VALUE_BYTES = 4096;

const fitsInEnvironment = (value: string): boolean => !value.includes("\0") && Buffer.byteLength(value) <= MAX_ENV_VALUE_BYTES;

/** The environment of every hook of one event; `withHook` adds the hook's own place in the chain. */
export function hookEnvironment(options: HookEnvironmentOptions): (command: string) => Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.baseEnv)) if (v !== undefined) env[k] = v;
  env.HOME = options.homeDir;
  env.QODERCN_PROJECT_DIR = options.projectDir;
  env.CLAUDE_PROJECT_DIR = options.projectDir;
  env.QHOOKS_EVENT = options.event;
  // The session id comes from the agent. One that no environment can hold (a NUL byte, or so long that exec fails
  // with E2BIG) would keep every hook from starting, which would switch every guard off: such an id is left out of
  // the environment instead (hooks still read it from the payload on stdin).
  if (fitsInEnvironment(options.sessionId)) env.QHOOKS_SESSION_ID = options.sessionId;
  else delete env.QHOOKS_SESSION_ID;
  if (options.replay) env.QHOOKS_REPLAY = "1";
  else delete env.QHOOKS_REPLAY;
  // bash started as `bash -c` with a socket on stdin (Node's pipes are sockets) and SHLVL below 1 believes it was
  // started by sshd and sources ~/.bashrc: about 100 ms per hook, plus whatever the rc file does. A shell level of
  // at least 1 tells it otherwise; scripts with a #!/bin/bash line are not affected either way. bash reads only a
  // whole decimal number (so `1.5` or `0x1` count as 0) and resets a level that reaches 1000 to 1.
  const level = /^\s*\d+\s*$/.test(env.SHLVL ?? "") ? Number(env.SHLVL) : 0;
  if (level < 1 || level > 998) env.SHLVL = "1";
  return (command) => ({ ...env, [CALL_CHAIN_VAR]: [...options.callChain, chainEntry(options.event, command)].join(" ") });
}
