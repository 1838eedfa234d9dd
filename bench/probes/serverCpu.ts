/**
 * Where does `qhooks serve` spend its time on an event no hook matches (case S2), or one its guard matches (S1)? Not
 * part of `npm run bench`: run by hand after `npm run build` (`node dist/bench/probes/serverCpu.js [events]
 * [--cpu-prof DIR] [--unbundled] [--gap MS] [--guard]`); prints one JSON line.
 *
 * Starts the real server (fresh HOME, logging on, the guard of case S1 in the project's settings) and S2's floor, a
 * bare Node HTTP server, and posts the same no-match event to each, one at a time over a keep-alive agent, in
 * alternating blocks. Besides wall time it reads each server's CPU time (user + system, /proc/<pid>/stat) before and
 * after, and of its main thread alone (the rest is SQLite's projector and V8's helper threads): CPU per event is what
 * a loaded machine leaves alone, where the wall-time ratio swings between runs.
 * With `--cpu-prof DIR` both servers run under `node --cpu-prof` and write their profiles to DIR when they stop.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { join } from "node:path";
import { serverPaths } from "../../src/server/paths.js";
import { ECHO_SERVER, listen, post } from "../cases/server.js";
import { BenchDir, benchEnv, CLI, preToolUsePayload, REPO_ROOT } from "../fixtures.js";
import { median } from "../harness.js";

const events = Number(process.argv[2] ?? "3000");
const profIndex = process.argv.indexOf("--cpu-prof");
const profDir = profIndex > 0 ? process.argv[profIndex + 1] : undefined;
// The unbundled CLI (dist/src), whose profile names qhooks' own functions and files (the bundle's are minified).
const cli = process.argv.includes("--unbundled") ? join(REPO_ROOT, "dist", "src", "cli", "main.js") : CLI;
const gapIndex = process.argv.indexOf("--gap");
// With `--gap MS`, blocks of one event each, and a pause of MS after each: the shape of case S2, whose posts come
// between S1's spawns (a server idle for a while before each event), where the blocks of 100 keep it busy.
const gapMs = gapIndex > 0 ? Number(process.argv[gapIndex + 1]) : 0;
const BLOCK = gapMs > 0 ? 1 : 100;
// With `--guard`, the event is one the guard matches (case S1's shape: one spawn per event), posted to both servers.
const guarded = process.argv.includes("--guard");

// S2's floor, which also leaves on SIGTERM here, so that --cpu-prof writes its profile.
const ECHO = `process.on("SIGTERM", () => process.exit(0)); ${ECHO_SERVER}`;

/** One post as case S sends it; anything but a 200 ends the probe. */
async function postOk(agent: Agent, port: number, body: string, token: string | null): Promise<void> {
  const status = await post(agent, port, body, token);
  if (status !== 200) throw new Error(`answered ${status}`);
}

/** User + system CPU of a process or one of its threads, in milliseconds (clock ticks of 10 ms on Linux). */
function cpuMs(pid: number, tid?: number): number {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const fields = readFileSync(path, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const dir = new BenchDir("server-cpu");
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
try {
  const env = benchEnv(dir.home);
  const guard = dir.path("guard.sh");
  writeFileSync(guard, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  mkdirSync(join(dir.project, ".claude"), { recursive: true });
  writeFileSync(
    join(dir.project, ".claude", "settings.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } }),
  );
  const flags = profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir] : [];
  const server = await listen([...flags, cli, "serve", "--port", "0", "--db", dir.path("events.db")], env, dir.project);
  const echo = await listen([...flags, "-e", ECHO], env, dir.project);
  const token = readFileSync(serverPaths(dir.home).token, "utf8").trim();
  const body = JSON.stringify({ ...(JSON.parse(preToolUsePayload({ tool: guarded ? "Bash" : "Read" })) as object), cwd: dir.project });

  const sides = [
    { name: "qhooks", pid: server.child.pid!, send: () => postOk(agent, server.port, body, token), wall: [] as number[], cpu: 0, mainCpu: 0, n: 0 },
    { name: "echo", pid: echo.child.pid!, send: () => postOk(agent, echo.port, body, null), wall: [] as number[], cpu: 0, mainCpu: 0, n: 0 },
  ];
  for (const side of sides) for (let i = 0; i < 200; i++) await side.send(); // warm-up
  for (let done = 0; done < events; done += BLOCK) {
    for (const side of done % (2 * BLOCK) === 0 ? sides : [...sides].reverse()) {
      const before = cpuMs(side.pid);
      const mainBefore = cpuMs(side.pid, side.pid);
      for (let i = 0; i < BLOCK; i++) {
        const t = performance.now();
        await side.send();
        side.wall.push(performance.now() - t);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      side.cpu += cpuMs(side.pid) - before;
      side.mainCpu += cpuMs(side.pid, side.pid) - mainBefore;
      side.n += BLOCK;
    }
  }
  const result = Object.fromEntries(
    sides.map((s) => [
      s.name,
      {
        events: s.n,
        wallMedianMs: Number(median(s.wall).toFixed(3)),
        cpuPerEventUs: Math.round((s.cpu * 1000) / s.n),
        mainThreadCpuPerEventUs: Math.round((s.mainCpu * 1000) / s.n),
      },
    ]),
  );
  const [q, e] = sides;
  console.log(
    JSON.stringify({
      ...result,
      wallRatio: Number((median(q!.wall) / median(e!.wall)).toFixed(2)),
      cpuRatio: Number((q!.cpu / e!.cpu).toFixed(2)),
      load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    }),
  );
  for (const listener of [server, echo]) await listener.stop();
} finally {
  agent.destroy();
  dir.dispose();
}
