import { expect } from "chai";
import { statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readOrCreateToken, rotateToken, tokenReader } from "../../src/server/token.js";
import { Sandbox, group } from "../support/sandbox.js";
import { mintTicket } from "../../src/server/liveTicket.js";
import { bearer, post, startServer, tokenOf, type ForegroundServer } from "./serveSupport.js";

/** The real `qhooks serve`: exiting when idle, and a rotated secret. */
describe("qhooks serve: --idle-exit and --rotate-token", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let server: ForegroundServer | null;
  const bash = (command: string) => ({
    session_id: "s1",
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
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sb.cleanup();
  });

  it("--idle-exit: events keep it running, an event being judged is answered, then it exits 0 on its own and marks itself stopped", async () => {
    const slow = sb.script("slow.sh", `grep -q slow && { sleep 1.5; echo 'slow no' >&2; exit 2; }; exit 0`);
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", slow)] } });
    server = await startServer(sb, ["--port", "0", "--idle-exit", "2s"]);
    // An event every half second for three seconds: longer than the idle time, and it keeps answering.
    for (let i = 0; i < 6; i++) {
      const res = await post(server.port, "/hook/claude", bash("ls"), bearer(server.token));
      expect(res.status, `event ${i}`).to.equal(200);
      await sleep(500);
    }
    // A hook that runs longer than... the quiet time before it: the event is answered, not cut.
    const answer = await post(server.port, "/hook/claude", bash("slow"), bearer(server.token));
    expect(JSON.parse(answer.body).hookSpecificOutput.permissionDecisionReason).to.equal("slow no");
    expect(await server.exited).to.equal(0);
    expect(server.stderr())
      .to.match(/no event for 2000 ms \(--idle-exit\): stopping/)
      .and.match(/stopped/);
    const status = await sb.run(["serve", "--status"]);
    expect(status.code).to.equal(1);
    const log = await sb.run(["log", "--jsonl"]);
    expect(log.stdout.trim().split("\n")).to.have.length(7);
  });

  it("--ensure --idle-exit hands the idle time to the server it starts", async () => {
    const ensured = await sb.run(["serve", "--ensure", "--idle-exit", "1s", "--json"]);
    expect(ensured.code, ensured.stderr).to.equal(0);
    const { pid } = JSON.parse(ensured.stdout) as { pid: number };
    while ((await sb.run(["serve", "--status"])).code === 0) await sleep(200);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // It marked itself stopped before it exits: its process ends too (within the test's timeout).
    while (alive()) await sleep(50);
    expect(alive()).to.equal(false);
  });

  it("--idle-exit takes a duration, else one line", async () => {
    const bad = await sb.run(["serve", "--idle-exit", "5x"]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr.trim().split("\n")).to.have.length(1);
    expect(bad.stderr.trim()).to.equal("qhooks: --idle-exit: takes a duration such as 30m (ms, s, m, h)");
  });

  it("--rotate-token: a new 0600 secret that the running server uses at once; the old one is refused", async () => {
    server = await startServer(sb);
    const old = server.token;
    expect((await post(server.port, "/hook/claude", bash("ls"), bearer(old))).status).to.equal(200);
    const rotated = await sb.run(["serve", "--rotate-token"]);
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stdout).to.match(/a new secret is in .*token; the running server \(pid \d+\) uses it now, the old one is refused/);
    expect(rotated.stderr).to.include("QHOOKS_SERVER_TOKEN");
    const fresh = tokenOf(sb);
    expect(fresh).to.not.equal(old);
    expect(fresh).to.have.length.above(32);
    expect(statSync(join(sb.home, ".qhooks", "server", "token")).mode & 0o777).to.equal(0o600);
    expect((await post(server.port, "/hook/claude", bash("ls"), bearer(old))).status).to.equal(401);
    expect((await post(server.port, "/hook/claude", bash("ls"), bearer(fresh))).status).to.equal(200);
    expect(server.stderr()).to.not.include(fresh);
    // The live view hears the same secret: a URL signed with the old one is refused, `qhooks live`'s new one opens.
    expect((await post(server.port, `/live?ticket=${mintTicket(old)}`, "", {}, "GET")).status).to.equal(401);
    const live = await sb.run(["live"]);
    expect(live.code, live.stderr).to.equal(0);
    const path = new URL(live.stdout.trim().split("\n").at(-1)!).pathname + new URL(live.stdout.trim().split("\n").at(-1)!).search;
    expect((await post(server.port, path, "", {}, "GET")).status).to.equal(303);
  });

  it("tokenReader follows a replaced file and keeps the last good secret when the file goes", () => {
    const path = join(sb.root, "secret", "token");
    const first = readOrCreateToken(path);
    const warnings: string[] = [];
    const read = tokenReader(path, first, (w) => warnings.push(w));
    expect(read()).to.equal(first);
    const second = rotateToken(path);
    expect(read()).to.equal(second);
    unlinkSync(path);
    expect(read()).to.equal(second);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/cannot be read .* keeps the secret it had/);
  });
});
