import { QhooksError } from "../../errors.js";
import type { LogFilter } from "../eventLog.js";
import { EVENT_JOIN, eventWhere, Params, textOf } from "./filterSql.js";
import type { Query } from "./query.js";

/** Rows per page when listing or reading: a page is read whole. */
const PAGE = 500;

/** Which events, in which order, how many, after which seq. */
export interface EventPages {
  readonly filter: LogFilter;
  readonly order: "ASC" | "DESC";
  readonly limit: number;
  readonly from: number | null;
}

/** Matching events page by page (keyset on gid), each row's text decoded; `shown` names the log in errors. */
export async function* pageEvents<T>(
  query: Query,
  shown: string,
  { filter, order, limit, from }: EventPages,
  map: (row: Record<string, unknown>) => T,
): AsyncGenerator<T> {
  let after: number | null = from;
  let given = 0;
  for (;;) {
    const p = new Params();
    const where = eventWhere(filter, p);
    const keyset = after === null ? "" : ` AND v.gid ${order === "DESC" ? "<" : ">"} ${p.add(after)}`;
    const take = Math.min(PAGE, limit - given);
    if (take <= 0) return;
    const rows = await query<Record<string, unknown>>(
      `SELECT v.gid AS seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref_gid AS ref, e.run_id, e.config_hash,
            e.machine, e.os_user, e.judged_by, e.writer_id, e.seq AS origin_seq,
              v.decision AS e_decision, e.reason AS e_reason, coalesce(o.reason, e.reason) AS r_reason, v.blocked, e.body AS payload,
              CASE WHEN v.outcome_gid = v.gid THEN e.outcome ELSE o.body END AS outcome,
              (SELECT array_agg(h.body ORDER BY h.gid) FROM qhooks_journal h WHERE h.kind = 'hook' AND h.ref_gid = v.gid AND h.format >= 4) AS async_bodies
              ${order === "ASC" ? ", (SELECT array_agg(h.name ORDER BY h.idx) FROM qhooks_hooks h WHERE h.event_gid = v.gid) AS hooks" : ""}
       FROM ${EVENT_JOIN} WHERE ${where}${keyset} ORDER BY v.gid ${order} LIMIT ${take}`,
      p.values,
    );
    for (const r of rows) {
      for (const column of [
        "session_id",
        "match_value",
        "project_dir",
        "run_id",
        "config_hash",
        "machine",
        "os_user",
        "e_reason",
        "r_reason",
        "payload",
        "outcome",
      ])
        r[column] = textOf(r[column] as Buffer | null);
      // Each body is one async hook's result as JSON: the list SQLite's query gives as one JSON array.
      const bodies = r.async_bodies as Buffer[] | null;
      r.async_hooks = bodies === null ? null : `[${bodies.map((b) => b.toString("utf8")).join(",")}]`;
      given++;
      try {
        yield map(r);
      } catch (e) {
        if (e instanceof SyntaxError)
          throw new QhooksError("log", `cannot read the event log ${shown}: record ${String(r.seq)} is damaged; qhooks verify names it`, { cause: e });
        throw e;
      }
    }
    if (rows.length < take) return;
    after = rows[rows.length - 1]!.seq as number;
  }
}

export async function countEvents(query: Query, filter: LogFilter): Promise<number> {
  const p = new Params();
  const where = eventWhere(filter, p);
  const [row] = await query<{ n: number }>(`SELECT count(*) AS n FROM ${EVENT_JOIN} WHERE ${where}`, p.values);
  return row!.n;
}
