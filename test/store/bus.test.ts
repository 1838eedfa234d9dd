import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, waitFor } from "./storeHelpers.js";

/** The embedded bus (contract 6) appends to the same log, through the same port, as `qhooks run`. */
describe("the library bus and the log", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let holder: ChildProcessWithoutNullStreams | null = null;

  beforeEach(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo 'not with the bus' >&2; exit 2", name: "guard" })] } });
  });
  afterEach(async () => {
    if (holder && holder.exitCode === null) holder.kill("SIGKILL");
    holder = null;
    await sb.cleanup();
  });

  it("dispatches are logged with their seq, readable by qhooks log, in a valid chain", async () => {
    const bus = sb.bus({ db: sb.db, watch: false });
    const blocked = await bus.dispatch(payloadFor("PreToolUse", { session_id: "lib", hook_event_name: "PreToolUse" }));
    const passed = await bus.dispatch(payloadFor("PreToolUse", { session_id: "lib", tool_name: "Read", hook_event_name: "PreToolUse" }));
    const rejection = await bus.dispatch({ session_id: "lib", hook_event_name: "PreToolUse" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(rejection).to.be.instanceOf(Error);
    expect((rejection as Error).message).to.match(/tool_input/);
    await bus.close();
    expect(blocked).to.include({ decision: "deny", blocked: true });
    const records = await logJson(sb);
    expect(records.map((r) => [r.seq, r.decision, r.source])).to.deep.equal([
      [records[0]!.seq, "rejected", "dispatch"],
      [passed.seq, "none", "dispatch"],
      [blocked.seq, "deny", "dispatch"],
    ]);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("waiting for a write lock held by another process does not freeze the event loop", async () => {
    const bus = sb.bus({ db: sb.db, watch: false });
    // Another process takes the write lock and keeps it.
    holder = spawn("sqlite3", [sb.db], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    holder.stdout.on("data", (c: Buffer) => (out += c.toString()));
    holder.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n");
    await waitFor("the other process to hold the lock", () => out.includes("locked"));

    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    let settled = false;
    const dispatched = bus.dispatch(payloadFor("PreToolUse", { session_id: "locked-out", hook_event_name: "PreToolUse" })).finally(() => (settled = true));
    try {
      // Timers keep firing while the append waits for the lock...
      await waitFor("timers to run while the append waits", () => ticks >= 20, 4_000, 10);
      // ...and the append really is waiting.
      expect(settled, "dispatch finished while the log was locked").to.equal(false);
    } finally {
      clearInterval(ticker);
      holder.stdin.end("COMMIT;\n.quit\n");
    }
    const outcome = await dispatched;
    expect(outcome).to.include({ decision: "deny", blocked: true });
    expect(outcome.seq).to.be.a("number");
    expect(outcome.warnings).to.deep.equal([]);
    await bus.close();
    const records = await logJson(sb);
    expect(records.map((r) => [r.seq, r.sessionId, r.decision])).to.deep.equal([[outcome.seq, "locked-out", "deny"]]);
  });
});
