import { hostname, userInfo } from "node:os";
import { expect } from "chai";
import pg from "pg";
import { contentDigest, recordHash } from "../../src/store/journal/hashFormat.js";
import { localOrigin } from "../../src/store/journal/origin.js";
import type { JournalRow } from "../../src/store/journal/record.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { nonEmptyLines, sqlite3 } from "./storeHelpers.js";

/** Issue 27: who and where on every record, covered by the hash (format 5) locally and in the central database. */
describe("the origin of each record (machine, OS user, writer, judging host)", function () {
  this.timeout(120_000);

  it("localOrigin: this machine's host name and this process's OS user", () => {
    expect(localOrigin()).to.deep.equal({ machine: hostname(), user: userInfo().username });
  });

  it("format 5 hashes the origin; format 4 ignores it, so old records keep verifying by their own rules", () => {
    const row = {
      seq: 1,
      ts: "2026-01-01T00:00:00.000Z",
      kind: "event",
      event: "Stop",
      session_id: "s",
      match_value: null,
      project_dir: "/p",
      source: "dispatch",
      ref: null,
      run_id: null,
      config_hash: null,
      name: null,
      status: null,
      decision: null,
      blocked: null,
      duration_ms: null,
      reason: null,
      body: "{}",
      format: 5,
      outcome: null,
      machine: "laptop-a",
      os_user: "ann",
      judged_by: "claude",
    } satisfies Omit<JournalRow, "hash">;
    for (const change of [{ machine: "laptop-b" }, { os_user: "bob" }, { judged_by: "qoder" }, { machine: null }])
      expect(contentDigest({ ...row, ...change }), JSON.stringify(change)).to.not.equal(contentDigest(row));
    const four = { ...row, format: 4 };
    expect(contentDigest({ ...four, machine: "laptop-b", os_user: null })).to.equal(contentDigest(four));
    // A caller building format-4 records without the origin columns (an evidence file) gets the same hash.
    const { machine: _m, os_user: _u, judged_by: _j, ...bare } = four;
    expect(recordHash(bare, "", "log")).to.equal(recordHash(four, "", "log"));
    expect(recordHash(row, "", "log")).to.not.equal(recordHash(four, "", "log"));
  });

  it("a local log: every new record carries its machine and user, a judged event its host; an edited machine fails verify", async () => {
    const sb = new Sandbox();
    try {
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; exit 0", name: "reader" })] } });
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "o" }));
      expect(r.code, r.stderr).to.equal(0);
      const rows = sqlite3(sb.db, "SELECT kind, format, machine, os_user, coalesce(judged_by, '-') FROM journal ORDER BY seq").trim().split("\n");
      const who = `${hostname()}|${userInfo().username}`;
      expect(rows).to.deep.equal([`snapshot|5|${who}|-`, `event|5|${who}|qoder`, `outcome|5|${who}|-`]);
      expect((await sb.run(["verify"])).code).to.equal(0);
      const listed = async (...flags: string[]) => {
        const l = await sb.run(["log", "--json", ...flags]);
        expect(l.code, l.stderr).to.equal(0);
        return (JSON.parse(l.stdout) as unknown[]).length;
      };
      const logId = sqlite3(sb.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim();
      expect(await listed("--machine", hostname(), "--user", userInfo().username, "--writer", logId)).to.equal(1);
      expect(await listed("--machine", "elsewhere")).to.equal(0);
      expect(await listed("--writer", "another-log")).to.equal(0);
      const event = Number(sqlite3(sb.db, "SELECT seq FROM journal WHERE kind = 'event'").trim());
      sqlite3(sb.db, `UPDATE journal SET machine = 'elsewhere' WHERE seq = ${event}`);
      const v = await sb.run(["verify"]);
      expect(v.code).to.equal(3);
      expect(nonEmptyLines(v.stderr)).to.have.length(1);
      expect(v.stderr).to.match(new RegExp(`\\brecord ${event}\\b`));
    } finally {
      await sb.cleanup();
    }
  });

  describe("two HOMEs shipping to one PostgreSQL database", () => {
    let db: TestDatabase;
    const homes: Sandbox[] = [];
    beforeEach(async () => {
      db = await createTestDatabase();
    });
    afterEach(async () => {
      for (const sb of homes.splice(0)) await sb.cleanup();
      await db.drop();
    });

    async function central<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return (await client.query<T>(sql, values)).rows;
      } finally {
        await client.end();
      }
    }

    it("each central record keeps its writer, its number in its origin log and its origin; a machine edited centrally fails verify naming the writer", async () => {
      const ids: string[] = [];
      for (const session of ["a", "b"]) {
        const sb = new Sandbox();
        homes.push(sb);
        const r = await sb.run(["record", "Stop"], { input: JSON.stringify(payloadFor("Stop", { session_id: session })) });
        expect(r.code, r.stderr).to.equal(0);
        const shipped = await sb.run(["ship", "--to", db.url]);
        expect(shipped.code, shipped.stderr).to.equal(0);
        ids.push(sqlite3(sb.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim());
      }
      const rows = await central<{ writer_id: string; seq: string; machine: Buffer; os_user: Buffer; format: number }>(
        "SELECT writer_id, seq, machine, os_user, format FROM qhooks_journal ORDER BY gid",
      );
      expect(rows.map((r) => [r.writer_id, Number(r.seq), r.machine.toString("utf8"), r.os_user.toString("utf8"), r.format])).to.deep.equal(
        ids.map((id) => [id, 1, hostname(), userInfo().username, 5]),
      );
      const verify = await homes[0]!.run(["verify"], { env: { QHOOKS_DB: db.url } });
      expect(verify.code, verify.stderr).to.equal(0);

      // The central log filters by origin.
      const sessions = async (...flags: string[]) => {
        const r = await homes[0]!.run(["log", "--json", ...flags], { env: { QHOOKS_DB: db.url } });
        expect(r.code, r.stderr).to.equal(0);
        return (JSON.parse(r.stdout) as { sessionId: string }[]).map((x) => x.sessionId).sort();
      };
      expect(await sessions("--writer", ids[0]!)).to.deep.equal(["a"]);
      expect(await sessions("--writer", ids[1]!)).to.deep.equal(["b"]);
      expect(await sessions("--machine", hostname())).to.deep.equal(["a", "b"]);
      expect(await sessions("--machine", "elsewhere")).to.deep.equal([]);
      expect(await sessions("--user", userInfo().username, "--writer", ids[1]!)).to.deep.equal(["b"]);
      expect(await sessions("--user", "nobody-here")).to.deep.equal([]);

      await central("UPDATE qhooks_journal SET machine = convert_to('elsewhere', 'UTF8') WHERE writer_id = $1", [ids[1]]);
      const broken = await homes[0]!.run(["verify"], { env: { QHOOKS_DB: db.url } });
      expect(broken.code).to.equal(3);
      expect(nonEmptyLines(broken.stderr)).to.have.length(1);
      expect(broken.stderr)
        .to.include(ids[1])
        .and.match(/\brecord 1\b/);
    });
  });
});
