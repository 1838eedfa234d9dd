import { expect } from "chai";
import { Sandbox, group } from "../support/sandbox.js";
import { logJson, qhooksLines } from "./storeHelpers.js";

/**
 * Lone UTF-16 surrogates (JSON carries them as `\ud800`; a program that cuts a string inside an emoji makes them)
 * in every place a payload or a hook can put them: the log stays verifiable, and what it keeps of them is exact
 * where JSON keeps it.
 */
describe("lone surrogates in the log", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const verify = async () => {
    const v = await sb.run(["verify"]);
    expect(v.stderr, "verify").to.equal("");
    expect(v.code, "verify").to.equal(0);
    return v.stdout.trim();
  };

  it("qhooks record of a session id with one: verify passes, then and after more records", async () => {
    // The reproduction: printf '%s' '{"session_id":"s\ud800","source":"startup"}' | qhooks record SessionStart
    expect((await sb.run(["record", "SessionStart"], { input: '{"session_id":"s\\ud800","source":"startup"}' })).code).to.equal(0);
    expect(await verify()).to.equal("ok: 1 records");
    expect((await sb.run(["record", "SessionStart"], { input: '{"session_id":"t","source":"resume\\udfff"}' })).code).to.equal(0);
    expect((await sb.run(["record", "Stop"], { input: '{"session_id":"t"}' })).code).to.equal(0);
    expect(await verify()).to.equal("ok: 3 records");
    const records = await logJson(sb);
    // The payload is JSON: its values come back exactly as sent.
    expect(records.map((r) => (r.payload as { session_id: string }).session_id)).to.deep.equal(["t", "t", "s\ud800"]);
    expect((records[1]!.payload as { source: string }).source).to.equal("resume\udfff");
  });

  it("qhooks run with one in the tool name, and a hook whose JSON reason was cut inside an emoji: verify passes", async () => {
    const cut = sb.script(
      "cut.js",
      `#!/usr/bin/env node\nprocess.stdin.resume();\nprocess.stdin.on("end", () => process.stdout.write(JSON.stringify({ decision: "block", reason: "cut \\ud83d" })));`,
    );
    sb.projectSettings({ hooks: { PreToolUse: [group("*", { command: cut, name: "cutter" })], Stop: [group(undefined, { command: cut, name: "stopper" })] } });
    const pre = await sb.runEvent("PreToolUse", '{"session_id":"s\\ud800","tool_name":"Bash\\udc00","tool_input":{"command":"ls"}}');
    expect(pre.code, pre.stderr).to.equal(2);
    expect(pre.outcome).to.include({ decision: "deny", reason: "cut \ud83d", sessionId: "s\ud800" });
    const stop = await sb.runEvent("Stop", '{"session_id":"s\\ud800"}');
    expect(stop.code).to.equal(2);
    // An event no hook matches, judged in one step.
    sb.projectSettings({ hooks: {} });
    const none = await sb.runEvent("SessionStart", '{"session_id":"s\\ud800","source":"startup\\ud800"}');
    expect(none.code).to.equal(0);
    expect(qhooksLines(pre.stderr + stop.stderr + none.stderr)).to.deep.equal([]);
    expect(await verify()).to.match(/^ok: \d+ records$/);

    // What JSON carries (the outcome, the payload) is exact; the Stop-loop count finds the session again.
    const records = await logJson(sb);
    expect(records.map((r) => [r.event, r.sessionId, r.reason])).to.deep.equal([
      ["SessionStart", "s\ud800", null],
      ["Stop", "s\ud800", "cut \ud83d"],
      ["PreToolUse", "s\ud800", "cut \ud83d"],
    ]);
    expect(records[2]!.hooks[0]).to.include({ name: "cutter", reason: "cut \ud83d" });
    expect((records[2]!.payload as { tool_name: string }).tool_name).to.equal("Bash\udc00");
    expect((await logJson(sb, ["--session", "s\ud800"])).map((r) => r.event)).to.deep.equal(["SessionStart", "Stop", "PreToolUse"]);
  });

  it("the library: a payload string with a raw lone surrogate and an in-process handler's reason with one", async () => {
    const bus = sb.bus({ db: sb.db });
    bus.use("PreToolUse", "*", () => ({ decision: "deny", reason: "half an emoji: \ud83d" }));
    const outcome = await bus.dispatch(`{"session_id":"raw\ud800","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"x\udfff"}}`);
    expect(outcome).to.include({ decision: "deny", reason: "half an emoji: \ud83d" });
    expect(outcome.seq).to.be.a("number");
    await bus.close();
    expect(await verify()).to.match(/^ok: \d+ records$/);
  });
});
