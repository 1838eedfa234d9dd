/**
 * Timing and reporting helpers. Every case measures qhooks and its baseline in the same process, interleaved
 * (A B B A ...), so that drift on a noisy machine hits both sides alike; results are medians.
 */

export type Unit = "ms" | "events/s" | "MB" | "bytes" | "records";

/** What a case promises, relative to its baseline or in absolute terms. */
export type Target =
  | { readonly kind: "ratio-max"; readonly value: number } // qhooks / baseline <= value (times)
  | { readonly kind: "ratio-min"; readonly value: number } // qhooks / baseline >= value (rates)
  | { readonly kind: "abs-max"; readonly value: number } // qhooks <= value, in the case's unit
  | { readonly kind: "abs-min"; readonly value: number }; // qhooks >= value, in the case's unit

export interface PeerResult {
  readonly name: string;
  readonly median: number;
  readonly samples: readonly number[];
  readonly ratio: number | null;
}

export interface CaseResult {
  /** `1`, `2`, `4a`...; cases marked `info` carry no target and feed the analysis. */
  readonly id: string;
  readonly name: string;
  readonly unit: Unit;
  readonly qhooks: number;
  readonly baseline: number | null;
  readonly baselineName: string;
  /** qhooks / baseline. */
  readonly ratio: number | null;
  readonly target: Target | null;
  readonly pass: boolean | null;
  readonly samples: { readonly qhooks: readonly number[]; readonly baseline: readonly number[] };
  readonly peer?: PeerResult;
  readonly notes?: string;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A measurement: runs once and returns one sample (a duration, a rate...). */
export type Probe = () => Promise<number> | number;

/**
 * Runs each probe `reps` times after `warmup` unrecorded runs, interleaved and in alternating order (A B, B A, ...),
 * and returns the samples of each (none for a probe left undefined).
 */
export async function interleave<K extends string>(probes: Readonly<Partial<Record<K, Probe>>>, reps: number, warmup = 1): Promise<Record<K, number[]>> {
  const keys = (Object.keys(probes) as K[]).filter((k) => probes[k] !== undefined);
  const samples = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < warmup + reps; i++) {
    const order = i % 2 === 0 ? keys : [...keys].reverse();
    for (const k of order) {
      const value = await probes[k]!();
      if (i >= warmup) samples[k].push(value);
    }
  }
  return samples;
}

/** Milliseconds taken by an async function. */
export async function timeMs(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Items per second for `count` items done by `fn`. */
export async function rate(count: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const ms = await timeMs(fn);
  return (count * 1000) / ms;
}

export function judge(qhooks: number, baseline: number | null, target: Target | null): { ratio: number | null; pass: boolean | null } {
  const ratio = baseline === null || baseline === 0 ? null : qhooks / baseline;
  if (target === null) return { ratio, pass: null };
  switch (target.kind) {
    case "ratio-max":
      return { ratio, pass: ratio !== null && ratio <= target.value };
    case "ratio-min":
      return { ratio, pass: ratio !== null && ratio >= target.value };
    case "abs-max":
      return { ratio, pass: qhooks <= target.value };
    case "abs-min":
      return { ratio, pass: qhooks >= target.value };
  }
}

export interface CaseInput {
  readonly id: string;
  readonly name: string;
  readonly unit: Unit;
  readonly qhooks: readonly number[];
  readonly baseline: readonly number[] | null;
  readonly baselineName: string;
  readonly target: Target | null;
  readonly notes?: string;
}

/** Medians, ratio and verdict of one case. */
export function caseResult(input: CaseInput): CaseResult {
  const q = median(input.qhooks);
  const b = input.baseline === null ? null : median(input.baseline);
  const { ratio, pass } = judge(q, b, input.target);
  return {
    id: input.id,
    name: input.name,
    unit: input.unit,
    qhooks: q,
    baseline: b,
    baselineName: input.baselineName,
    ratio,
    target: input.target,
    pass,
    samples: { qhooks: [...input.qhooks], baseline: input.baseline ? [...input.baseline] : [] },
    ...(input.notes ? { notes: input.notes } : {}),
  };
}

export function withPeer(result: CaseResult, name: string, samples: readonly number[]): CaseResult {
  const m = median(samples);
  return { ...result, peer: { name, median: m, samples: [...samples], ratio: result.baseline ? m / result.baseline : null } };
}

// ---- Formatting ----

export function formatValue(value: number | null, unit: Unit): string {
  if (value === null || !Number.isFinite(value)) return "—";
  switch (unit) {
    case "ms":
      return value >= 100 ? `${value.toFixed(0)} ms` : value >= 10 ? `${value.toFixed(1)} ms` : `${value.toFixed(2)} ms`;
    case "events/s":
      return value >= 100_000 ? `${(value / 1000).toFixed(0)}k/s` : value >= 10_000 ? `${(value / 1000).toFixed(1)}k/s` : `${value.toFixed(0)}/s`;
    case "MB":
      return `${value.toFixed(1)} MB`;
    case "bytes":
      return `${value.toFixed(0)} B`;
    case "records":
      return `${value.toFixed(0)} rec`;
  }
}

export function formatTarget(target: Target | null, unit: Unit): string {
  if (target === null) return "info";
  switch (target.kind) {
    case "ratio-max":
      return `<= ${target.value}x`;
    case "ratio-min":
      return `>= ${target.value}x`;
    case "abs-max":
      return `< ${formatValue(target.value, unit)}`;
    case "abs-min":
      return `>= ${formatValue(target.value, unit)}`;
  }
}

export function formatRatio(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return "—";
  return ratio >= 100 ? `${ratio.toFixed(0)}x` : ratio >= 10 ? `${ratio.toFixed(1)}x` : `${ratio.toFixed(2)}x`;
}

export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export function resultsTable(results: readonly CaseResult[]): string {
  const hasPeer = results.some((r) => r.peer);
  const headers = ["case", "what", "qhooks", "baseline", "ratio", ...(hasPeer ? ["peer", "peer ratio"] : []), "target", "result"];
  const rows = results.map((r) => [
    r.id,
    r.name,
    formatValue(r.qhooks, r.unit),
    r.baseline === null ? "—" : `${formatValue(r.baseline, r.unit)} (${r.baselineName})`,
    formatRatio(r.ratio),
    ...(hasPeer ? [r.peer ? formatValue(r.peer.median, r.unit) : "", r.peer ? formatRatio(r.peer.ratio) : ""] : []),
    formatTarget(r.target, r.unit),
    r.pass === null ? "" : r.pass ? "PASS" : "MISS",
  ]);
  return renderTable(headers, rows);
}

/** Progress on stderr, so that stdout carries the table alone. */
export const progress = (line: string): void => void process.stderr.write(`bench: ${line}\n`);
