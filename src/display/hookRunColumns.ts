import type { z } from "zod";
import type { HookRunCountsSchema } from "../schema/logRecord.js";
import { countStyle } from "./colour.js";
import type { Column } from "./table.js";

type HookRunCounts = Pick<z.infer<typeof HookRunCountsSchema>, "runs" | "blocks" | "errors" | "invalidOutputs" | "timeouts">;

/** How much each count column matters when a narrow terminal must drop some (see Column.keep). */
export interface CountKeeps {
  readonly runs: number;
  readonly blocks: number;
  readonly errors: number;
  readonly badOutput: number;
  readonly timeouts: number;
}

/**
 * The per-hook counts of `qhooks stats` (and `stats --hooks`) and of `qhooks hooks --usage`, made in one place so
 * that both tables count the same things under the same headers: RUNS, BLOCKS (exit 2 or a blocking decision),
 * ERRORS (any other failing exit, or a hook that could not start), BAD OUTPUT (stdout qhooks could not read) and
 * TIMEOUTS, each a separate count of runs, as the log's statistics give them.
 */
export function hookRunCountColumns<R extends HookRunCounts>(keep: CountKeeps): Column<R>[] {
  return [
    { header: "RUNS", cell: (h) => String(h.runs), keep: keep.runs, align: "right" },
    { header: "BLOCKS", cell: (h) => String(h.blocks), keep: keep.blocks, align: "right" },
    { header: "ERRORS", cell: (h) => String(h.errors), style: (h) => countStyle(h.errors), keep: keep.errors, align: "right" },
    {
      header: "BAD OUTPUT",
      cell: (h) => String(h.invalidOutputs),
      style: (h) => countStyle(h.invalidOutputs),
      keep: keep.badOutput,
      align: "right",
    },
    { header: "TIMEOUTS", cell: (h) => String(h.timeouts), style: (h) => countStyle(h.timeouts), keep: keep.timeouts, align: "right" },
  ];
}
