import { DEFAULT_MAX_EVENT_OUTPUT_BYTES, DEFAULT_MAX_OUTPUT_BYTES } from "../exec/cappedOutput.js";
import { DEFAULT_STOP_BLOCK_CAP } from "../operators/guardStopLoop.js";

/** Limits that users tune through the environment (contract 8), read once per engine. */
export interface Limits {
  readonly maxOutputBytes: number;
  readonly maxEventOutputBytes: number;
  readonly stopBlockCap: number;
  /** What was wrong with the environment's values (the defaults then apply). */
  readonly warnings: readonly string[];
}

export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): Limits {
  const warnings: string[] = [];
  const read = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") return fallback;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min) return value;
    warnings.push(`${name}=${raw} is not a whole number >= ${min}; using ${fallback}`);
    return fallback;
  };
  return {
    maxOutputBytes: read("QHOOKS_MAX_OUTPUT", DEFAULT_MAX_OUTPUT_BYTES, 0),
    maxEventOutputBytes: read("QHOOKS_MAX_EVENT_OUTPUT", DEFAULT_MAX_EVENT_OUTPUT_BYTES, 0),
    stopBlockCap: read("QHOOKS_STOP_BLOCK_CAP", DEFAULT_STOP_BLOCK_CAP, 1),
    warnings,
  };
}
