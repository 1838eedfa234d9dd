import { expect } from "chai";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { FORWARD_SILENCE_MS } from "../../src/server/forwardTiming.js";
import { ForwardedReplySchema } from "../../src/server/schemas.js";
import { Sandbox, group, payloadFor, type CliResult } from "../support/sandbox.js";
import { bearer, post, startServer, type ForegroundServer } from "./serveSupport.js";

/**
 * `qhooks run --format hook` beside a running `qhooks serve`: forwarded, it gives the same bytes, stderr and exit
 * status as judged in its own process; whenever the server is not there or not the caller's, it judges itself.
 * Which process ran a hook is told by the hook itself: $PPID is the process that started its shell.
 */
describe("qhooks run forwarded to qhooks serve", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let server: ForegroundServer | null;
  let settings: string;
  let ppidFile: string;

  const payload = (command: string) => ({
    session_id: "s1",
    transcript_path: "/tmp/t.jsonl",
    cwd: sb.project,
    ...payloadFor("PreToolUse"),
    tool_input: { command },
  });
  const run = (command: string, env: Record<string, string | undefined> = {}, extra: readonly string[] = []): Promise<CliResult> =>
    sb.run(["run", "PreToolUse", "--format", "hook", "--settings", settings, ...extra], { input: JSON.stringify(payload(command)), env });
  /** The processes the last hook ran under: the server among them when the run was forwarded. */
  const ranUnder = (): number[] => readFileSync(ppidFile, "utf8").trim().split(/\s+/).map(Number);
  const count = async (env: Record<string, string | undefined> = {}): Promise<number> => {
    const res = await sb.run(["log", "--json", "--limit", "1000"], { env });
    return res.code !== 0 ? 0 : (JSON.parse(res.stdout) as unknown[]).length;
  };

  beforeEach(async () => {
    sb = new Sandbox();
    server = null;
    ppidFile = join(sb.root, "ppid");
    const guard = sb.script(
      "guard.sh",
      `p=$$; chain=""; for i in 1 2 3 4 5 6; do chain="$chain $p"; p=$(sed 's/.*) . //; s/ .*//' /proc/$p/stat 2>/dev/null); [ "$p" -gt 1 ] 2>/dev/null || break; done; echo $chain > ${ppidFile}
input=$(cat)
case "$input" in
  *rm\\ -rf*) echo 'no rm -rf here' >&2; exit 2 ;;
  *broken*) echo 'the guard broke' >&2; exit 1 ;;
  *slow*) sleep 5 ;;
  *long*) sleep 7 ;;
  *nap*) sleep 2 ;;
  *ask*) echo '{"systemMessage":"careful","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check it"}}' ;;
esac
exit 0`,
    );
    settings = sb.file("guards.json", { hooks: { PreToolUse: [group("Bash", { command: guard, timeout: 1 })] } });
    server = await startServer(sb);
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sb.cleanup();
  });

  for (const [name, command] of [
    ["an allowed call", "ls"],
    ["a block (exit 2)", "rm -rf /tmp/x"],
    ["a failing hook (exit 1)", "broken"],
    ["a hook that times out", "slow"],
    ["a hook's JSON answer", "ask"],
  ] as const) {
    it(`${name}: the same stdout, stderr and exit status forwarded as in its own process`, async () => {
      const forwarded = await run(command);
      expect(ranUnder(), "the server ran the hook").to.include(server!.child.pid);
      const own = await run(command, { QHOOKS_NO_FORWARD: "1" });
      expect(ranUnder(), "this run's own process ran it").to.not.include(server!.child.pid);
      expect({ code: forwarded.code, stdout: forwarded.stdout, stderr: forwarded.stderr }).to.deep.equal({
        code: own.code,
        stdout: own.stdout,
        stderr: own.stderr,
      });
      // Each run judged once, and both logged in the one log.
      expect(await count()).to.equal(2);
    });
  }

  it("a block's reason and exit 2 as the host reads them, judged once by the server", async () => {
    const res = await run("rm -rf /tmp/x");
    expect(res.code).to.equal(2);
    expect(res.stderr).to.equal("no rm -rf here\n");
    expect(ranUnder()).to.include(server!.child.pid);
    expect(await count()).to.equal(1);
  });

  it("a run judged for longer than the client's silence bound: the server's heartbeat keeps it waiting, judged once", async () => {
    settings = sb.file("patient.json", { hooks: { PreToolUse: [group("Bash", { command: join(sb.root, "scripts", "guard.sh"), timeout: 30 })] } });
    const res = await run("long");
    expect(res.ms).to.be.above(FORWARD_SILENCE_MS);
    expect({ code: res.code, stderr: res.stderr }).to.deep.equal({ code: 0, stderr: "" });
    expect(ranUnder(), "the server ran the hook").to.include(server!.child.pid);
    expect(await count()).to.equal(1);
  });

  it("a caller that stops waiting once the server took its run: the run is judged and logged, and serve.log says so", async () => {
    settings = sb.file("patient.json", { hooks: { PreToolUse: [group("Bash", { command: join(sb.root, "scripts", "guard.sh"), timeout: 30 })] } });
    const body = JSON.stringify({ ...runBody(pkgVersion()), stdin: JSON.stringify(payload("nap")) });
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: server!.port });
      socket.on("error", reject);
      socket.write(
        `POST /run HTTP/1.1\r\nHost: 127.0.0.1:${server!.port}\r\nAuthorization: Bearer ${server!.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // Gone at the first heartbeat: the run is the server's by then.
      socket.once("data", (c: Buffer) => {
        expect(c.toString("latin1")).to.match(/^HTTP\/1\.1 102 Processing\r\n/);
        socket.destroy();
        resolve();
      });
    });
    const deadline = Date.now() + 20_000;
    while (!/the caller stopped waiting before its answer/.test(server!.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(server!.stderr()).to.match(
      /qhooks serve: POST \/run: the caller stopped waiting before its answer and judged the run itself; its hooks may have run twice/,
    );
    expect(await count()).to.equal(1);
  });

  it("a server killed -9 while its hook runs: the run is judged again here, says its hooks may have run twice, both in the log", async () => {
    settings = sb.file("patient.json", { hooks: { PreToolUse: [group("Bash", { command: join(sb.root, "scripts", "guard.sh"), timeout: 30 })] } });
    const running = run("long");
    const deadline = Date.now() + 20_000;
    while (!(existsSync(ppidFile) && ranUnder().includes(server!.child.pid!)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    rmSync(ppidFile);
    server!.child.kill("SIGKILL");
    const res = await running;
    expect(res.code).to.equal(0);
    expect(res.stderr).to.match(
      /^qhooks: warning: the server at 127\.0\.0\.1:\d+ \(pid \d+\) closed the connection while judging this run; it is judged here again, so hooks the server had started may run twice\n$/,
    );
    expect(ranUnder(), "the hook ran again, in the run's own process").to.not.include(server!.child.pid);
    const events = JSON.parse((await sb.run(["log", "--json", "--limit", "10"])).stdout) as { decision: string }[];
    expect(events.map((e) => e.decision).sort(), "the server's attempt, and the event judged here").to.deep.equal(["none", "unfinished"]);
  });

  it("a server killed -9 (its state file left behind): the run is judged in its own process", async () => {
    server!.child.kill("SIGKILL");
    await server!.exited;
    const res = await run("rm -rf /tmp/x");
    expect(res.code).to.equal(2);
    expect(res.stderr).to.equal("no rm -rf here\n");
    expect(ranUnder()).to.not.include(server!.child.pid);
    expect(await count()).to.equal(1);
  });

  it("a stale state file (a live pid that is no server, a port nothing listens on): judged in its own process", async () => {
    server!.child.kill("SIGTERM");
    await server!.exited;
    const state = join(sb.home, ".qhooks", "server", "serve.json");
    const written = JSON.parse(readFileSync(state, "utf8")) as Record<string, unknown>;
    writeFileSync(state, JSON.stringify({ ...written, pid: process.pid }));
    const res = await run("rm -rf /tmp/x");
    expect(res.code).to.equal(2);
    expect(ranUnder()).to.not.include(server!.child.pid);
    expect(await count()).to.equal(1);
  });

  it("another log (QHOOKS_DB): the server is not the caller's, the run judges and logs in its own process", async () => {
    const other = join(sb.root, "other.db");
    const res = await run("rm -rf /tmp/x", { QHOOKS_DB: other });
    expect(res.code).to.equal(2);
    expect(ranUnder()).to.not.include(server!.child.pid);
    expect(await count({ QHOOKS_DB: other })).to.equal(1);
    expect(await count()).to.equal(0);
  });

  it("an option the client does not know is left to the CLI (judged in its own process, same answer)", async () => {
    const res = await run("rm -rf /tmp/x", {}, ["--color", "never"]);
    expect(res.code).to.equal(2);
    expect(ranUnder()).to.include(server!.child.pid);
    const odd = await run("rm -rf /tmp/x", {}, ["--no-such-option"]);
    expect(odd.code).to.equal(1);
    expect(odd.stderr).to.match(/unknown option '--no-such-option'/);
  });

  it("the server's errors before judging stay the CLI's: a missing project directory", async () => {
    const res = await run("ls", {}, ["--project-dir", join(sb.root, "nowhere")]);
    const own = await run("ls", { QHOOKS_NO_FORWARD: "1" }, ["--project-dir", join(sb.root, "nowhere")]);
    expect(res.code).to.equal(1);
    expect({ code: res.code, stderr: res.stderr }).to.deep.equal({ code: own.code, stderr: own.stderr });
    expect(await count()).to.equal(0);
  });

  const pkgVersion = (): string => (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;

  /** What the forwarding client posts for a `run PreToolUse --format hook` of `rm -rf /tmp/x` in the sandbox. */
  const runBody = (version: string) => ({
    version,
    homeDir: sb.home,
    cwd: sb.project,
    env: { PATH: process.env.PATH ?? "", HOME: sb.home, QHOOKS_DB: sb.db },
    event: "PreToolUse",
    settings: [settings],
    plugins: [],
    log: true,
    hooks: true,
    failClosed: false,
    globals: {},
    stdin: JSON.stringify(payload("rm -rf /tmp/x")),
  });

  it("POST /run needs the secret, and refuses a caller of another version with 409 before judging", async () => {
    const body = runBody("0.0.1");
    expect((await post(server!.port, "/run", body)).status).to.equal(401);
    expect((await post(server!.port, "/run", body, bearer("x".repeat(43)))).status).to.equal(401);
    const other = await post(server!.port, "/run", body, bearer(server!.token));
    expect(other.status).to.equal(409);
    expect(other.body).to.match(/the caller 0\.0\.1/);
    expect(await count()).to.equal(0);
  });

  it("POST /run of this version answers the reply the client prints", async () => {
    const res = await post(server!.port, "/run", runBody(pkgVersion()), bearer(server!.token));
    expect(res.status).to.equal(200);
    expect(ForwardedReplySchema.safeParse(JSON.parse(res.body)).success).to.equal(true);
    expect(JSON.parse(res.body)).to.deep.equal({
      early: "",
      stdout: null,
      blockIfUndelivered: "no rm -rf here",
      stderr: "no rm -rf here",
      exitCode: 2,
    });
    expect(await count()).to.equal(1);
  });
});
