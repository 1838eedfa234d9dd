import { expect } from "chai";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { FORWARD_SILENCE_MS } from "../../src/server/forwardTiming.js";
import { proofOf } from "../../src/server/token.js";
import { REPO_ROOT, Sandbox, group } from "../support/sandbox.js";

interface Seen {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

type Answer = { status: number; body: string } | "hang up" | "never" | ((req: IncomingMessage, res: ServerResponse) => void);

/**
 * The gate of the `qhooks` command (src/cli/bin.cts): the real binary, before its CLI loads, hands `run --format hook`
 * to whatever the state file names, here a stand-in server of the test's own that proves the secret as the server
 * does (or, as a squatter, does not), and prints its reply; anything but a reply leaves the run to the CLI, with
 * stdin intact, and a failure of the server says one warning line.
 */
describe("qhooks bin: the forward gate", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let fake: Server;
  let seen: Seen[];
  /** Every byte the stand-in received, to look for the secret in. */
  let wire: string;
  let answer: (req: IncomingMessage) => Answer;
  /** What the stand-in answers to GET /health: the server's proof unless a test makes it a squatter. */
  let health: (challenge: string, port: number) => { status: number; body: string };
  const token = "t".repeat(43);
  const pkgVersion = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
  const payload = JSON.stringify({ session_id: "s1", transcript_path: "/tmp/t", cwd: "/", tool_name: "Bash", tool_input: { command: "rm -rf /x" } });
  let settings: string;
  const serverDir = () => join(sb.home, ".qhooks", "server");
  const pointAt = (port: number) =>
    writeFileSync(join(serverDir(), "serve.json"), JSON.stringify({ port, pid: process.pid, version: "1.0.0", startedAt: null, uid: null }));
  const realHealth = (challenge: string, port: number) => ({
    status: 200,
    body: JSON.stringify({ service: "qhooks serve", pid: process.pid, version: pkgVersion, port, startedAt: "", uid: null, proof: proofOf(token, challenge) }),
  });

  beforeEach(async () => {
    sb = new Sandbox();
    seen = [];
    wire = "";
    answer = () => ({ status: 409, body: "not mine\n" });
    health = realHealth;
    fake = createServer((req, res) => {
      const port = (fake.address() as AddressInfo).port;
      if (req.url === "/health") {
        const h = health(String(req.headers["x-qhooks-challenge"]), port);
        res.writeHead(h.status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(h.body) });
        return void res.end(h.body);
      }
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({
          url: req.url ?? "",
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        });
        const a = answer(req);
        if (a === "hang up") return void req.socket.destroy();
        if (a === "never") return;
        if (typeof a === "function") return a(req, res);
        res.writeHead(a.status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(a.body) });
        res.end(a.body);
      });
    });
    fake.on("connection", (socket: Socket) => socket.on("data", (c: Buffer) => void (wire += c.toString("latin1"))));
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    mkdirSync(serverDir(), { recursive: true, mode: 0o700 });
    writeFileSync(join(serverDir(), "token"), `${token}\n`, { mode: 0o600 });
    pointAt((fake.address() as AddressInfo).port);
    const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'judged here' >&2; exit 2; }; exit 0`);
    settings = sb.file("guards.json", { hooks: { PreToolUse: [group("Bash", guard)] } });
  });
  afterEach(async () => {
    fake.closeAllConnections();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
    await sb.cleanup();
  });

  const run = (extra: readonly string[] = [], env: Record<string, string> = {}) =>
    sb.run(["run", "PreToolUse", "--settings", settings, ...extra], { input: payload, env });

  it("prints the server's reply as it is and exits with its status; the request carries the secret, stdin and environment", async () => {
    answer = () => ({
      status: 200,
      body: JSON.stringify({ early: "qhooks: warning: w\n", stdout: '{"decision":"block"}', blockIfUndelivered: "r", stderr: "after", exitCode: 2 }),
    });
    const res = await run(["--format", "hook"], { MARK: "m" });
    expect({ code: res.code, stdout: res.stdout, stderr: res.stderr }).to.deep.equal({
      code: 2,
      stdout: '{"decision":"block"}\n',
      stderr: "qhooks: warning: w\nafter\n",
    });
    expect(seen).to.have.length(1);
    expect(seen[0]!.url).to.equal("/run");
    expect(seen[0]!.authorization).to.equal(`Bearer ${token}`);
    expect(seen[0]!.body).to.deep.include({ event: "PreToolUse", stdin: payload, settings: [settings], homeDir: sb.home, cwd: sb.project });
    expect((seen[0]!.body.env as Record<string, string>).MARK).to.equal("m");
  });

  it("409 (not the caller's server): the run is judged in its own process, from the same stdin, without a word", async () => {
    const res = await run(["--format", "hook"]);
    expect(seen).to.have.length(1);
    expect({ code: res.code, stderr: res.stderr }).to.deep.equal({ code: 2, stderr: "judged here\n" });
  });

  /** The one warning line a failed forward says, then what the run judged here says. */
  const warnedThenJudged = (stderr: string): string => {
    const [first, ...rest] = stderr.split("\n");
    expect(rest.join("\n"), stderr).to.equal("judged here\n");
    expect(first).to.match(/^qhooks: warning: /);
    return first!;
  };

  for (const [name, reply, said] of [
    ["a 200 that is no reply", () => ({ status: 200, body: '{"stdout":1}' }), /answered this run with HTTP 200 and no reply to print; it is judged here$/],
    ["a server that hangs up on the run", () => "hang up" as const, /closed the connection before taking this run; it is judged here$/],
  ] as const) {
    it(`${name}: judged in its own process, from the same stdin, with one warning line`, async () => {
      answer = reply;
      const res = await run(["--format", "hook"]);
      expect(seen).to.have.length(1);
      expect(res.code).to.equal(2);
      expect(warnedThenJudged(res.stderr)).to.match(said);
    });
  }

  it("a server that takes the run and never answers: judged here within a coarse bound, one warning line", async () => {
    answer = () => "never";
    const res = await run(["--format", "hook"]);
    expect(seen).to.have.length(1);
    expect(res.code).to.equal(2);
    expect(warnedThenJudged(res.stderr)).to.match(/said nothing for 5 s before taking this run; it is judged here$/);
    expect(res.ms, "given up after the silence bound, not waited on forever")
      .to.be.at.least(FORWARD_SILENCE_MS)
      .and.below(FORWARD_SILENCE_MS + 20_000);
  });

  it("a server that dies mid-answer after it began judging: judged here, the warning says its hooks may run twice", async () => {
    answer = () => (_req, res) => {
      res.writeProcessing();
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": 500 });
      res.write('{"early":"","stdout":');
      setTimeout(() => res.socket?.destroy(), 50);
    };
    const res = await run(["--format", "hook"]);
    expect(seen).to.have.length(1);
    expect(res.code).to.equal(2);
    expect(warnedThenJudged(res.stderr)).to.match(
      /closed the connection while judging this run; it is judged here again, so hooks the server had started may run twice$/,
    );
  });

  it("a server whose heartbeat stops while it judges: judged here after the silence bound, hooks may run twice", async () => {
    answer = () => (_req, res) => res.writeProcessing();
    const res = await run(["--format", "hook"]);
    expect(res.code).to.equal(2);
    expect(warnedThenJudged(res.stderr)).to.match(/said nothing for 5 s while judging this run; it is judged here again/);
    expect(res.ms).to.be.below(FORWARD_SILENCE_MS + 20_000);
  });

  it("a heartbeat keeps the client waiting past the silence bound: the late reply is the answer", async () => {
    answer = () => (_req, res) => {
      res.writeProcessing();
      const beat = setInterval(() => res.writeProcessing(), 1000);
      setTimeout(() => {
        clearInterval(beat);
        const body = JSON.stringify({ early: "", stdout: null, blockIfUndelivered: null, stderr: "late but said", exitCode: 0 });
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
        res.end(body);
      }, FORWARD_SILENCE_MS + 2000);
    };
    const res = await run(["--format", "hook"]);
    expect({ code: res.code, stderr: res.stderr }).to.deep.equal({ code: 0, stderr: "late but said\n" });
  });

  for (const [name, squat] of [
    [
      "answers the challenge without a proof",
      (_c: string, port: number) => ({ status: 200, body: JSON.stringify({ service: "qhooks serve", pid: process.pid, version: pkgVersion, port }) }),
    ],
    [
      "answers with a proof under another secret",
      (c: string, port: number) => ({ status: 200, body: realHealth(c, port).body.replace(proofOf(token, c), proofOf("s".repeat(43), c)) }),
    ],
    [
      "replays the proof of another pid",
      (c: string, port: number) => ({ status: 200, body: realHealth(c, port).body.replace(`"pid":${process.pid}`, '"pid":1') }),
    ],
    ["asks for the secret (401)", () => ({ status: 401, body: "send the secret" })],
  ] as const) {
    it(`a process squatting the port that ${name} never gets the secret nor the run; judged here, one warning`, async () => {
      health = squat;
      const res = await run(["--format", "hook"]);
      expect(seen, "no run was sent").to.deep.equal([]);
      expect(wire).to.match(/^GET \/health HTTP\/1\.1\r\n/);
      expect(wire).to.not.include(token);
      expect(res.code).to.equal(2);
      expect(warnedThenJudged(res.stderr)).to.match(/did not prove it is qhooks serve \(.+\); the secret was not sent, and this run is judged here$/);
    });
  }

  it("a squatter that accepts and says nothing gets no secret; judged here within a coarse bound, one warning", async () => {
    let heard = "";
    const squatter = createNetServer((socket) => socket.on("data", (c: Buffer) => void (heard += c.toString("latin1"))));
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
    try {
      pointAt((squatter.address() as AddressInfo).port);
      const res = await run(["--format", "hook"]);
      expect(heard).to.match(/^GET \/health /);
      expect(heard).to.not.include(token);
      expect(res.code).to.equal(2);
      expect(warnedThenJudged(res.stderr)).to.match(/no answer to the challenge within 2 s/);
      expect(res.ms).to.be.below(20_000);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it("a proven server of another qhooks version gets no run and no secret, and says nothing", async () => {
    health = (c, port) => ({ status: 200, body: realHealth(c, port).body.replace(`"version":"${pkgVersion}"`, '"version":"0.0.1"') });
    const res = await run(["--format", "hook"]);
    expect(seen).to.deep.equal([]);
    expect(wire).to.not.include(token);
    expect({ code: res.code, stderr: res.stderr }).to.deep.equal({ code: 2, stderr: "judged here\n" });
  });

  it("nothing is forwarded without --format hook, under QHOOKS_NO_FORWARD=1, or for another command", async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ early: "", stdout: null, blockIfUndelivered: null, stderr: null, exitCode: 0 }) });
    expect((await run()).code).to.equal(2);
    expect((await run(["--format", "hook"], { QHOOKS_NO_FORWARD: "1" })).stderr).to.equal("judged here\n");
    expect((await sb.run(["hooks", "--settings", settings, "--format", "hook"])).code).to.not.equal(null);
    expect(seen).to.deep.equal([]);
  });
});
