import { QhooksError } from "../errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A pause between two rounds of a continuous command: `500ms`, `10s`, `5m`, `1h`, or a number of seconds. */
export function parseInterval(flag: string, value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * UNITS[m[2] ?? "s"]! : NaN;
  if (!(ms >= 100 && ms <= 86_400_000))
    throw new QhooksError("usage", `${flag} ${JSON.stringify(value)}: expected a pause such as 500ms, 10s, 5m or 1h (from 100ms to 24h)`);
  return ms;
}

/** Resolves after `ms`, or at once when `stop` is aborted. */
export const pause = (ms: number, stop: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (stop.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    stop.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** An abort signal raised by the first SIGINT or SIGTERM: a continuous command finishes its round and stops. */
export function stopOnSignals(): AbortSignal {
  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
  return stop.signal;
}
