import { expect } from "chai";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SERVE_LOG_MAX_BYTES, rotateIfFull, serveLogWriter } from "../../src/server/serveLog.js";
import { Sandbox } from "../support/sandbox.js";
import { post } from "./serveSupport.js";

/** serve.log: the server's own lines, rotated at 1 MiB with one old file kept. */
describe("qhooks serve: serve.log rotation", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    await sb.run(["serve", "--stop"]);
    await sb.cleanup();
  });

  it("rotates at 1 MiB into FILE.1, keeps only that one old file, and writes 0600", () => {
    const dir = join(sb.root, "logs");
    mkdirSync(dir);
    const path = join(dir, "serve.log");
    const fallback: string[] = [];
    const say = serveLogWriter(path, (l) => fallback.push(l));
    const line = (i: number) => `qhooks serve: refused POST /hook/claude from 127.0.0.1: no secret #${i} ${"x".repeat(60)}`;
    let i = 0;
    while (!existsSync(`${path}.1`)) say(line(i++));
    const firstRotation = i;
    expect(statSync(`${path}.1`).size).to.be.at.most(SERVE_LOG_MAX_BYTES);
    expect(readFileSync(`${path}.1`, "utf8")).to.include(`#0 `);
    expect(readFileSync(path, "utf8")).to.include(`#${firstRotation - 1} `);
    // A second MiB: the old file is replaced, never a third one.
    for (let n = 0; n < firstRotation + 10; n++) say(line(i++));
    expect(readdirSync(dir).sort()).to.deep.equal(["serve.log", "serve.log.1"]);
    expect(readFileSync(`${path}.1`, "utf8")).to.not.include("#0 ");
    expect(statSync(path).size).to.be.at.most(SERVE_LOG_MAX_BYTES);
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(fallback).to.deep.equal([]);
  });

  it("rotateIfFull leaves a file under the limit, and a missing one, alone", () => {
    const path = join(sb.root, "small.log");
    rotateIfFull(path);
    writeFileSync(path, "a\n");
    rotateIfFull(path, 10);
    expect(existsSync(`${path}.1`)).to.equal(false);
    rotateIfFull(path, SERVE_LOG_MAX_BYTES);
    expect(readFileSync(`${path}.1`, "utf8")).to.equal("a\n");
  });

  it("a server started by --ensure writes serve.log itself and rotates it when full", async () => {
    const dir = join(sb.home, ".qhooks", "server");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const filler = `${"old line\n".repeat(Math.floor((SERVE_LOG_MAX_BYTES - 100) / 9))}`;
    writeFileSync(join(dir, "serve.log"), filler, { mode: 0o600 });
    const ensured = await sb.run(["serve", "--ensure", "--json"]);
    expect(ensured.code, ensured.stderr).to.equal(0);
    const port = Number(new URL((JSON.parse(ensured.stdout) as { url: string }).url).port);
    expect((await post(port, "/hook/claude", "{}", {})).status).to.equal(401);
    await sb.run(["serve", "--stop"]);
    expect(readFileSync(join(dir, "serve.log.1"), "utf8"), "the full file, kept as the old one").to.equal(filler);
    const now = readFileSync(join(dir, "serve.log"), "utf8");
    expect(now).to.match(/^\S+Z qhooks serve: listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(now).to.include("refused POST /hook/claude from 127.0.0.1: no secret").and.include("qhooks serve: stopped");
  });
});
