import { expect } from "chai";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Sandbox, group } from "../support/sandbox.js";

interface Seen {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

/**
 * The gate of the `qhooks` command (src/cli/bin.cts): the real binary, before its CLI loads, hands `run --format hook`
 * to whatever the state file names, here a stand-in server of the test's own, and prints its reply; anything but a
 * reply leaves the run to the CLI, with stdin intact.
 */
describe("qhooks bin: the forward gate", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let fake: Server;
  let seen: Seen[];
  let answer: (req: IncomingMessage) => { status: number; body: string } | "hang up";
  const token = "t".repeat(43);
  const payload = JSON.stringify({ session_id: "s1", transcript_path: "/tmp/t", cwd: "/", tool_name: "Bash", tool_input: { command: "rm -rf /x" } });
  let settings: string;

  beforeEach(async () => {
    sb = new Sandbox();
    seen = [];
    answer = () => ({ status: 409, body: "not mine\n" });
    fake = createServer((req, res) => {
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
        res.writeHead(a.status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(a.body) });
        res.end(a.body);
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const dir = join(sb.home, ".qhooks", "server");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "token"), `${token}\n`, { mode: 0o600 });
    const port = (fake.address() as AddressInfo).port;
    writeFileSync(join(dir, "serve.json"), JSON.stringify({ port, pid: process.pid, version: "1.0.0", startedAt: null, uid: null }));
    const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'judged here' >&2; exit 2; }; exit 0`);
    settings = sb.file("guards.json", { hooks: { PreToolUse: [group("Bash", guard)] } });
  });
  afterEach(async () => {
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

  for (const [name, reply] of [
    ["409 (not the caller's server)", () => ({ status: 409, body: "no\n" })],
    ["a 200 that is no reply", () => ({ status: 200, body: '{"stdout":1}' })],
    ["a server that hangs up", () => "hang up" as const],
  ] as const) {
    it(`${name}: the run is judged in its own process, from the same stdin`, async () => {
      answer = reply;
      const res = await run(["--format", "hook"]);
      expect(seen).to.have.length(1);
      expect({ code: res.code, stderr: res.stderr }).to.deep.equal({ code: 2, stderr: "judged here\n" });
    });
  }

  it("nothing is forwarded without --format hook, under QHOOKS_NO_FORWARD=1, or for another command", async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ early: "", stdout: null, blockIfUndelivered: null, stderr: null, exitCode: 0 }) });
    expect((await run()).code).to.equal(2);
    expect((await run(["--format", "hook"], { QHOOKS_NO_FORWARD: "1" })).stderr).to.equal("judged here\n");
    expect((await sb.run(["hooks", "--settings", settings, "--format", "hook"])).code).to.not.equal(null);
    expect(seen).to.deep.equal([]);
  });
});
