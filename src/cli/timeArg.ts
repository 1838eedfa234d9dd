import { QhooksError } from "../errors.js";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since` / `--until`: an ISO 8601 time, or a span back from now such as `30m`, `2h`, `7d`. */
export function parseTimeArg(flag: string, value: string, now: Date = new Date()): Date {
  const span = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(value.trim());
  if (span) return new Date(now.getTime() - Number(span[1]) * UNITS[span[2]!]!);
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) {
    throw new QhooksError("usage", `${flag} ${JSON.stringify(value)}: expected an ISO time (2026-12-01T09:00:00Z) or a span such as 30m, 2h, 7d`);
  }
  return date;
}
