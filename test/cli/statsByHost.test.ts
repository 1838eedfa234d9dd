import { expect } from "chai";
import { StatsByHostSchema } from "../../src/schema/logRecord.js";
import { Sandbox } from "../support/sandbox.js";

describe("cli: qhooks stats --by host", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /** One shell call as Claude Code sends it and one as Cursor does, each judged under its own host's settings. */
  async function logTwoHosts(): Promise<void> {
    const claude = { session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: sb.project };
    const cursor = { conversation_id: "c1", generation_id: "g1", hook_event_name: "beforeShellExecution", command: "ls", cwd: sb.project };
    for (const [args, payload] of [
      [["run", "PreToolUse", "--host", "claude"], claude],
      [["run", "PreToolUse", "--host", "claude"], { ...claude, session_id: "s2" }],
      [["run", "beforeShellExecution", "--host", "cursor"], cursor],
    ] as const) {
      const r = await sb.run(args, { input: JSON.stringify(payload) });
      expect(r.code, r.stderr).to.equal(0);
    }
  }

  it("--json: one object per host with its counts, checked against its schema, matching stats --host", async () => {
    await logTwoHosts();
    const r = await sb.run(["stats", "--by", "host", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const stats = StatsByHostSchema.parse(JSON.parse(r.stdout));
    expect(stats.events).to.equal(3);
    expect(stats.unattributed).to.equal(0);
    expect(stats.byHost.map((h) => [h.host, h.events])).to.deep.equal([
      ["claude", 2],
      ["cursor", 1],
    ]);
    const cursorOnly = JSON.parse((await sb.run(["stats", "--host", "cursor", "--json"])).stdout);
    expect(stats.byHost[1]!.byEvent).to.deep.equal(cursorOnly.byEvent);
    const filtered = StatsByHostSchema.parse(JSON.parse((await sb.run(["stats", "--by", "host", "--host", "claude", "--json"])).stdout));
    expect(filtered.byHost.map((h) => h.host)).to.deep.equal(["claude"]);
  });

  it("a table with a HOST column, tsv when piped, and one line for a wrong key or --hooks", async () => {
    await logTwoHosts();
    const table = await sb.run(["stats", "--by", "host", "--format", "table"]);
    expect(table.stdout).to.match(/^3 events \(claude 2, cursor 1\)/);
    expect(table.stdout).to.match(/HOST +EVENT +DECISION +COUNT/);
    const tsv = await sb.run(["stats", "--by", "host"]);
    expect(tsv.stdout.trim().split("\n")).to.deep.equal(["HOST\tEVENT\tDECISION\tCOUNT", "claude\tPreToolUse\tnone\t2", "cursor\tPreToolUse\tnone\t1"]);
    const wrong = await sb.run(["stats", "--by", "hots"]);
    expect(wrong.code).to.not.equal(0);
    expect(wrong.stderr.trim()).to.equal('qhooks: --by: expected "host"');
    const both = await sb.run(["stats", "--by", "host", "--hooks"]);
    expect(both.code).to.not.equal(0);
    expect(both.stderr).to.match(/does not combine with --hooks/);
  });

  it("the report's summary counts events by host, most first", async () => {
    await logTwoHosts();
    const r = await sb.run(["report", "-o", "-"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('id="host-totals">By host: <span data-host="claude">claude 2</span>, <span data-host="cursor">cursor 1</span></div>');
  });
});
