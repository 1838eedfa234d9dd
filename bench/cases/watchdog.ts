import { join } from "node:path";
import { caseResult, interleave, median, progress, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, REPO_ROOT, runChild } from "../fixtures.js";
import type { BenchConfig } from "../config.js";

const PROBE = join(REPO_ROOT, "dist", "bench", "probes", "firstDispatch.js");

interface ProbeResult {
  readonly mode: string;
  readonly first: number;
  readonly steady: number;
  readonly startMs: number | null;
}

/**
 * The watchdog's cost: one small /bin/sh per engine, started with the first hook. Each sample is a fresh process
 * (bench/probes/firstDispatch.ts) timing its first one-hook dispatch, with the watchdog starting inside it or
 * already started, and the steady state after; raw spawns in a fresh process give the floor of both.
 */
export async function watchdogCases(config: BenchConfig): Promise<CaseResult[]> {
  const dir = new BenchDir("watchdog");
  try {
    const settings = dir.settings("one", [{ matcher: "Bash", command: "true" }]);
    const env = benchEnv(dir.home);
    let n = 0;
    const probe = async (mode: string): Promise<ProbeResult> => {
      const r = await runChild(process.execPath, [PROBE, mode, settings, dir.path(`w${n++}.db`), dir.home, dir.project], { env });
      if (r.code !== 0) throw new Error(`watchdog probe ${mode} exited ${r.code}: ${r.stderr}`);
      return JSON.parse(r.stdout) as ProbeResult;
    };
    progress(`watchdog: ${config.watchdogProcesses} fresh processes per variant`);
    const collected: Record<string, ProbeResult[]> = { cold: [], prestarted: [], raw: [] };
    await interleave(
      Object.fromEntries(
        Object.keys(collected).map((mode) => [
          mode,
          async () => {
            collected[mode]!.push(await probe(mode));
            return 0;
          },
        ]),
      ),
      config.watchdogProcesses,
      0,
    );
    const pick = (mode: string, key: "first" | "steady") => collected[mode]!.map((r) => r[key]);
    const startCalls = collected.prestarted!.map((r) => r.startMs ?? Number.NaN);
    const cost = median(pick("cold", "first")) - median(pick("prestarted", "first"));
    return [
      caseResult({
        id: "W1",
        name: "first 1-hook dispatch, watchdog starts in it",
        unit: "ms",
        qhooks: pick("cold", "first"),
        baseline: pick("raw", "first"),
        baselineName: "first raw spawn",
        target: null,
      }),
      caseResult({
        id: "W2",
        name: "first 1-hook dispatch, watchdog already running",
        unit: "ms",
        qhooks: pick("prestarted", "first"),
        baseline: pick("raw", "first"),
        baselineName: "first raw spawn",
        target: null,
        notes: `watchdog start on the first dispatch: ${cost.toFixed(2)} ms (W1 - W2); its spawn() call alone: ${median(startCalls).toFixed(2)} ms`,
      }),
      caseResult({
        id: "W3",
        name: "  steady state after it, same processes",
        unit: "ms",
        qhooks: pick("cold", "steady"),
        baseline: pick("raw", "steady"),
        baselineName: "raw spawn",
        target: null,
      }),
      caseResult({
        id: "W4",
        name: "  watchdog spawn() call, synchronous part",
        unit: "ms",
        qhooks: startCalls,
        baseline: null,
        baselineName: "",
        target: null,
      }),
    ];
  } finally {
    dir.dispose();
  }
}
