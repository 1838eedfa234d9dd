import { DEFAULT_MAX_EVENT_OUTPUT_BYTES, DEFAULT_MAX_OUTPUT_BYTES } from "../exec/cappedOutput.js";
import { DEFAULT_STOP_BLOCK_CAP } from "./steps/guardStopLoop.js";

/** Limits that users tune through the environment, read once per engine. */
export interface Limits {
  readonly maxOutputBytes: number;
  readonly maxEventOutputBytes: number;
  /** QHOOKS_STOP_BLOCK_CAP; null when unset, so that the settings (qhooks.stopBlockCap), then the default, decide. */
  readonly stopBlockCap: number | null;
  /** What was wrong with the environment's values (the defaults then apply). */
  readonly warnings: readonly string[];
}

export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): Limits {
  const warnings: string[] = [];
  const read = <T extends number | null>(name: string, fallback: T, min: number, instead: string): number | T => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") return fallback;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min) return value;
    warnings.push(`${name}=${raw} is not a whole number >= ${min}; ${instead}`);
    return fallback;
  };
  return {
    maxOutputBytes: read("QHOOKS_MAX_OUTPUT", DEFAULT_MAX_OUTPUT_BYTES, 0, `using ${DEFAULT_MAX_OUTPUT_BYTES}`),
    maxEventOutputBytes: read("QHOOKS_MAX_EVENT_OUTPUT", DEFAULT_MAX_EVENT_OUTPUT_BYTES, 0, `using ${DEFAULT_MAX_EVENT_OUTPUT_BYTES}`),
    // 0 turns the Stop-loop guard off, as CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0 does Claude Code's.
    stopBlockCap: read("QHOOKS_STOP_BLOCK_CAP", null, 0, `using the settings' qhooks.stopBlockCap, else ${DEFAULT_STOP_BLOCK_CAP}`),
    warnings,
  };
}
