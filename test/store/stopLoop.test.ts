import { expect } from "chai";
import { Sandbox, group } from "../support/sandbox.js";
import { logJson, qhooksLines } from "./storeHelpers.js";

/**
 * Contract 3.3 and 8, the Stop-loop guard: after `QHOOKS_STOP_BLOCK_CAP` (default 8) consecutive blocked Stop
 * outcomes of a session, the next block becomes `none` with a system message, so that a Stop hook that forgets
 * `stop_hook_active` cannot trap the agent.
 */
describe("the Stop-loop guard", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    // Blocks every Stop, unless the payload asks to be let through (to make a non-blocked Stop on demand).
    const hook = sb.script("keep-going.sh", `if grep -q '"let_me_stop":true'; then exit 0; fi\necho "tests still failing" >&2\nexit 2`);
    sb.projectSettings({ hooks: { Stop: [group(undefined, { command: hook, name: "keep-going" })] } });
  });
  afterEach(() => sb.cleanup());

  const stop = (session: string, options: { letMeStop?: boolean; args?: string[]; env?: Record<string, string> } = {}) =>
    sb.runEvent("Stop", { session_id: session, ...(options.letMeStop ? { let_me_stop: true } : {}) }, options.args ?? [], options.env ?? {});

  const isGuardMessage = (m: string) => /Stop-loop guard/.test(m);

  it("converts the 9th consecutive block of a session, not the 8th; other sessions are unaffected", async () => {
    for (let i = 1; i <= 8; i++) {
      const r = await stop("A");
      expect(r.code, `Stop #${i}`).to.equal(2);
      expect(r.outcome, `Stop #${i}`).to.include({ decision: "block", blocked: true, reason: "tests still failing" });
      expect((r.outcome!.systemMessages as string[]).filter(isGuardMessage), `Stop #${i}`).to.deep.equal([]);
    }
    // Another session, with its own count, is blocked as usual.
    const other = await stop("B");
    expect(other.code).to.equal(2);
    expect(other.outcome).to.include({ decision: "block" });

    const ninth = await stop("A");
    expect(ninth.code, ninth.stderr).to.equal(0);
    expect(ninth.outcome).to.include({ decision: "none", blocked: false });
    const messages = (ninth.outcome!.systemMessages as string[]).filter(isGuardMessage);
    expect(messages).to.have.length(1);
    expect(messages[0]).to.include("8").and.include("QHOOKS_STOP_BLOCK_CAP").and.include("tests still failing");
    // The hook did block; the guard overruled it, and the record shows both.
    expect((ninth.outcome!.hooks as { outcome: string }[]).map((h) => h.outcome)).to.deep.equal(["block"]);

    // The let-through Stop was not blocked, so the count starts again.
    const tenth = await stop("A");
    expect(tenth.code).to.equal(2);

    const history = await logJson(sb, ["--session", "A", "--event", "Stop"]);
    expect(history.map((r) => r.decision)).to.deep.equal(["block", "none", ...Array(8).fill("block")]);
    expect(history[1]!.seq).to.equal(ninth.outcome!.seq);
    expect(history[1]!.systemMessages.filter(isGuardMessage)).to.have.length(1);
    expect((await logJson(sb, ["--session", "B"])).map((r) => r.decision)).to.deep.equal(["block"]);
  });

  it("QHOOKS_STOP_BLOCK_CAP changes the cap; a non-blocked Stop resets the count; recorded Stops do not count", async () => {
    const env = { QHOOKS_STOP_BLOCK_CAP: "3" };
    const codes: (number | null)[] = [];
    codes.push((await stop("C", { env })).code);
    codes.push((await stop("C", { env })).code);
    codes.push((await stop("C", { env, letMeStop: true })).code); // not blocked: the count starts again
    codes.push((await stop("C", { env })).code);
    codes.push((await stop("C", { env })).code);
    codes.push((await stop("C", { env })).code);
    expect(codes).to.deep.equal([2, 2, 0, 2, 2, 2]);
    // A Stop that is only recorded (never judged) neither counts nor resets.
    expect((await sb.run(["record", "Stop"], { input: JSON.stringify({ session_id: "C" }) })).code).to.equal(0);
    const fourth = await stop("C", { env });
    expect(fourth.code).to.equal(0);
    expect(fourth.outcome).to.include({ decision: "none", blocked: false });
    expect((fourth.outcome!.systemMessages as string[]).filter(isGuardMessage)[0]).to.include("3");
  });

  it("with --no-log the guard is off, and a blocking Stop hook says so in a warning", async () => {
    const env = { QHOOKS_STOP_BLOCK_CAP: "1" };
    // With the log, a cap of 1 lets the second Stop through...
    expect((await stop("D", { env })).code).to.equal(2);
    expect((await stop("D", { env })).code).to.equal(0);
    // ...without it, nothing can count, so every block stands, each time with a warning.
    for (let i = 0; i < 2; i++) {
      const r = await stop("E", { env, args: ["--no-log"] });
      expect(r.code).to.equal(2);
      expect(r.outcome).to.include({ decision: "block", seq: null });
      const lines = qhooksLines(r.stderr);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^qhooks: warning: .*Stop-loop guard is off/);
    }
    expect(await logJson(sb, ["--session", "E"])).to.deep.equal([]);
    // A Stop that is not blocked needs no warning.
    const quiet = await stop("E", { env, args: ["--no-log"], letMeStop: true });
    expect(quiet.code).to.equal(0);
    expect(qhooksLines(quiet.stderr)).to.deep.equal([]);
  });
});
