import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";
import { journalCount, sqlite3 } from "./storeHelpers.js";

/**
 * qhooks erase and qhooks prune on real log files, through the real binary: what verify says afterwards, what it
 * catches when someone goes further by hand, and both while another process keeps writing.
 */
describe("qhooks erase and qhooks prune", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  async function seed(words: readonly string[], session = "s1") {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; echo 'checked' >&2; exit 0", name: "reader" })] } });
    for (const word of words) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: session, tool_input: { command: `echo ${word}` } }));
      expect(r.code, r.stderr).to.equal(0);
    }
  }
  const verify = () => sb.run(["verify"]);

  it("erase: the content goes from the file, verify reports the records as erased; editing an erased record by hand is still caught", async () => {
    await seed(["alpha-ssn-123", "beta", "gamma"]);
    const r = await sb.run(["erase", "--pattern", "alpha-ssn-123", "--why", "a person asked"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal("Erased the content of 1 event (2 records); qhooks verify reports them as erased.\n");
    expect(sqlite3(sb.db, "SELECT count(*) FROM journal WHERE instr(body, 'alpha-ssn-123') OR instr(coalesce(outcome, ''), 'alpha-ssn-123')").trim()).to.equal(
      "0",
    );
    const v = await verify();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.match(/^ok: \d+ records \(2 erased\)\n$/);
    const json = JSON.parse((await sb.run(["log", "--json", "--limit", "all"])).stdout) as { payload: unknown; decision: string }[];
    // Still an object: `jq .payload.tool_input` reads null, not an error.
    expect(json.map((e) => e.payload)).to.deep.include({ erased: true, hook_event_name: "PreToolUse", session_id: "s1", tool_name: "Bash" });
    expect(json.every((e) => e.payload !== null && typeof e.payload === "object")).to.equal(true);
    expect(json.every((e) => e.decision === "none" || e.decision === "allow")).to.equal(true);
    // The erased record's session id changed by hand: its content digest no longer matches.
    const erasedSeq = sqlite3(sb.db, "SELECT ref FROM journal WHERE kind = 'erasure' ORDER BY seq LIMIT 1").trim();
    sqlite3(sb.db, `UPDATE journal SET session_id = 'other' WHERE seq = ${erasedSeq}`);
    const bad = await verify();
    expect(bad.code).to.equal(3);
    expect(bad.stderr).to.contain(`record ${erasedSeq}`);
  });

  it("erase: exactly one selector; a log that does not exist is not created", async () => {
    await seed(["one"]);
    for (const args of [[], ["--seq", "1", "--session", "s1"], ["--seq", "x"]]) {
      const r = await sb.run(["erase", ...args]);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stderr.trim().split("\n")).to.have.length(1);
    }
    const missing = await sb.run(["--db", join(sb.root, "none.db"), "erase", "--seq", "1"]);
    expect(missing.code).to.equal(1);
  });

  it("prune: a log whose oldest records are old loses them; verify says from where; settings give the default", async () => {
    const script = `
      const { openSqliteLog } = await import(${JSON.stringify(join(REPO_ROOT, "dist/src/store/sqlite/sqliteEventLog.js"))});
      const log = openSqliteLog(${JSON.stringify(sb.db)});
      const ts = new Date(Date.now() - 365 * 86400_000);
      const entries = Array.from({ length: 3000 }, (_, i) => ({ kind: "event", ts, source: "record", event: "Stop", sessionId: "old", matchValue: null, projectDir: "/p", payload: JSON.stringify({ session_id: "old", pad: "x".repeat(400), i }), snapshot: null, rejection: null, replay: null, outcome: null }));
      await log.append(entries);
      await log.close();`;
    await runNode(script);
    await seed(["new"], "s2");
    const sizeBefore = statSync(sb.db).size;
    const none = await sb.run(["prune"]);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.contain("--before 90d");
    sb.userSettings({ qhooks: { retention: "90d" } });
    const r = await sb.run(["prune", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const result = JSON.parse(r.stdout) as { records: number; events: number; from: number; bytesBefore: number; bytesAfter: number };
    expect(result).to.include({ records: 3000, events: 3000, from: 3001 });
    expect(statSync(sb.db).size, "the file shrinks").to.be.below(sizeBefore / 3);
    const v = await verify();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.match(/^ok: \d+ records \(from record 3001: older records were pruned\)\n$/);
    expect(JSON.parse((await sb.run(["sessions", "--json"])).stdout).map((s: { sessionId: string }) => s.sessionId)).to.deep.equal(["s2"]);
    // One more record deleted by hand: the chain no longer starts at its anchor.
    sqlite3(sb.db, "DELETE FROM journal WHERE seq = 3001");
    const bad = await verify();
    expect(bad.code).to.equal(3);
    expect(bad.stderr).to.contain("record 3001 is missing");
  });

  it("erase and prune while another process keeps appending: nothing is lost beyond what was asked, the chain verifies", async () => {
    await seed(["erase-me", "old-one"]);
    const writer = runNode(`
      const { openSqliteLog } = await import(${JSON.stringify(join(REPO_ROOT, "dist/src/store/sqlite/sqliteEventLog.js"))});
      const log = openSqliteLog(${JSON.stringify(sb.db)});
      for (let i = 0; i < 400; i++) {
        await log.append([{ kind: "event", ts: new Date(Date.now() + 60_000), source: "record", event: "Stop", sessionId: "writer", matchValue: null, projectDir: "/p", payload: JSON.stringify({ session_id: "writer", i }), snapshot: null, rejection: null, replay: null, outcome: null }]);
        await new Promise((r) => setTimeout(r, 2));
      }
      await log.close();`);
    const [erased, pruned] = [await sb.run(["erase", "--pattern", "erase-me"]), await sb.run(["prune", "--before", "now"])];
    await writer;
    expect(erased.code, erased.stderr).to.equal(0);
    expect(pruned.code, pruned.stderr).to.equal(0);
    expect(Number(sqlite3(sb.db, "SELECT count(*) FROM journal WHERE kind = 'event' AND session_id = 'writer'").trim())).to.equal(400);
    expect(journalCount(sb.db)).to.be.greaterThan(400);
    const v = await verify();
    expect(v.code, v.stdout + v.stderr).to.equal(0);
  });
});

function runNode(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`node exited ${code}: ${stderr}`))));
  });
}
