import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/**
 * The bus's promises: what one in-process handler returns can cost that handler, never the dispatch (a deny of
 * another handler or hook included); and every close() resolves only when the bus is really closed.
 */
describe("engine: one handler's bad result, and close() called twice", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const pre = () => ({ ...payloadFor("PreToolUse"), hook_event_name: "PreToolUse" });

  it("a throwing getter, a BigInt, a cycle, a throwing toJSON: each is that handler's invalid-output; the deny stands", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo 'hook says no' >&2; exit 2", name: "command-guard" })] } });
    const bus = sb.bus({ watch: false });
    const cycle: Json = { decision: "allow" };
    cycle.self = cycle;
    bus.use(
      "PreToolUse",
      "Bash",
      () => ({
        get decision(): never {
          throw new Error("getter boom");
        },
      }),
      { name: "getter" },
    );
    bus.use("PreToolUse", "Bash", async () => ({ decision: "allow", updatedInput: { n: 10n } }), { name: "bigint" });
    bus.use("PreToolUse", "Bash", () => ({ reason: "x", updatedInput: cycle }), { name: "cycle" });
    bus.use(
      "PreToolUse",
      "Bash",
      () =>
        ({
          toJSON() {
            throw new Error("toJSON boom");
          },
        }) as never,
      { name: "tojson" },
    );
    bus.use("PreToolUse", "Bash", () => ({ decision: "deny", reason: "handler says no" }), { name: "handler-guard" });
    const outcome = await bus.dispatch(pre());
    expect(outcome.decision).to.equal("deny");
    expect(outcome.reason).to.include("handler says no").and.include("hook says no");
    const byName = Object.fromEntries(outcome.hooks.map((h) => [h.name, [h.outcome, h.error]]));
    expect(byName.getter).to.deep.equal(["invalid-output", "returned a value that is not JSON data (getter boom)"]);
    expect(byName.bigint![0]).to.equal("invalid-output");
    expect(byName.bigint![1]).to.match(/^returned a value that is not JSON data \(.*BigInt/);
    expect(byName.cycle![0]).to.equal("invalid-output");
    expect(byName.cycle![1]).to.match(/^returned a value that is not JSON data \(.*circular/i);
    expect(byName.tojson).to.deep.equal(["invalid-output", "returned a value that is not JSON data (toJSON boom)"]);
    expect(byName["handler-guard"]).to.deep.equal(["block", null]);
    expect(byName["command-guard"]).to.deep.equal(["block", null]);
    // The outcome is plain data now: serialising it cannot throw.
    expect(() => JSON.stringify(outcome)).not.to.throw();
  });

  it("a handler's result nested deeper than 512 levels is invalid-output, like a command hook's", async () => {
    const bus = sb.bus({ watch: false });
    let deep: Json = {};
    for (let i = 0; i < 1000; i++) deep = { d: deep };
    bus.use("PreToolUse", "Bash", () => ({ decision: "allow", updatedInput: deep }), { name: "deep" });
    bus.use("PreToolUse", "Bash", () => ({ decision: "deny" }), { name: "guard" });
    const outcome = await bus.dispatch(pre());
    expect(outcome.decision).to.equal("deny");
    expect(outcome.hooks.map((h) => [h.name, h.outcome, h.error])).to.deep.equal([
      ["deep", "invalid-output", "returned data nested deeper than 512 levels"],
      ["guard", "block", null],
    ]);
  });

  it("a second close() resolves only when the dispatch under way has finished and the bus is closed", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "sleep 0.5; exit 2", name: "slow-guard" })] } });
    const bus = sb.bus({ db: sb.db, watch: false });
    const order: string[] = [];
    const dispatched = bus.dispatch(pre()).then((o) => order.push(`dispatch ${o.decision}`));
    // Let the dispatch start its hook before closing.
    await new Promise((r) => setTimeout(r, 100));
    const first = bus.close().then(() => order.push("first close"));
    const second = bus.close().then(() => order.push("second close"));
    await second;
    expect(order, "the second close() waited").to.include("dispatch deny");
    await Promise.all([first, dispatched]);
    expect(order.indexOf("dispatch deny")).to.be.below(order.indexOf("second close"));
    // The log was closed by then: another process sees every record, and the chain verifies.
    const v = await sb.run(["verify"]);
    expect(v.code, v.stderr).to.equal(0);
  });
});
