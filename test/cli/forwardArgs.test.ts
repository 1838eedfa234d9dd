import { expect } from "chai";
import { parseForwardArgs } from "../../src/cli/forwardArgs.js";
import { parseResponse, requestOf } from "../../src/cli/forwardClient.js";

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

  it("parseResponse: status and body of a complete answer; null for a cut or strange one", () => {
    const ok = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}');
    expect(parseResponse(ok)).to.deep.equal({ status: 200, body: '{"a":1}' });
    expect(parseResponse(Buffer.from("HTTP/1.1 409 Conflict\r\nContent-Length: 3\r\n\r\nno\n"))).to.deep.equal({ status: 409, body: "no\n" });
    expect(parseResponse(ok.subarray(0, ok.length - 1)), "cut").to.equal(null);
    expect(parseResponse(Buffer.from("HTTP/1.1 200 OK\r\n\r\n{}")), "no length").to.equal(null);
    expect(parseResponse(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n")), "not HTTP").to.equal(null);
    expect(parseResponse(Buffer.alloc(0))).to.equal(null);
  });
});
