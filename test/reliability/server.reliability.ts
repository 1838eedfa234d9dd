import { expect } from "chai";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { serverPaths } from "../../src/server/paths.js";
import { isAlive, pidFromFile, waitFor } from "../exec/processes.js";
import { bearer, post, startServer, type ForegroundServer } from "../server/serveSupport.js";
import { Sandbox, group } from "../support/sandbox.js";
import { QUICK, clip, sleep } from "./support.js";

/**
 * Issue 24's bad input for `qhooks serve` that needs many connections or a SIGKILL: 500 connections at once are
 * each answered (or refused with a status), and the server serves afterwards; a server killed -9 while a hook runs
 * leaves a log that verifies with the event marked unfinished, and `serve --ensure` starts a new one over the stale
 * state and lock.
 */
describe("reliability: qhooks serve under load and death", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let server: ForegroundServer | null;
  // The server's own files, where the code puts them (one folder under qhooks' data folder).
  const files = () => serverPaths(sb.home);
  const event = (session: string, command = "ls") => ({
    session_id: session,
    transcript_path: "/tmp/t.jsonl",
    cwd: sb.project,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "toolu_1",
  });

  beforeEach(() => {
    sb = new Sandbox();
    server = null;
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sb.run(["serve", "--stop"]);
    await sb.cleanup();
  });

  async function logRecords(): Promise<LogRecord[]> {
    const r = await sb.run(["log", "--json", "--limit", "100000"]);
    expect(r.code, `qhooks log: ${clip(r.stderr)}`).to.equal(0);
    return JSON.parse(r.stdout) as LogRecord[];
  }

  /** One POST on a connection of its own; a connection the server drops is "reset", never a hang. */
  function postAlone(port: number, token: string, body: object, errors: string[] = []): Promise<number | "reset"> {
    const text = JSON.stringify(body);
    const t0 = performance.now();
    return new Promise((resolve) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: "/hook/claude",
          method: "POST",
          agent: false,
          headers: { Host: `127.0.0.1:${port}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...bearer(token) },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
          res.on("error", (e: NodeJS.ErrnoException) => {
            errors.push(`response ${e.code ?? e.message} after ${Math.round(performance.now() - t0)} ms`);
            resolve("reset");
          });
        },
      );
      req.on("error", (e: NodeJS.ErrnoException) => {
        errors.push(`${e.code ?? e.message} after ${Math.round(performance.now() - t0)} ms`);
        resolve("reset");
      });
      req.end(text);
    });
  }

  // Not @quick: on a loaded machine (load 14 on 2 cores) about one run in three sees one connection of 500 reset by
  // the server after 11 to 24 s, with no line in its log (an open bug, docs/server.md "Not done yet").
  it("500 connections at once: each answered 200 and logged, none hangs, and the server answers the next event", async () => {
    const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0`);
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", guard)] } });
    server = await startServer(sb);
    const { port, token } = server;
    const errors: string[] = [];
    const answers = await Promise.all(Array.from({ length: 500 }, (_, i) => postAlone(port, token, event(`c${i % 8}`, `echo ${i}`), errors)));
    const counts: Record<string, number> = {};
    for (const a of answers) counts[String(a)] = (counts[String(a)] ?? 0) + 1;
    expect(counts, `every connection has a defined answer (${errors.join(", ")}; ${clip(server.stderr(), 2000)})`).to.deep.equal({ 200: 500 });
    const next = await post(port, "/hook/claude", event("after", "rm -rf /"), bearer(token));
    expect(JSON.parse(next.body).hookSpecificOutput.permissionDecision).to.equal("deny");
    const records = await logRecords();
    expect(records.length, "no decision lost").to.equal(501);
    const v = await sb.run(["verify"]);
    expect(v.code, clip(v.stdout + v.stderr)).to.equal(0);
  });

  it(`killed -9 while a hook runs: the log verifies, the event is there as unfinished, --ensure takes over the stale state and lock ${QUICK}`, async () => {
    const pidFile = join(sb.root, "hook.pid");
    const sleepy = sb.script("sleepy.sh", `cat >/dev/null; echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; sleep 30; exit 0`);
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", { command: sleepy, timeout: 600 })] } });
    const first = await sb.run(["serve", "--ensure", "--json"]);
    expect(first.code, first.stderr).to.equal(0);
    const { pid, url } = JSON.parse(first.stdout) as { pid: number; url: string };
    const port = Number(new URL(url).port);
    const token = readFileSync(files().token, "utf8").trim();

    const answer = postAlone(port, token, event("killed"));
    const hook = await waitFor("the hook to start", () => pidFromFile(pidFile), 10_000);
    process.kill(pid, "SIGKILL");
    expect(await answer, "the caller sees its connection end, not a hang").to.equal("reset");
    await waitFor("the server to be gone", () => !isAlive(pid), 5000);
    // The hook's group is the engine's watchdog's to kill, as with qhooks run.
    await waitFor("the hook to be stopped", () => !isAlive(hook), 10_000);

    const v = await sb.run(["verify"]);
    expect(v.code, clip(v.stdout + v.stderr)).to.equal(0);
    expect((await logRecords()).map((r) => [r.sessionId, r.decision])).to.deep.equal([["killed", "unfinished"]]);

    // A lock left by a process that died while starting (the same pid, dead) is taken over, as the state file is.
    writeFileSync(files().lock, String(pid));
    const status = await sb.run(["serve", "--status"]);
    expect(status.code).to.equal(1);
    expect(status.stdout).to.include("not running");
    const again = await sb.run(["serve", "--ensure", "--json"]);
    expect(again.code, again.stderr).to.equal(0);
    const restarted = JSON.parse(again.stdout) as { pid: number; url: string; started: boolean };
    expect(restarted).to.include({ url, started: true });
    expect(restarted.pid).to.not.equal(pid);
    expect(existsSync(files().lock), "the lock is released").to.equal(false);

    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: {} });
    const next = await post(port, "/hook/claude", event("next"), bearer(token));
    expect(next.status).to.equal(200);
    await sleep(100);
    expect((await logRecords()).map((r) => [r.sessionId, r.decision])).to.deep.equal([
      ["next", "none"],
      ["killed", "unfinished"],
    ]);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });
});
