import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, readOnly } from "./storeHelpers.js";

interface SnapshotRow {
  seq: number;
  config_hash: string;
  body: string;
}
const snapshots = (file: string): SnapshotRow[] =>
  readOnly(file, (db) => db.prepare("SELECT seq, config_hash, body FROM journal WHERE kind = 'snapshot' ORDER BY seq").all() as SnapshotRow[]);

/** Contract 1.2, 1.3, 7, 8: each distinct config snapshot is stored once, with the warnings it caused. */
describe("config snapshots and settings warnings in the log", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const settings = (extraHook?: string) => ({
    // Another setting in the same file, which the log must never keep.
    env: { API_TOKEN: "secret-token-123" },
    hooks: {
      PreToolUse: [
        group("Bash", { command: "exit 0", name: "fine" }, ...(extraHook ? [{ command: extraHook, name: "added" }] : [])),
        // One invalid entry: a warning, and only this entry is skipped.
        group("Bash", { command: "echo never", timeout: -5 }),
      ],
    },
  });

  it("three runs under one config: one snapshot row, holding the warning; an edit adds exactly one more", async () => {
    sb.projectSettings(settings());
    const outcomes: Record<string, unknown>[] = [];
    const warningLines = new Set<string>();
    for (const tool of ["Bash", "Bash", "Read"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: tool }));
      expect(r.code, r.stderr).to.equal(0);
      outcomes.push(r.outcome!);
      r.stderr
        .split("\n")
        .filter((l) => l.startsWith("qhooks: warning: "))
        .forEach((l) => warningLines.add(l.slice("qhooks: warning: ".length)));
    }
    // The CLI says it at every call (the same line each time)...
    expect([...warningLines]).to.have.length(1);
    const warning = [...warningLines][0]!;
    expect(warning).to.match(/hooks\.PreToolUse\[1\]\.hooks\[0\]/);
    // ...the log keeps it once, with the snapshot every one of these events was judged by.
    const first = snapshots(sb.db);
    expect(first).to.have.length(1);
    const hash = first[0]!.config_hash;
    expect(outcomes.map((o) => o.configHash)).to.deep.equal([hash, hash, hash]);
    const body = JSON.parse(first[0]!.body) as { document: unknown; warnings: string[] };
    expect(body.warnings).to.deep.equal([warning]);
    expect(JSON.stringify(body.document)).to.include("exit 0");
    expect(first[0]!.body).not.to.include("secret-token-123");
    expect(first[0]!.body).not.to.include("API_TOKEN");
    // Every logged event names its snapshot.
    expect((await logJson(sb)).map((r) => r.configHash)).to.deep.equal([hash, hash, hash]);

    // An edit: a new snapshot, once.
    sb.projectSettings(settings("echo added"));
    for (let i = 0; i < 2; i++) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
      expect(r.code).to.equal(0);
      expect(r.outcome!.configHash).not.to.equal(hash);
    }
    const second = snapshots(sb.db);
    expect(second).to.have.length(2);
    expect(second[0]).to.deep.equal(first[0]);
    const newHash = second[1]!.config_hash;
    expect(newHash).not.to.equal(hash);
    expect(JSON.parse(second[1]!.body).warnings).to.deep.equal([warning]);
    expect(second[1]!.body).to.include("echo added");

    // Back to the first config: it is known already, nothing is added.
    sb.projectSettings(settings());
    const back = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(back.outcome!.configHash).to.equal(hash);
    expect(snapshots(sb.db)).to.deep.equal(second);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("recorded and rejected events carry no snapshot and add none", async () => {
    sb.projectSettings(settings());
    expect((await sb.run(["record", "Stop"], { input: JSON.stringify({ session_id: "r" }) })).code).to.equal(0);
    expect((await sb.runEvent("PreToolUse", { session_id: "r" })).code).to.equal(1);
    expect(snapshots(sb.db)).to.deep.equal([]);
    expect((await logJson(sb)).map((r) => [r.decision, r.configHash])).to.deep.equal([
      ["rejected", null],
      ["recorded", null],
    ]);
  });
});
