import { caseResult, interleave, progress, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, CLI, preToolUsePayload, runChild } from "../fixtures.js";
import type { BenchConfig } from "../config.js";

/** Environment variables that make every node process do work before any script runs. */
const STARTUP_VARIABLES = ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"];

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
    // Variables node acts on at every start (NODE_EXTRA_CA_CERTS reads a CA bundle: about 33 ms on these machines)
    // add the same time to both sides; a row without them shows the ratio they dilute.
    const bareEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !STARTUP_VARIABLES.includes(k)));
    const hasStartupVariables = Object.keys(bareEnv).length < Object.keys(env).length;
    const run = async (extra: readonly string[] = [], runEnv = env) => {
      const r = await runChild(process.execPath, [CLI, "run", "PreToolUse", "--db", db, "--project-dir", dir.project, ...extra], {
        input: payload,
        env: runEnv,
        cwd: dir.project,
      });
      if (r.code !== 0) throw new Error(`qhooks run exited ${r.code}: ${r.stderr}`);
      return r.ms;
    };
    const node = async (nodeEnv = env) => (await runChild(process.execPath, ["-e", "0"], { input: payload, env: nodeEnv, cwd: dir.project })).ms;
    const version = async () => (await runChild(process.execPath, [CLI, "--version"], { env, cwd: dir.project })).ms;

    progress(`case 1: qhooks run vs node -e 0, ${config.startupReps} runs each`);
    const bare = { bareRun: () => run([], bareEnv), bareNode: () => node(bareEnv) };
    const s = await interleave(
      { qhooks: () => run(), noLog: () => run(["--no-log"]), version, node: () => node(), ...(hasStartupVariables ? bare : {}) },
      config.startupReps,
      2,
    );
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
      caseResult({
        id: "1i",
        name: "  qhooks --version (module loading)",
        unit: "ms",
        qhooks: s.version,
        baseline: s.node,
        baselineName: "node -e 0",
        target: null,
      }),
      ...(hasStartupVariables
        ? [
            caseResult({
              id: "1i",
              name: `  case 1, both without ${STARTUP_VARIABLES.filter((k) => k in env).join(", ")}`,
              unit: "ms",
              qhooks: s.bareRun!,
              baseline: s.bareNode!,
              baselineName: "node -e 0",
              target: null,
            }),
          ]
        : []),
    ];
  } finally {
    dir.dispose();
  }
}
