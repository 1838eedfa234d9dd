import { expect } from "chai";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Sandbox, group } from "../support/sandbox.js";
import { bearer, post, startServer, stderrWhen, tokenOf, type ForegroundServer } from "./serveSupport.js";

/** The real `qhooks serve` on loopback, called with real HTTP requests as Claude Code's http hooks call it. */
describe("qhooks serve", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let server: ForegroundServer | null;

  const claudeSettings = (hooks: Record<string, unknown>) => sb.file(join(sb.project, ".claude", "settings.json"), { hooks });
  const event = (name: string, extra: Record<string, unknown> = {}) => ({
    session_id: "s1",
    transcript_path: "/tmp/t.jsonl",
    cwd: sb.project,
    hook_event_name: name,
    ...extra,
  });
  const bash = (command: string) => event("PreToolUse", { tool_name: "Bash", tool_input: { command }, tool_use_id: "toolu_1" });

  beforeEach(() => {
    sb = new Sandbox();
    server = null;
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sb.cleanup();
  });

  describe("judging", () => {
    beforeEach(async () => {
      const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0`);
      const loud = sb.script(
        "loud.sh",
        `cat >/dev/null; echo '{"systemMessage":"careful","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not curl"}}'`,
      );
      // A hook that answers in JSON on its own tool, to compare bytes with `qhooks run`.
      claudeSettings({ PreToolUse: [group("Bash", guard), group("WebFetch", loud)], Stop: [group(undefined, guard)] });
      server = await startServer(sb);
    });

    it("answers a blocking guard's exit 2 in the JSON form the host reads (200, a permission denial)", async () => {
      const res = await post(server!.port, "/hook/claude", bash("rm -rf /tmp/x"), bearer(server!.token));
      expect(res.status).to.equal(200);
      expect(res.headers["content-type"]).to.equal("application/json");
      expect(JSON.parse(res.body)).to.deep.equal({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm -rf here" },
      });
      expect(res.headers).to.not.have.property("access-control-allow-origin");
    });

    it("answers an event no hook blocks with an empty 200, and finds the project from a cwd in a subfolder", async () => {
      sb.file(join(sb.project, "src", "deep", ".keep"), "");
      const res = await post(server!.port, "/hook/claude", { ...bash("rm -rf /tmp/x"), cwd: join(sb.project, "src", "deep") }, bearer(server!.token));
      expect(JSON.parse(res.body).hookSpecificOutput.permissionDecision, "the project's .claude found upwards").to.equal("deny");
      const none = await post(server!.port, "/hook/claude", bash("ls"), bearer(server!.token));
      expect(none.status).to.equal(200);
      expect(none.body).to.equal("");
    });

    it("says a Stop block as decision: block, and takes the project from X-Qhooks-Project over the cwd", async () => {
      const res = await post(
        server!.port,
        "/hook/claude",
        { ...event("Stop", { stop_hook_active: false, last_assistant_message: "rm -rf done" }), cwd: "/" },
        {
          ...bearer(server!.token),
          "X-Qhooks-Project": sb.project,
        },
      );
      expect(JSON.parse(res.body)).to.deep.equal({ decision: "block", reason: "no rm -rf here" });
    });

    it("gives the same answers as `qhooks run --format hook --dialect claude`, and both are in the log", async () => {
      const env = { CLAUDE_PROJECT_DIR: sb.project };
      const blocked = bash("rm -rf /tmp/y");
      const viaRun = await sb.run(["run", "PreToolUse", "--format", "hook", "--dialect", "claude"], { input: JSON.stringify(blocked), env });
      const viaServer = await post(server!.port, "/hook/claude", blocked, bearer(server!.token));
      expect(viaRun.code).to.equal(2);
      expect(JSON.parse(viaServer.body).hookSpecificOutput.permissionDecisionReason).to.equal(viaRun.stderr.trim());

      const fetch = event("PreToolUse", { tool_name: "WebFetch", tool_input: { url: "https://x" }, tool_use_id: "toolu_2" });
      const runJson = await sb.run(["run", "PreToolUse", "--format", "hook", "--dialect", "claude"], { input: JSON.stringify(fetch), env });
      const serverJson = await post(server!.port, "/hook/claude", fetch, bearer(server!.token));
      expect(runJson.code).to.equal(0);
      expect(serverJson.body, "the same bytes as run's stdout").to.equal(runJson.stdout.trim());

      const log = await sb.run(["log", "--jsonl"]);
      const records = log.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { event: string; decision: string; projectDir: string });
      expect(records.map((r) => r.decision)).to.deep.equal(["deny", "deny", "deny", "deny"]);
      expect(new Set(records.map((r) => r.projectDir))).to.deep.equal(new Set([sb.project]));
    });

    it("refuses a missing or wrong secret (401, one line on stderr), a forged Host (421), and a non-JSON body type (415)", async () => {
      const none = await post(server!.port, "/hook/claude", bash("rm -rf /"), {});
      const wrong = await post(server!.port, "/hook/claude", bash("rm -rf /"), bearer("x".repeat(43)));
      const forged = await post(server!.port, "/hook/claude", bash("rm -rf /"), { ...bearer(server!.token), Host: `evil.example:${server!.port}` });
      const localhost = await post(server!.port, "/hook/claude", bash("rm -rf /"), { ...bearer(server!.token), Host: `localhost:${server!.port}` });
      const form = await post(server!.port, "/hook/claude", "a=b", { ...bearer(server!.token), "Content-Type": "application/x-www-form-urlencoded" });
      const health = await post(server!.port, "/health", "", {}, "GET");
      expect([none.status, wrong.status, forged.status, localhost.status, form.status, health.status]).to.deep.equal([401, 401, 421, 421, 415, 401]);
      // Each refusal's line is written before its answer, but reaches this process through another pipe: waited for.
      const refusedLines = (stderr: string) => stderr.split("\n").filter((l) => l.includes("refused"));
      const lines = refusedLines(await stderrWhen(server!, (stderr) => refusedLines(stderr).length >= 5));
      expect(lines).to.have.length(5);
      expect(lines[0]).to.match(/refused POST \/hook\/claude from 127\.0\.0\.1: no secret/);
      expect(lines[1]).to.match(/wrong secret/);
      expect(server!.stderr()).to.not.include(server!.token);
      const log = await sb.run(["log", "--jsonl"]);
      expect(log.stdout.trim(), "nothing refused was judged").to.equal("");
      expect(refusedLines(server!.stderr()), "one line per refusal, none later").to.have.length(5);
    });

    it("refuses a 20 MB body with 413 without waiting for it", async () => {
      const started = performance.now();
      const res = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: server!.port,
            path: "/hook/claude",
            method: "POST",
            headers: { Host: `127.0.0.1:${server!.port}`, "Content-Type": "application/json", "Content-Length": String(20_000_000), ...bearer(server!.token) },
          },
          (r) => {
            resolve(r.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on("error", reject);
        // A first 64 KiB only: a server that read the whole body would never answer.
        req.write(Buffer.alloc(64 * 1024, 0x20));
      });
      expect(res).to.equal(413);
      expect(performance.now() - started).to.be.below(5000);
      // The server still serves others.
      const after = await post(server!.port, "/hook/claude", bash("ls"), bearer(server!.token));
      expect(after.status).to.equal(200);
    });

    it("answers an invalid payload with a non-2xx status (a non-blocking error for the host) and a needed settings file for qoder", async () => {
      const bad = await post(server!.port, "/hook/claude", { session_id: "s1", cwd: sb.project, hook_event_name: "PreToolUse" }, bearer(server!.token));
      expect(bad.status).to.equal(400);
      expect(bad.body).to.match(/tool_input/);
      const qoder = await post(server!.port, "/hook/qoder", bash("ls"), bearer(server!.token));
      expect(qoder.status).to.equal(400);
      expect(qoder.body).to.match(/needs \?settings=FILE/);
      const nowhere = await post(server!.port, "/hook/claude", { ...bash("ls"), cwd: join(sb.root, "gone") }, bearer(server!.token));
      expect(nowhere.status).to.equal(400);
      expect(nowhere.body).to.match(/does not exist/);
    });
  });

  it("reads settings edited between two events, as run does, and logs a decision whose caller went away", async () => {
    const guard = sb.script("guard.sh", `cat >/dev/null; echo 'first rule' >&2; exit 2`);
    claudeSettings({ PreToolUse: [group("Bash", guard)] });
    server = await startServer(sb);
    const first = await post(server.port, "/hook/claude", bash("ls"), bearer(server.token));
    expect(JSON.parse(first.body).hookSpecificOutput.permissionDecisionReason).to.equal("first rule");
    const second = sb.script("second.sh", `cat >/dev/null; sleep 0.5; echo 'second rule' >&2; exit 2`);
    claudeSettings({ PreToolUse: [group("Bash", second)] });

    // The caller hangs up while the hook runs: the event is still judged and logged.
    await new Promise<void>((resolve) => {
      const text = JSON.stringify(bash("ls"));
      const req = request({
        host: "127.0.0.1",
        port: server!.port,
        path: "/hook/claude",
        method: "POST",
        headers: { Host: `127.0.0.1:${server!.port}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...bearer(server!.token) },
      });
      req.on("error", () => resolve());
      req.end(text, () => setTimeout(() => (req.destroy(), resolve()), 150));
    });
    await sleep(1000);
    const log = await sb.run(["log", "--jsonl"]);
    expect(
      log.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).reason),
    ).to.deep.equal(["second rule", "first rule"]);
  });

  it("the log file removed under a running server: the next decision goes to a new log at the same path, which verifies", async () => {
    const guard = sb.script("guard.sh", `cat >/dev/null; echo 'no' >&2; exit 2`);
    claudeSettings({ PreToolUse: [group("Bash", guard)] });
    server = await startServer(sb);
    expect((await post(server.port, "/hook/claude", bash("one"), bearer(server.token))).status).to.equal(200);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${sb.db}${suffix}`, { force: true });
    const res = await post(
      server.port,
      "/hook/claude",
      event("PreToolUse", { session_id: "after", tool_name: "Bash", tool_input: { command: "two" } }),
      bearer(server.token),
    );
    expect(JSON.parse(res.body).hookSpecificOutput.permissionDecision).to.equal("deny");
    expect(existsSync(sb.db), "a new log at the same path").to.equal(true);
    expect(server.stderr()).to.match(/warning: event log: the event log file .* was removed or replaced while in use; opened it again/);
    const log = await sb.run(["log", "--jsonl"]);
    expect(
      log.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).sessionId),
    ).to.deep.equal(["after"]);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("on SIGTERM, answers the event under way, logs it, and exits 0", async () => {
    const slow = sb.script("slow.sh", `cat >/dev/null; sleep 1; echo 'slow no' >&2; exit 2`);
    claudeSettings({ PreToolUse: [group("Bash", slow)] });
    server = await startServer(sb);
    const answer = post(server.port, "/hook/claude", bash("ls"), bearer(server.token));
    await sleep(300);
    server.child.kill("SIGTERM");
    const res = await answer;
    expect(JSON.parse(res.body).hookSpecificOutput.permissionDecisionReason).to.equal("slow no");
    expect(await server.exited).to.equal(0);
    const log = await sb.run(["log", "--jsonl"]);
    expect(JSON.parse(log.stdout.trim()).reason).to.equal("slow no");
  });

  it("--ensure twice at once starts one server; --status and --stop; a stale state file is replaced", async () => {
    const [a, b] = await Promise.all([sb.run(["serve", "--ensure", "--json"]), sb.run(["serve", "--ensure", "--json"])]);
    expect(a.code, a.stderr).to.equal(0);
    expect(b.code, b.stderr).to.equal(0);
    const [first, second] = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(first.pid).to.equal(second.pid);
    const status = await sb.run(["serve", "--status", "--json"]);
    expect(JSON.parse(status.stdout)).to.include({ running: true, pid: first.pid, url: first.url });
    expect(tokenOf(sb)).to.have.length.above(32);

    process.kill(first.pid, "SIGKILL");
    await sleep(200);
    const again = await sb.run(["serve", "--ensure", "--json"]);
    const restarted = JSON.parse(again.stdout);
    expect(restarted.pid).to.not.equal(first.pid);
    expect(restarted.url, "the same port, where installed hooks call").to.equal(first.url);
    expect(restarted.started).to.equal(true);

    const stop = await sb.run(["serve", "--stop"]);
    expect(stop.stdout).to.include(`stopped (pid ${restarted.pid})`);
    const after = await sb.run(["serve", "--status"]);
    expect(after.code).to.equal(1);
    expect(after.stdout).to.include("not running");
  });

  it("--ensure does not take a process squatting the recorded port for the server", async () => {
    // It answers /health as qhooks would, but cannot prove it holds the secret.
    const squatter = createServer((_req, res) =>
      res.end(JSON.stringify({ service: "qhooks serve", pid: process.pid, version: "1.0.0", port: 1, startedAt: "x", uid: 0, proof: "00" })),
    );
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
    const port = (squatter.address() as AddressInfo).port;
    sb.file(join(sb.home, ".qhooks", "server", "serve.json"), { port, pid: process.pid, version: "1.0.0", startedAt: null, uid: 0 });
    const status = await sb.run(["serve", "--status"]);
    expect(status.code, "not trusted").to.equal(1);
    const stop = await sb.run(["serve", "--stop"]);
    expect(stop.code).to.equal(1);
    expect(stop.stderr).to.match(/does not answer as qhooks serve; not stopping it/);
    squatter.close();
  });
});
