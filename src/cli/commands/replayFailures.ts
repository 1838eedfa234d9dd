import type { ReplayResult } from "../../schema/replay.js";

/** Failed hooks listed under a replay's summary; the others are counted (the log has them all). */
const FAILURES_SHOWN = 20;

/** The hooks that failed in a replay, the first FAILURES_SHOWN kept, all counted. */
export class FailureList {
  readonly kept: { readonly seq: number; readonly name: string; readonly outcome: string; readonly error: string }[] = [];
  total = 0;

  add(r: ReplayResult): void {
    for (const f of r.hookFailures ?? []) {
      this.total++;
      if (this.kept.length < FAILURES_SHOWN) this.kept.push({ seq: r.seq, ...f });
    }
  }
}

/** `Hooks that failed:` and one line each (event seq, hook, first line of why); "" when none did. */
export function failuresText(list: FailureList, shown: (text: string) => string, runId: string): string {
  if (list.total === 0) return "";
  const lines = list.kept.map((f) => `  #${f.seq} ${shown(f.name)}: ${f.outcome === "timeout" ? "" : `${f.outcome}: `}${shown(f.error)}`);
  const more = list.total > list.kept.length ? [`  and ${list.total - list.kept.length} more: qhooks log --replay ${runId}`] : [];
  return `\nHooks that failed:\n${[...lines, ...more].join("\n")}`;
}
