import { QhooksError } from "../errors.js";

/**
 * `--since` / `--until`. Written by hand rather than with a natural-language date library: those read anything
 * (`13/01/2026` as a guess between two calendars, a date out of a sentence), where a filter that is off by a day
 * or a month is worse than a clear refusal. The forms:
 *   - a span back from now: `30m`, `2h`, `7d`, `2w`, `90s`, `1.5h`, and spelled out, `2 hours ago`, `3 days`;
 *   - `now`, `today` (midnight), `yesterday` (midnight the day before);
 *   - an ISO 8601 date or time: `2026-01-13`, `2026-01-13 09:00`, `2026-01-13T09:00:05.250`, with a zone
 *     (`Z`, `+08:00`, `UTC`) or without, read in the local zone (in UTC with `--utc`), as tables show times.
 */
export function parseTimeArg(flag: string, value: string, options: { utc?: boolean; now?: Date } = {}): Date {
  const now = options.now ?? new Date();
  const utc = options.utc ?? false;
  const text = value.trim().toLowerCase();
  const fail = (why: string): never => {
    throw new QhooksError("usage", `${flag} ${JSON.stringify(value)}: ${why}`);
  };

  let date: Date | null = null;
  const span = SPAN.exec(text);
  if (span) {
    const unit = UNITS.find(([names]) => names.includes(span[2]!))![1];
    date = new Date(now.getTime() - Number(span[1]) * unit);
  } else if (text === "now") {
    date = now;
  } else if (text === "today" || text === "yesterday") {
    date = midnight(now, utc, text === "today" ? 0 : -1);
  } else {
    const iso = ISO.exec(value.trim());
    if (iso === null) return fail(EXPECTED);
    date = fromIso(iso, utc) ?? fail(`no such date or time; ${EXPECTED}`);
  }
  if (!(date.getTime() >= EARLIEST && date.getTime() <= LATEST)) fail("outside the years 0000 to 9999");
  return date;
}

const EXPECTED =
  'expected a span such as 30m, 2h, 7d or "2 hours ago", today, yesterday, or an ISO date or time such as 2026-01-13 or ' +
  "2026-01-13T09:00 (local time; add Z or +08:00 for another zone)";

const SECOND = 1_000;
const UNITS: [readonly string[], number][] = [
  [["s", "sec", "secs", "second", "seconds"], SECOND],
  [["m", "min", "mins", "minute", "minutes"], 60 * SECOND],
  [["h", "hr", "hrs", "hour", "hours"], 3_600 * SECOND],
  [["d", "day", "days"], 86_400 * SECOND],
  [["w", "week", "weeks"], 604_800 * SECOND],
];
const SPAN = new RegExp(`^(\\d{1,15}(?:\\.\\d{1,6})?)\\s*(${UNITS.flatMap(([n]) => n).join("|")})(?:\\s+ago)?$`);

// Date and time, each part checked below; the zone may follow a space, as `2026-01-13 09:00:05 +08:00` reads.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|UTC|utc|[+-]\d{2}(?::?\d{2})?)?$/;

/** The times whose ISO 8601 text has a four-digit year, so that they compare as the log's times do. */
const EARLIEST = Date.parse("0000-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

function fromIso(m: RegExpExecArray, utc: boolean): Date | null {
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((p) =>
    p === undefined ? undefined : Number(p),
  ) as number[];
  const ms = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!) || hour > 23 || minute > 59 || second > 59) return null;
  const zone = m[8];
  let offsetMinutes: number | null = null;
  if (zone !== undefined) {
    if (/^(z|utc)$/i.test(zone)) offsetMinutes = 0;
    else {
      const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
      const h = Number(z[2]);
      const min = Number(z[3] ?? 0);
      if (h > 23 || min > 59) return null;
      offsetMinutes = (z[1] === "-" ? -1 : 1) * (h * 60 + min);
    }
  } else if (utc) offsetMinutes = 0;
  if (offsetMinutes !== null) {
    const t = new Date(0);
    t.setUTCFullYear(year!, month! - 1, day!);
    t.setUTCHours(hour, minute, second, ms);
    return new Date(t.getTime() - offsetMinutes * 60_000);
  }
  // Local time. In the hour skipped when clocks go forward, the Date is the next valid moment.
  const t = new Date(0);
  t.setFullYear(year!, month! - 1, day!);
  t.setHours(hour, minute, second, ms);
  return t;
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

function midnight(now: Date, utc: boolean, dayOffset: number): Date {
  const t = new Date(now.getTime());
  if (utc) {
    t.setUTCDate(t.getUTCDate() + dayOffset);
    t.setUTCHours(0, 0, 0, 0);
  } else {
    t.setDate(t.getDate() + dayOffset);
    t.setHours(0, 0, 0, 0);
  }
  return t;
}
