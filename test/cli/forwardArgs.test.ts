import { expect } from "chai";
import { parseForwardArgs } from "../../src/cli/forwardArgs.js";
import { requestOf } from "../../src/cli/forwardClient.js";
import { takeResponse } from "../../src/cli/forwardWire.js";

describe("forward client: which command lines are forwarded", () => {
  const base = ["run", "PreToolUse", "--format", "hook"];

  it("reads the event, the options the server reproduces, and global options before or after run", () => {
    expect(
      parseForwardArgs([
        "--db",
        "/tmp/e.db",
        "run",
        "BeforeTool",
        "--format=hook",
        "--settings",
        "a.json",
        "--settings=b.json",
        "--plugin",
        "/p",
        "--no-log",
        "--no-hooks",
        "--fail-closed",
        "--ensure-server",
        "--dialect",
        "gemini",
        "--project-dir=/proj",
        "--color",
        "never",
      ]),
    ).to.deep.equal({
      event: "BeforeTool",
      settings: ["a.json", "b.json"],
      plugins: ["/p"],
      log: false,
      hooks: false,
      failClosed: true,
      globals: { db: "/tmp/e.db", projectDir: "/proj", dialect: "gemini" },
    });
    expect(parseForwardArgs([...base, "--host", "claude"])).to.deep.include({ log: true, hooks: true, failClosed: false, globals: { host: "claude" } });
  });

  it("leaves to the CLI what is not a forwardable run --format hook", () => {
    for (const words of [
      ["run", "PreToolUse"], // json format
      ["run", "PreToolUse", "--format", "json"],
      ["run", "PreToolUse", "--format", "json", "--format", "hook"], // the last wins for commander: left to it all the same
      ["log", "--format", "hook"],
      ["run", "--format", "hook"], // no event
      ["run", "PreToolUse", "extra", "--format", "hook"],
      ["run", "PreToolUse", "--format", "hook", "--help"],
      ["run", "PreToolUse", "--format", "hook", "-V"],
      ["run", "PreToolUse", "--format", "hook", "--unknown"],
      ["run", "PreToolUse", "--format", "hook", "--settings"], // value missing
      ["run", "PreToolUse", "--format", "hook", "--settings", "--no-log"],
      ["run", "PreToolUse", "--format", "hook", "--settings="],
      ["run", "PreToolUse", "--format", "hook", "--color", "pink"],
      ["run", "PreToolUse", "--format", "hook", "--"],
      ["PreToolUse", "run", "--format", "hook"],
    ]) {
      expect(parseForwardArgs(words), words.join(" ")).to.equal(null);
    }
  });

  it("requestOf: the caller's words, environment (strings only), home, working directory, version and stdin", () => {
    const args = parseForwardArgs(base)!;
    const request = requestOf(args, { A: "1", B: undefined }, "/home/u", '{"x":1}');
    expect(request).to.deep.include({ event: "PreToolUse", homeDir: "/home/u", cwd: process.cwd(), env: { A: "1" }, stdin: '{"x":1}' });
    expect(request.version).to.match(/^\d+\.\d+\.\d+/);
  });

  it("takeResponse: status, body and what follows of a complete answer; incomplete until it is; null for a strange one", () => {
    const ok = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}');
    const taken = (raw: Buffer) => {
      const r = takeResponse(raw);
      return r === null || r === "incomplete" ? r : { status: r.status, body: r.body, rest: r.rest.toString("latin1") };
    };
    expect(taken(ok)).to.deep.equal({ status: 200, body: '{"a":1}', rest: "" });
    expect(taken(Buffer.from("HTTP/1.1 409 Conflict\r\nContent-Length: 3\r\n\r\nno\nHTTP"))).to.deep.equal({ status: 409, body: "no\n", rest: "HTTP" });
    // The server's heartbeat: an interim answer with no body, the final one after it.
    expect(taken(Buffer.concat([Buffer.from("HTTP/1.1 102 Processing\r\n\r\n"), ok]))).to.deep.equal({ status: 102, body: "", rest: ok.toString("latin1") });
    expect(taken(ok.subarray(0, ok.length - 1)), "cut").to.equal("incomplete");
    expect(taken(ok.subarray(0, 10)), "a head cut").to.equal("incomplete");
    expect(taken(Buffer.alloc(0))).to.equal("incomplete");
    expect(taken(Buffer.from("HTTP/1.1 200 OK\r\n\r\n{}")), "no length").to.equal(null);
    expect(taken(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n")), "not HTTP").to.equal(null);
    expect(taken(Buffer.from("SSH-2.0")), "not HTTP from its first bytes").to.equal(null);
  });
});
