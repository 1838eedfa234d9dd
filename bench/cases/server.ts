import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { serverPaths } from "../../src/server/paths.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { BenchDir, benchEnv, CLI, preToolUsePayload, rawSpawn, runChild } from "../fixtures.js";
import { caseResult, interleave, median, percentile, progress, timeMs, type CaseResult } from "../harness.js";
import type { BenchConfig } from "../config.js";

/** A process that prints `listening on http://127.0.0.1:<port>` on stderr once it listens. */
export interface Listener {
  readonly child: ChildProcess;
  readonly port: number;
  stop(): Promise<void>;
}

export function listen(args: readonly string[], env: Record<string, string>, cwd: string): Promise<Listener> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing listening after 20 s: ${stderr}`)), 20_000);
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m && timer) {
        clearTimeout(timer);
        resolve({
          child,
          port: Number(m[1]),
          stop: async () => {
            if (child.exitCode === null) child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    void exited.then(() => reject(new Error(`exited before listening: ${stderr}`)));
  });
}

/** The floor of S2: a bare Node HTTP server in its own process that reads the body and answers an empty 200. */
export const ECHO_SERVER = `require("node:http").createServer((q, s) => { q.on("data", () => {}); q.on("end", () => s.end()); })
  .listen(0, "127.0.0.1", function () { process.stderr.write("listening on http://127.0.0.1:" + this.address().port + "\\n"); });`;

/** One POST as Claude Code's http hook sends it (keep-alive agent, JSON body, the bearer token); resolves with the status. */
export function post(agent: Agent, port: number, body: string, token: string | null): Promise<number> {
  const headers: Record<string, string> = {
    Host: `127.0.0.1:${port}`,
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/hook/claude", method: "POST", headers, agent }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/**
 * Cases S1-S4: the real `qhooks serve` (a process the bench starts, fresh HOME, logging on) called over loopback the
 * way Claude Code's http hooks call it: one guard hook against the same script spawned directly (S1), an event no
 * hook matches against a bare Node HTTP server's round trip (S2), 8 sessions posting at once (S3: lost events and
 * p99), the server's RSS after many events against after 1,000 (S4).
 */
export async function serverCases(config: BenchConfig): Promise<CaseResult[]> {
  const dir = new BenchDir("server");
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const stops: Array<() => Promise<void>> = [];
  try {
    const env = benchEnv(dir.home);
    const db = dir.path("events.db");
    const guard = dir.path("guard.sh");
    writeFileSync(guard, `#!/bin/sh\ngrep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\n`, { mode: 0o755 });
    mkdirSync(join(dir.project, ".claude"), { recursive: true });
    writeFileSync(
      join(dir.project, ".claude", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } }),
    );
    const server = await listen([CLI, "serve", "--port", "0", "--db", db], env, dir.project);
    stops.push(server.stop);
    const echo = await listen(["-e", ECHO_SERVER], env, dir.project);
    stops.push(echo.stop);
    // Where the server keeps its secret, as the code names it (a copied path broke when the data folder moved).
    const token = readFileSync(serverPaths(dir.home).token, "utf8").trim();
    const event = (o: { tool?: string; sessionId?: string; n?: number } = {}) => {
      const payload = JSON.parse(preToolUsePayload(o)) as Record<string, unknown>;
      return JSON.stringify({ ...payload, cwd: dir.project });
    };
    const matching = event();
    const noMatch = event({ tool: "Read" });
    const expectOk = async (p: Promise<number>) => {
      const status = await p;
      if (status !== 200) throw new Error(`the server answered ${status}`);
    };

    // Before S1-S4: its seconds without a post would let the server close the agent's idle keep-alive sockets
    // just as the agent reuses one.
    progress(`case S5: qhooks run --format hook forwarded to the server vs judged in its own process, ${config.startupReps} each`);
    // The entry Claude Code runs as a command hook; forwarded when a server runs (and QHOOKS_NO_FORWARD is unset).
    const runArgs = [CLI, "run", "PreToolUse", "--format", "hook", "--dialect", "claude", "--db", db];
    const runEnv = { ...env, CLAUDE_PROJECT_DIR: dir.project };
    const runOnce = async (extra: Record<string, string>) => {
      const r = await runChild(process.execPath, runArgs, { input: matching, env: { ...runEnv, ...extra }, cwd: dir.project });
      // The guard lets this command through (as in S1): exit 0, nothing to say.
      if (r.code !== 0 || r.stdout !== "" || r.stderr !== "") throw new Error(`qhooks run answered ${r.code}: ${r.stdout}${r.stderr}`);
      return r.ms;
    };
    const forwardedAtAll = (await countEvents(db)) + 1;
    await runOnce({});
    if ((await countEvents(db)) !== forwardedAtAll) throw new Error("a forwarded run was not logged exactly once");
    const r = await interleave({ forwarded: () => runOnce({}), own: () => runOnce({ QHOOKS_NO_FORWARD: "1" }) }, config.startupReps, 2);

    progress(`case S1/S2: qhooks serve over loopback vs a direct spawn and a bare HTTP server, ${config.oneHookReps} each`);
    const s = await interleave(
      {
        guard: () => timeMs(() => expectOk(post(agent, server.port, matching, token))),
        spawn: () => timeMs(() => rawSpawn(matching, guard)),
        none: () => timeMs(() => expectOk(post(agent, server.port, noMatch, token))),
        echo: () => timeMs(() => post(agent, echo.port, noMatch, null)),
      },
      config.oneHookReps,
      5,
    );

    progress(`case S4: server RSS after 1,000 and ${config.serverRssEvents.toLocaleString("en")} no-match events`);
    const flood = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) {
            next++;
            await expectOk(post(agent, server.port, event({ tool: "Read", sessionId: `bench-rss-${next % 8}`, n: next }), token));
          }
        }),
      );
    };
    // S1 and S2 posted (reps + warm-up) events of each kind: bring the server to 1,000, measure, then S3, then the rest.
    let served = (config.oneHookReps + 5) * 2 + config.startupReps + 3;
    await flood(Math.max(0, 1_000 - served));
    served = Math.max(served, 1_000);
    const rss1k = rssMB(server.child.pid!);
    const sessions = 8;
    const perSession = config.serverSessionEvents;
    progress(`case S3: ${sessions} sessions x ${perSession} guarded events at once`);
    const latencies: number[] = [];
    const before = await countEvents(db);
    let refused = 0;
    const wall = await timeMs(() =>
      Promise.all(
        Array.from({ length: sessions }, async (_, k) => {
          for (let n = 0; n < perSession; n++) {
            const body = event({ sessionId: `bench-concurrent-${k}`, n });
            const t = performance.now();
            const status = await post(agent, server.port, body, token);
            latencies.push(performance.now() - t);
            if (status !== 200) refused++;
          }
        }),
      ),
    );
    const logged = (await countEvents(db)) - before;
    const lost = sessions * perSession - logged;

    served += sessions * perSession;
    await flood(Math.max(0, config.serverRssEvents - served));
    const rssN = rssMB(server.child.pid!);

    return [
      caseResult({
        id: "S1",
        name: "PreToolUse through qhooks serve (loopback HTTP), one guard hook",
        unit: "ms",
        qhooks: s.guard,
        baseline: s.spawn,
        baselineName: "the guard spawned directly",
        target: { kind: "ratio-max", value: 1.15 },
        notes: "moonshot 1.05x",
      }),
      caseResult({
        id: "S2",
        name: "no-match event through qhooks serve",
        unit: "ms",
        qhooks: s.none,
        baseline: s.echo,
        baselineName: "bare Node HTTP server round trip",
        target: { kind: "ratio-max", value: 2 },
      }),
      caseResult({
        id: "S5",
        name: "qhooks run --format hook, one guard, forwarded to qhooks serve",
        unit: "ms",
        qhooks: r.forwarded,
        baseline: r.own,
        baselineName: "judged in its own process (QHOOKS_NO_FORWARD=1)",
        target: { kind: "ratio-max", value: 0.8 },
      }),
      caseResult({
        id: "S3",
        name: `${sessions} sessions x ${perSession} guarded events at once: lost`,
        unit: "records",
        qhooks: [lost + refused],
        baseline: null,
        baselineName: "—",
        target: { kind: "abs-max", value: 0 },
        notes:
          `${logged} of ${sessions * perSession} logged, ${refused} refused; latency p50 ${median(latencies).toFixed(1)} ms, ` +
          `p99 ${percentile(latencies, 99).toFixed(1)} ms; ${((sessions * perSession) / (wall / 1000)).toFixed(0)} events/s`,
      }),
      caseResult({
        id: "S3i",
        name: "  p99 latency of those events",
        unit: "ms",
        qhooks: [percentile(latencies, 99)],
        baseline: [median(latencies)],
        baselineName: "their median",
        target: null,
      }),
      caseResult({
        id: "S4",
        name: `server RSS after ${config.serverRssEvents.toLocaleString("en")} events`,
        unit: "MB",
        qhooks: [rssN],
        baseline: [rss1k],
        baselineName: "after 1,000 events",
        target: { kind: "ratio-max", value: 1.1 },
        ...(config.quick ? { notes: "--quick: fewer events than the full run's 100,000" } : {}),
      }),
    ];
  } finally {
    agent.destroy();
    for (const stop of stops) await stop();
    dir.dispose();
  }
}

async function countEvents(db: string): Promise<number> {
  const log = openSqliteLog(db, { mustExist: true });
  try {
    return await log.count({ event: "PreToolUse" });
  } finally {
    await log.close();
  }
}
