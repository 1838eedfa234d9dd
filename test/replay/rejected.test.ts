import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/** A rejected or erased payload matches a replay's selection like any event: it is reported as not replayable, never dropped. */
describe("qhooks replay: rejected and erased payloads", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("lists a rejected payload of the session as not replayable, in log order, and counts it as skipped", async () => {
    const settings = sb.file("s.json", { hooks: {} });
    expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse"))).code).to.equal(0);
    const bad = await sb.runEvent("PreToolUse", { session_id: "s1", tool_name: "Bash", tool_input: "not an object" });
    expect(bad.code).to.equal(1);

    const r = await sb.run(["replay", "--session", "s1", "--settings", settings, "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout) as {
      events: number;
      skipped: number;
      results: { seq: number; skipped: string | null; changed: boolean; after: { decision: unknown } }[];
    };
    expect(report.events).to.equal(2);
    expect(report.skipped).to.equal(1);
    const [valid, rejected] = report.results;
    expect(valid!.skipped).to.equal(null);
    expect(rejected!.seq).to.be.greaterThan(valid!.seq);
    expect(rejected!.skipped).to.match(/rejected when it arrived .*tool_input: expected an object/);
    expect(rejected!.after.decision).to.equal(null);
    expect(rejected!.changed).to.equal(false);
  });

  it("an erased event (its payload an object naming the erasure) is skipped as erased, not judged as an empty payload", async () => {
    const settings = sb.file("s.json", { hooks: {} });
    expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "echo keep" } }))).code).to.equal(0);
    expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "echo sk-live-9" } }))).code).to.equal(0);
    const erase = await sb.run(["erase", "--pattern", "sk-live-9"]);
    expect(erase.code, erase.stderr).to.equal(0);

    const r = await sb.run(["replay", "--session", "s1", "--settings", settings, "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout) as { events: number; skipped: number; results: { skipped: string | null }[] };
    expect(report).to.deep.include({ events: 2, skipped: 1 });
    expect(report.results.map((x) => x.skipped)).to.deep.equal([null, "its content was erased (qhooks erase)"]);
  });
});
