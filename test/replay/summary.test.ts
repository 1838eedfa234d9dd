import { expect } from "chai";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, Sandbox, group } from "../support/sandbox.js";
import { capture, replayJson } from "./harness.js";

/** The replay's summary (hook errors, timeouts), its progress line, and the Stop-loop guard's count. */
describe("qhooks replay: summary, progress and the Stop-loop count", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let matchAll: string;

  before(async () => {
    sb = new Sandbox();
    matchAll = sb.file("all.json", { hooks: { SessionStart: [group(undefined, { name: "noop", command: "true" })] } });
    const tool = (name: string) => JSON.stringify({ session_id: "t", hook_event_name: "PreToolUse", tool_name: name, tool_input: {} });
    await capture(sb, [
      { record: tool("Bash") },
      { record: tool("Read") },
      { record: tool("Write") },
      ...Array.from({ length: 30 }, (_, i) => ({ record: JSON.stringify({ session_id: "p", hook_event_name: "SessionStart", source: `s${i}` }) })),
    ]);
  });
  after(() => sb.cleanup());

  it("counts hook errors and timeouts, in --json and in the text summary", async () => {
    const settings = sb.file("faulty.json", {
      hooks: {
        PreToolUse: [group("Bash", { name: "broken", command: "echo oops >&2; exit 1" }), group("Read", { name: "stuck", command: "sleep 5", timeout: 0.5 })],
      },
    });
    const r = await replayJson(sb, ["--session", "t", "--settings", settings]);
    expect(r.results.map((x) => [x.matchValue, x.after.decision, x.after.hooks])).to.deep.equal([
      ["Bash", "none", ["broken"]],
      ["Read", "none", ["stuck"]],
      ["Write", "none", []],
    ]);
    expect(r).to.include({ events: 3, changed: 0, hookErrors: 1, timeouts: 1 });
    const text = await sb.run(["replay", "--session", "t", "--settings", settings, "--yes"]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.contain("3 events replayed, 0 changed (0 newly blocked, 0 newly allowed); 1 hook errors, 1 timeouts.");
    expect(text.stdout).to.match(/The replayed outcomes are in the log: qhooks log --replay replay-\S+/);
  });

  it("shows a progress line on a terminal, and nothing extra when stderr is not one", async () => {
    const out = join(sb.root, "stdout.txt");
    const command = `'${process.execPath}' '${CLI}' replay --session p --match-only --settings '${matchAll}' > '${out}'`;
    // `script` gives the command a terminal; its own output is what the terminal showed (stderr, here).
    const argv = process.platform === "darwin" ? ["-q", "/dev/null", "/bin/sh", "-c", command] : ["-q", "-e", "-c", command, "/dev/null"];
    const terminal = await new Promise<{ code: number | null; shown: string }>((resolve, reject) => {
      const child = spawn("script", argv, { cwd: sb.project, env: sb.env(), stdio: ["pipe", "pipe", "pipe"] });
      const chunks: Buffer[] = [];
      child.stdout.on("data", (c: Buffer) => chunks.push(c));
      child.stdin.end();
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, shown: Buffer.concat(chunks).toString("utf8") }));
    });
    expect(terminal.code, terminal.shown).to.equal(0);
    expect(terminal.shown).to.contain("30/30 replayed, 0 changed");
    expect(terminal.shown).to.contain("\r\x1b[K");
    const printed = readFileSync(out, "utf8");
    expect(printed).to.contain("30 events matched");
    expect(printed).not.to.contain("\r");

    const piped = await sb.run(["replay", "--session", "p", "--match-only", "--settings", matchAll]);
    expect(piped.code, piped.stderr).to.equal(0);
    expect(piped.stderr).to.equal("");
    const withoutRunId = (text: string) => text.replace(/replay-\d{8}-\d{6}-[0-9a-f]*/g, "RUN");
    expect(withoutRunId(piped.stdout), "the same text on stdout either way").to.equal(withoutRunId(printed));
  });

  it("does not count replayed Stop blocks towards a session's Stop-loop streak", async () => {
    const block = sb.file("block-stop.json", { hooks: { Stop: [group(undefined, { name: "keep-going", command: "echo 'keep going' >&2; exit 2" })] } });
    const stop = JSON.stringify({ session_id: "loop", hook_event_name: "Stop", stop_hook_active: false });
    // 7 live blocks in a row: one short of the default cap of 8.
    await capture(sb, Array(7).fill(stop), { settingsFiles: [block] });
    const r = await replayJson(sb, ["--session", "loop", "--settings", block]);
    expect(r.results.map((x) => x.after.decision)).to.deep.equal(Array(7).fill("block"));
    // The replay added 7 more blocked Stops of this session to the log, apart from live history: the next live
    // block is the 8th in a row, still under the cap, and the 9th is the one the guard lets through.
    const eighth = await sb.run(["run", "Stop", "--settings", block], { input: stop });
    expect(eighth.code, eighth.stdout).to.equal(2);
    const ninth = await sb.run(["run", "Stop", "--settings", block], { input: stop });
    expect(ninth.code, ninth.stderr).to.equal(0);
    expect(JSON.parse(ninth.stdout)).to.include({ decision: "none", blocked: false });
  });
});
