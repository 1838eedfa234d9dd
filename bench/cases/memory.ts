import { existsSync, readFileSync, rmSync } from "node:fs";
import { spawn } from "node:child_process";
import type { BigLog } from "../bigLog.js";
import { caseResult, interleave, progress, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, CLI } from "../fixtures.js";
import type { BenchConfig } from "../config.js";

const TIME = "/usr/bin/time";

interface Peak {
  readonly mb: number;
  readonly ms: number;
}

/** Reads VmHWM (peak RSS) of a running process; null once it is gone. */
function vmHwmKb(pid: number): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Runs a command to its end, stdout to /dev/null, and returns its peak RSS: from GNU time's %M (the kernel's
 * ru_maxrss for the child) when /usr/bin/time exists, else the last VmHWM read from /proc while it ran.
 */
function peakRss(command: string, args: readonly string[], env: Record<string, string>, scratch: string): Promise<Peak> {
  const viaTime = existsSync(TIME);
  const out = `${scratch}.rss`;
  rmSync(out, { force: true });
  const [cmd, argv] = viaTime ? [TIME, ["-f", "%M", "-o", out, command, ...args]] : [command, [...args]];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(cmd, argv, { env, stdio: ["ignore", "ignore", "pipe"] });
    const err: Buffer[] = [];
    child.stderr.on("data", (c: Buffer) => err.push(c));
    let polled = 0;
    const timer = viaTime ? null : setInterval(() => (polled = Math.max(polled, vmHwmKb(child.pid!) ?? 0)), 10);
    child.on("error", reject);
    child.on("close", (code) => {
      if (timer) clearInterval(timer);
      const ms = performance.now() - start;
      if (code !== 0) return reject(new Error(`${args.join(" ")} exited ${code}: ${Buffer.concat(err).toString("utf8").slice(0, 500)}`));
      const kb = viaTime ? Number(readFileSync(out, "utf8").trim().split("\n").pop()) : polled;
      resolve({ mb: kb / 1024, ms });
    });
  });
}

/** Case 7: peak RSS of `qhooks log` and `qhooks replay --match-only` over the big log, as child processes. */
export async function memoryCases(config: BenchConfig, big: BigLog): Promise<CaseResult[]> {
  const dir = new BenchDir("memory");
  try {
    const env = benchEnv(dir.home);
    const hookFile = dir.settings("replay", [{ command: "true" }]);
    const scratch = dir.path("peak");
    const qhooks = (args: readonly string[]) => peakRss(process.execPath, [CLI, "--db", big.path, "--project-dir", dir.project, ...args], env, scratch);
    const node = () => peakRss(process.execPath, ["-e", "0"], env, scratch);
    const n = big.events.toLocaleString("en");

    progress(`case 7: peak RSS of qhooks log / replay --match-only over ${n} events`);
    const reps = config.quick ? 1 : 3;
    const logs = await interleave({ log: () => qhooks(["log"]).then((p) => p.mb), node: () => node().then((p) => p.mb) }, reps, 0);
    const all = await qhooks(["log", "--jsonl", "--limit", String(big.events * 2)]);
    const replay = await qhooks(["replay", "--match-only", "--since", "2000-01-01", "--settings", hookFile]);
    const nodeMb = logs.node;
    return [
      caseResult({
        id: "7a",
        name: "peak RSS, qhooks log (--limit 50)",
        unit: "MB",
        qhooks: logs.log,
        baseline: nodeMb,
        baselineName: "node -e 0",
        target: { kind: "abs-max", value: 150 },
      }),
      caseResult({
        id: "7b",
        name: `peak RSS, qhooks log --jsonl, all ${n}`,
        unit: "MB",
        qhooks: [all.mb],
        baseline: nodeMb,
        baselineName: "node -e 0",
        target: { kind: "abs-max", value: 150 },
      }),
      caseResult({
        id: "7c",
        name: `peak RSS, qhooks replay --match-only, all ${n}`,
        unit: "MB",
        qhooks: [replay.mb],
        baseline: nodeMb,
        baselineName: "node -e 0",
        target: { kind: "abs-max", value: 150 },
      }),
      caseResult({
        id: "7i",
        name: `  log --jsonl throughput (CLI, all ${n})`,
        unit: "events/s",
        qhooks: [(big.events * 1000) / all.ms],
        baseline: null,
        baselineName: "",
        target: null,
      }),
      caseResult({
        id: "7i",
        name: `  replay --match-only throughput (CLI, all ${n})`,
        unit: "events/s",
        qhooks: [(big.events * 1000) / replay.ms],
        baseline: null,
        baselineName: "",
        target: null,
      }),
    ];
  } finally {
    dir.dispose();
  }
}
