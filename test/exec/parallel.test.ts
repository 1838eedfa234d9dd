import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** Contract 3: all selected hooks start together; the outcome waits for all; results keep selection order. */
describe("hooks of one event run in parallel", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const pre = () => ({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") });

  it("through the bus: five hooks that each sleep about 1 s finish well under 5 s, in selection order though later ones finish first", async () => {
    // Distinct commands (identical ones run once), each shorter than the one before it.
    const commands = [1.0, 0.9, 0.8, 0.7, 0.6].map((s, i) => `sleep ${s}; echo hook${i}; date +%s%N`);
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", ...commands)] } });
    const start = performance.now();
    const outcome = await sb.bus().dispatch(pre());
    const elapsed = performance.now() - start;
    expect(elapsed, "not one after another (about 4 s)").to.be.below(3000);
    expect(elapsed, "waits for the slowest").to.be.at.least(950);
    expect(outcome.hooks.map((h) => h.command)).to.deep.equal(commands);
    expect(outcome.hooks.map((h) => h.stdout.split("\n")[0])).to.deep.equal(["hook0", "hook1", "hook2", "hook3", "hook4"]);
    const finishedAt = outcome.hooks.map((h) => BigInt(h.stdout.split("\n")[1]!));
    for (let i = 1; i < finishedAt.length; i++) expect(finishedAt[i]! < finishedAt[i - 1]!, `hook${i} finished before hook${i - 1}`).to.equal(true);
  });

  it("through the CLI: hooks from the three levels run together and come out in level, then declaration, order", async () => {
    sb.userSettings({ hooks: { PreToolUse: [group(undefined, "sleep 1; echo u1")] } });
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "sleep 0.8; echo p1", "sleep 0.6; echo p2")] } });
    sb.localSettings({ hooks: { PreToolUse: [group(undefined, "sleep 0.4; echo l1", "sleep 0.2; echo l2")] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.ms).to.be.below(3000);
    const hooks = r.outcome!.hooks as Json[];
    expect(hooks.map((h) => [h.level, (h.stdout as string).trim()])).to.deep.equal([
      ["user", "u1"],
      ["project", "p1"],
      ["project", "p2"],
      ["local", "l1"],
      ["local", "l2"],
    ]);
  });

  it("one hook's block does not cancel its slower siblings", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "echo no >&2; exit 2", "sleep 0.5; echo still-ran")] } });
    const outcome = await sb.bus().dispatch(pre());
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no" });
    expect(outcome.hooks.map((h) => [h.outcome, h.stdout])).to.deep.equal([
      ["block", ""],
      ["success", "still-ran\n"],
    ]);
  });

  it("several events dispatched at once on one bus overlap too", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "sleep 0.6; echo $QHOOKS_SESSION_ID")] } });
    const bus = sb.bus();
    const start = performance.now();
    const outcomes = await Promise.all(["a", "b", "c", "d"].map((id) => bus.dispatch({ ...pre(), session_id: id })));
    expect(performance.now() - start).to.be.below(2000);
    expect(outcomes.map((o) => o.hooks[0]!.stdout)).to.deep.equal(["a\n", "b\n", "c\n", "d\n"]);
  });
});
