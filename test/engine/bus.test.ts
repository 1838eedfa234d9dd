import { expect } from "chai";
import { readFileSync } from "node:fs";
import type { Outcome } from "../../src/schema/outcome.js";
import { hookCommand, markerHook, settingsFor } from "../decisions/helpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

/** Contract 6 and 8 ("Library defaults"): dispatch, outcomes$, rejections and close(). */
describe("engine: the library bus", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const payload = (event: string, extra: Record<string, unknown> = {}) => ({ ...payloadFor(event, extra), hook_event_name: event });
  const settle = <T>(p: Promise<T>) =>
    p.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );

  it("dispatch resolves to the event's outcome", async () => {
    sb.userSettings(settingsFor("PreToolUse", hookCommand(sb, { stderr: "no rm\n", exit: 2 })));
    const outcome = await sb.bus({ watch: false }).dispatch(payload("PreToolUse", { session_id: "bus-1" }));
    expect(outcome).to.include({ event: "PreToolUse", sessionId: "bus-1", decision: "deny", blocked: true, reason: "no rm", seq: null });
    expect(outcome.hooks).to.have.length(1);
  });

  it("accepts the payload as JSON text too", async () => {
    sb.userSettings(settingsFor("Stop", hookCommand(sb, { stderr: "keep going\n", exit: 2 })));
    const outcome = await sb.bus({ watch: false }).dispatch(JSON.stringify(payload("Stop")));
    expect(outcome).to.include({ event: "Stop", decision: "block", reason: "keep going" });
  });

  it("outcomes$ emits each outcome before its dispatch() promise resolves", async () => {
    sb.userSettings({
      hooks: {
        PreToolUse: [group("Slow", "sleep 0.3"), group("Fast", "true")],
        Notification: [group(undefined, "sleep 0.1")],
      },
    });
    const bus = sb.bus({ watch: false });
    const order: string[] = [];
    const emitted: Outcome[] = [];
    bus.outcomes$.subscribe((o) => {
      emitted.push(o);
      order.push(`emit:${o.sessionId}`);
    });
    const dispatches = [
      bus.dispatch(payload("PreToolUse", { session_id: "slow", tool_name: "Slow" })),
      bus.dispatch(payload("PreToolUse", { session_id: "fast", tool_name: "Fast" })),
      bus.dispatch(payload("Notification", { session_id: "note" })),
    ].map((p) => p.then((o) => (order.push(`resolve:${o.sessionId}`), o)));
    const outcomes = await Promise.all(dispatches);
    for (const id of ["slow", "fast", "note"]) {
      expect(order.indexOf(`emit:${id}`), order.join(" ")).to.be.within(0, order.indexOf(`resolve:${id}`) - 1);
    }
    // The same objects: what outcomes$ saw is what dispatch() resolved to.
    for (const o of outcomes) expect(emitted).to.include(o);
    // The fast event did not wait for the slow one.
    expect(order.indexOf("resolve:fast")).to.be.lessThan(order.indexOf("resolve:slow"));
  });

  it("rejects an invalid payload with an Error naming the field, emits nothing, and keeps working", async () => {
    const marker = markerHook(sb);
    sb.userSettings(settingsFor("PreToolUse", marker.command));
    const bus = sb.bus({ watch: false });
    const emitted: Outcome[] = [];
    bus.outcomes$.subscribe((o) => emitted.push(o));
    const bad = await settle(bus.dispatch(payload("PreToolUse", { tool_input: "ls" })));
    expect(bad.ok).to.equal(false);
    expect((bad as { error: unknown }).error).to.be.instanceOf(Error);
    expect((bad as { error: Error }).error.message).to.equal("invalid PreToolUse payload: tool_input: expected an object");
    const missing = await settle(bus.dispatch({ session_id: "s", hook_event_name: "UserPromptSubmit" }));
    expect((missing as { error: Error }).error.message).to.match(/prompt/);
    expect(emitted).to.deep.equal([]);
    expect(marker.ran()).to.equal(false);
    const good = await bus.dispatch(payload("PreToolUse"));
    expect(good.hooks).to.have.length(1);
    expect(marker.ran()).to.equal(true);
    expect(emitted).to.have.length(1);
  });

  it("dispatch() after close() rejects, and close() can be called twice", async () => {
    const bus = sb.bus({ watch: false });
    await bus.dispatch(payload("SessionEnd"));
    await bus.close();
    const late = await settle(bus.dispatch(payload("SessionEnd")));
    expect(late.ok).to.equal(false);
    expect((late as { error: unknown }).error).to.be.instanceOf(Error);
    await bus.close();
  });

  it("close() waits for a dispatch under way, whose hook runs to its end", async () => {
    const marker = markerHook(sb, "slow");
    sb.userSettings(settingsFor("PostToolUse", `sleep 0.5; ${marker.command}; echo finished`));
    const bus = sb.bus();
    const order: string[] = [];
    const pending = bus.dispatch(payload("PostToolUse")).then((o) => (order.push("dispatch resolved"), o));
    await new Promise((r) => setTimeout(r, 100));
    const closing = bus.close().then(() => order.push("close resolved"));
    // A dispatch that arrives while closing is refused; the one under way is not.
    const during = await settle(bus.dispatch(payload("PostToolUse")));
    expect(during.ok).to.equal(false);
    await closing;
    expect(order).to.deep.equal(["dispatch resolved", "close resolved"]);
    const outcome = await pending;
    expect(outcome.hooks[0]).to.include({ outcome: "success", stdout: "finished\n", timedOut: false });
    expect(readFileSync(marker.path, "utf8")).to.equal("ran\n");
  });

  it("close() without dispatches resolves at once, watcher included", async () => {
    sb.userSettings(settingsFor("Stop", "true"));
    const bus = sb.bus({ watch: true });
    const started = performance.now();
    await bus.close();
    expect(performance.now() - started).to.be.lessThan(5000);
  });
});
