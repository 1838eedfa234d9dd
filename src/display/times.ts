/**
 * Times in human output: the local zone (the `TZ` the process runs with), or UTC with `--utc`, and always saying
 * which, so that a time copied from a table means the same to `--since` (which reads a time without a zone in the
 * same zone). The log keeps UTC; JSON output prints it unchanged.
 */

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `+08:00`, `-03:30`, `+00:00`: the offset from UTC, east positive. */
export function offsetLabel(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

interface Shown {
  /** `2026-01-13 09:00:05` */
  readonly text: string;
  /** `UTC` or the local offset at that moment (`+08:00`; it changes with summer time). */
  readonly zone: string;
  /** ISO 8601 with the zone: `2026-01-13T09:00:05.123+08:00`, or `...Z` in UTC. */
  readonly iso: string;
}

/** A time of the log (ISO 8601, UTC) as shown in the local zone or in UTC; what cannot be read is shown as it is. */
export function showTime(stored: string, utc: boolean): Shown {
  const date = new Date(stored);
  if (Number.isNaN(date.getTime())) return { text: stored, zone: "", iso: stored };
  const offset = utc ? 0 : -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offset * 60_000);
  const day = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const zone = utc ? "UTC" : offsetLabel(offset);
  return { text: `${day} ${time}`, zone, iso: `${day}T${time}.${pad(local.getUTCMilliseconds(), 3)}${utc ? "Z" : zone}` };
}

/**
 * The cells of a time column and its zone for the header: `TIME (+08:00)` when every row has the same offset, else
 * (the rows span a change to or from summer time) each cell carries its own.
 */
export function timeCells(stored: readonly string[], utc: boolean): { zone: string | null; cells: string[] } {
  const shown = stored.map((s) => showTime(s, utc));
  const zones = new Set(shown.map((s) => s.zone));
  if (zones.size <= 1) return { zone: shown[0]?.zone || null, cells: shown.map((s) => s.text) };
  return { zone: null, cells: shown.map((s) => (s.zone ? `${s.text} ${s.zone}` : s.text)) };
}
