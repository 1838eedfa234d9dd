import { expect } from "chai";
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { startServer, type RunningServer } from "../../src/server/runServer.js";
import { projectOf } from "../../src/server/projectOf.js";
import { sameToken } from "../../src/server/token.js";
import { Sandbox } from "../support/sandbox.js";
import { bearer, post, tokenOf } from "./serveSupport.js";

/** The server in this process with short request limits: slow and endless clients are cut off, others served. */
describe("qhooks serve: request limits and the project of an event", function () {
  this.timeout(20_000);
  let sb: Sandbox;
  let server: RunningServer;

  beforeEach(async () => {
    sb = new Sandbox();
    server = await startServer({
      homeDir: sb.home,
      env: sb.env(),
      db: sb.db,
      port: 0,
      version: "test",
      limits: { maxBodyBytes: 1024, headersTimeoutMs: 500, requestTimeoutMs: 800 },
      say: () => undefined,
    });
  });
  afterEach(async () => {
    await server.close(1000);
    await sb.cleanup();
  });

  it("cuts off a body that never ends, while another client is answered", async () => {
    const socket = connect(server.port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (c: Buffer) => received.push(c));
    const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now())));
    const started = performance.now();
    socket.write(
      `POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${tokenOf(sb)}\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n{"session_id":`,
    );
    const other = await post(
      server.port,
      "/hook/claude",
      { session_id: "s1", cwd: sb.project, hook_event_name: "Notification", message: "hi" },
      bearer(tokenOf(sb)),
    );
    expect(other.status).to.equal(200);
    const end = await closed;
    expect(end - started).to.be.below(4000);
    expect(Buffer.concat(received).toString("utf8")).to.match(/^HTTP\/1\.1 408/);
  });

  it("refuses a streamed body as soon as it passes the limit", async () => {
    const res = await post(server.port, "/hook/claude", "x".repeat(2000), {
      ...bearer(tokenOf(sb)),
      "Content-Length": undefined,
      "Transfer-Encoding": "chunked",
    });
    expect(res.status).to.equal(413);
  });

  it("finds the project up from cwd, never at the home folder's own .claude", () => {
    sb.file(join(sb.home, ".claude", "settings.json"), {});
    sb.file(join(sb.home, "work", "app", ".claude", "settings.json"), {});
    sb.file(join(sb.home, "work", "app", "src", "x.ts"), "");
    sb.file(join(sb.home, "notes", "a.md"), "");
    expect(projectOf(undefined, join(sb.home, "work", "app", "src"), ".claude", sb.home)).to.deep.equal({ dir: join(sb.home, "work", "app") });
    expect(projectOf(undefined, join(sb.home, "notes"), ".claude", sb.home)).to.deep.equal({ dir: join(sb.home, "notes") });
    expect(projectOf(sb.project, "/", ".claude", sb.home)).to.deep.equal({ dir: sb.project });
    expect(projectOf(undefined, "relative/dir", ".claude", sb.home)).to.match(/no absolute cwd/);
  });

  it("says so when the project is no folder: named, or a cwd with no project folder above it", () => {
    const gone = join(sb.home, "gone", "app");
    expect(projectOf(gone, "/", ".claude", sb.home)).to.equal(`project directory ${gone} does not exist`);
    expect(projectOf(undefined, gone, ".claude", sb.home)).to.equal(`project directory ${gone} does not exist`);
    sb.file(join(sb.home, "plain.txt"), "");
    expect(projectOf(join(sb.home, "plain.txt"), "/", ".claude", sb.home)).to.match(/does not exist$/);
    // Found by its project folder, then removed: the next event sees it gone.
    sb.file(join(sb.home, "work", "app", ".claude", "settings.json"), {});
    expect(projectOf(undefined, join(sb.home, "work", "app"), ".claude", sb.home)).to.deep.equal({ dir: join(sb.home, "work", "app") });
    rmSync(join(sb.home, "work"), { recursive: true });
    expect(projectOf(undefined, join(sb.home, "work", "app"), ".claude", sb.home)).to.equal(`project directory ${join(sb.home, "work", "app")} does not exist`);
  });

  it("compares a presented secret with the secret it is given now, across a change of secret", () => {
    const first = "a".repeat(43);
    const second = "b".repeat(43);
    expect(sameToken(first, first)).to.equal(true);
    expect(sameToken(second, first)).to.equal(false);
    expect(sameToken(second, second)).to.equal(true);
    expect(sameToken(first, second)).to.equal(false);
    expect(sameToken(first, first)).to.equal(true);
    expect(sameToken(`${first}x`, first)).to.equal(false);
  });
});
