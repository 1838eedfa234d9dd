import { caseResult, interleave, progress, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, CLI, preToolUsePayload, runChild } from "../fixtures.js";
import type { BenchConfig } from "../config.js";

/**
 * Case 1: `qhooks run PreToolUse` as a process (no matching hook, logging on) against `node -e 0`. The settings
 * discovered are empty (a fresh HOME and project), so the run is start-up, validation, one log transaction, exit.
 */
export async function startupCase(config: BenchConfig): Promise<CaseResult[]> {
  const dir = new BenchDir("startup");
  try {
    const env = benchEnv(dir.home);
    const payload = preToolUsePayload();
    const db = dir.path("events.db");
    const run = async (extra: readonly string[] = []) => {
      const r = await runChild(process.execPath, [CLI, "run", "PreToolUse", "--db", db, "--project-dir", dir.project, ...extra], { input: payload, env, cwd: dir.project });
      if (r.code !== 0) throw new Error(`qhooks run exited ${r.code}: ${r.stderr}`);
      return r.ms;
    };
    const node = async () => (await runChild(process.execPath, ["-e", "0"], { input: payload, env, cwd: dir.project })).ms;
    const version = async () => (await runChild(process.execPath, [CLI, "--version"], { env, cwd: dir.project })).ms;

    progress(`case 1: qhooks run vs node -e 0, ${config.startupReps} runs each`);
    const s = await interleave({ qhooks: () => run(), noLog: () => run(["--no-log"]), version, node }, config.startupReps, 2);
    return [
      caseResult({
        id: "1",
        name: "qhooks run PreToolUse, no hook, log on (process)",
        unit: "ms",
        qhooks: s.qhooks,
        baseline: s.node,
        baselineName: "node -e 0",
        target: { kind: "ratio-max", value: 1.5 },
      }),
      caseResult({ id: "1i", name: "  same with --no-log", unit: "ms", qhooks: s.noLog, baseline: s.node, baselineName: "node -e 0", target: null }),
      caseResult({ id: "1i", name: "  qhooks --version (module loading)", unit: "ms", qhooks: s.version, baseline: s.node, baselineName: "node -e 0", target: null }),
    ];
  } finally {
    dir.dispose();
  }
}
