import { expect } from "chai";
import { liveGroupCount } from "../../src/exec/processGroups.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { childrenOf, openFdCount, waitFor } from "./processes.js";

/** Many dispatches through one bus leave no file descriptors, child processes or watched groups behind. */
describe("no process or fd leaks", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  it("after ~200 dispatches of a trivial hook, open fds and child processes are back where they started", async function () {
    this.timeout(30_000);
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "cat >/dev/null; echo ok", "echo err >&2; exit 1")] } });
    const bus = sb.bus();
    const payload = { hook_event_name: "PreToolUse", ...payloadFor("PreToolUse", { tool_input: { command: "x".repeat(10_000) } }) };
    // Warm up: the watchdog, the settings watcher and the modules are set up once per process, not per hook.
    for (let i = 0; i < 5; i++) await bus.dispatch(payload);
    const fdsBefore = openFdCount();
    const childrenBefore = childrenOf(process.pid).length;
    const groupsBefore = liveGroupCount();
    const exitListenersBefore = process.listenerCount("exit");

    let n = 0;
    for (let batch = 0; batch < 20; batch++) {
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => bus.dispatch(payload)));
      for (const o of outcomes) {
        expect(o.hooks.map((h) => h.outcome)).to.deep.equal(["success", "error"]);
        n += 1;
      }
    }
    expect(n).to.equal(200);

    const slack = 3;
    await waitFor(`fds back to about ${fdsBefore} (now ${openFdCount()})`, () => openFdCount() <= fdsBefore + slack, 2000);
    await waitFor("no hook processes left", () => childrenOf(process.pid).length <= childrenBefore, 2000);
    expect(liveGroupCount()).to.equal(groupsBefore);
    expect(process.listenerCount("exit"), "no process 'exit' listener per hook").to.equal(exitListenersBefore);
  });

  it("timed-out and cancelled hooks do not leak either", async function () {
    this.timeout(30_000);
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, { command: "sleep 5 & wait", timeout: 0.1 })] } });
    const bus = sb.bus();
    const payload = { hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") };
    await bus.dispatch(payload);
    await waitFor("the warm-up hook's group released", () => liveGroupCount() === 0, 2000);
    const fdsBefore = openFdCount();
    const childrenBefore = childrenOf(process.pid).length;
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => bus.dispatch(payload)));
    expect(outcomes.every((o) => o.hooks[0]!.outcome === "timeout")).to.equal(true);
    await waitFor("every group SIGKILLed and released", () => liveGroupCount() === 0, 2000);
    await waitFor(`fds back to about ${fdsBefore} (now ${openFdCount()})`, () => openFdCount() <= fdsBefore + 3, 2000);
    await waitFor("no hook processes left", () => childrenOf(process.pid).length <= childrenBefore, 2000);
  });
});
