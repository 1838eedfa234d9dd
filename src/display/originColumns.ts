import type { Origin } from "../schema/logRecord.js";
import { sessionShortener } from "./sessionPrefix.js";
import type { Column } from "./table.js";

/** The part of an origin a listing's row shows: who and where, and the host whose settings judged. */
export type ShownOrigin = Pick<Origin, "machine" | "user" | "writer" | "host">;

/**
 * The columns that tell a table's rows apart by where they came from: HOST (the agent whose settings judged), MACHINE
 * and USER, each only when the rows hold more than one value of it (a laptop's log, one agent on one machine, keeps
 * the table it always had); WRITER (the log, cut to a unique prefix) only when two logs share a machine and user
 * (two logs on one laptop, or two laptops with one host name), which MACHINE and USER cannot tell apart. A value a
 * row lacks (never judged, older than the origin columns) shows as `-` and counts as none.
 */
export function originColumns<R>(rows: readonly R[], origin: (row: R) => ShownOrigin, keep = 4): Column<R>[] {
  const values = (pick: (o: ShownOrigin) => string | null) => new Set(rows.map((r) => pick(origin(r))).filter((v) => v !== null));
  const several = (pick: (o: ShownOrigin) => string | null) => values(pick).size > 1;
  const columns: Column<R>[] = [];
  const cell = (pick: (o: ShownOrigin) => string | null) => (r: R) => pick(origin(r)) ?? "-";
  if (several((o) => o.host)) columns.push({ header: "HOST", cell: cell((o) => o.host), keep, min: 4 });
  if (several((o) => o.machine)) columns.push({ header: "MACHINE", cell: cell((o) => o.machine), max: 24, min: 6, keep });
  if (several((o) => o.user)) columns.push({ header: "USER", cell: cell((o) => o.user), max: 16, min: 4, keep });
  const who = values((o) => (o.writer === null ? null : JSON.stringify([o.machine, o.user])));
  if (values((o) => o.writer).size > who.size) {
    const short = sessionShortener(rows.map((r) => origin(r).writer));
    columns.push({ header: "WRITER", cell: (r) => short(origin(r).writer), min: 6, keep });
  }
  return columns;
}
