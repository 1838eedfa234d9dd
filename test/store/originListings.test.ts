import { hostname, userInfo } from "node:os";
import { expect } from "chai";
import { LogRecordSchema, SessionRowSchema, type LogRecord, type SessionRow, type Stats } from "../../src/schema/logRecord.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { sqlite3 } from "./storeHelpers.js";

/** Issue 27: the listings show each event's origin, and sessions and stats select by it, on both backends. */
describe("origin in the listings: log --json shows it, sessions and stats filter by it", function () {
  this.timeout(120_000);
  const me = userInfo().username;

  it("a local log: sessions and stats (their hook rows too) by machine, user and writer", async () => {
    const sb = new Sandbox();
    try {
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; exit 0", name: "reader" })] } });
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "o" }));
      expect(r.code, r.stderr).to.equal(0);
      const logId = sqlite3(sb.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim();
      const json = async <T>(...args: string[]): Promise<T> => {
        const l = await sb.run([...args, "--json"]);
        expect(l.code, l.stderr).to.equal(0);
        return JSON.parse(l.stdout) as T;
      };
      const [record] = await json<LogRecord[]>("log");
      expect(record!.origin).to.deep.equal({ machine: hostname(), user: me, writer: logId, seq: record!.seq, host: "qoder" });
      const shown = await json<{ origin: unknown }>("show", String(record!.seq));
      expect(shown.origin).to.deep.equal(record!.origin);

      // One laptop, one host: the tables are those they always were, with no origin column.
      for (const listing of ["log", "sessions"]) {
        const table = await sb.run([listing, "--format", "table"]);
        expect(table.code, table.stderr).to.equal(0);
        expect(table.stdout.split("\n")[0]).not.to.match(/HOST|MACHINE|USER|WRITER/);
      }
      const sessions = async (...flags: string[]) => (await json<SessionRow[]>("sessions", ...flags)).map((s) => s.sessionId);
      expect(await sessions("--machine", hostname(), "--user", me, "--writer", logId)).to.deep.equal(["o"]);
      expect(await sessions("--host", "qoder")).to.deep.equal(["o"]);
      expect(await sessions("--host", "claude")).to.deep.equal([]);
      expect(await sessions("--machine", "elsewhere")).to.deep.equal([]);
      expect(await sessions("--writer", "another-log")).to.deep.equal([]);
      const stats = (...flags: string[]) => json<Stats>("stats", ...flags);
      const mine = await stats("--machine", hostname(), "--user", me);
      expect(mine.events).to.equal(1);
      expect(mine.hooks.map((h) => [h.name, h.runs])).to.deep.equal([["reader", 1]]);
      const none = await stats("--user", "nobody-here");
      expect(none).to.include({ events: 0 });
      expect(none.hooks).to.deep.equal([]);
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

    it("log --json gives each event its writer and its number in its origin log; sessions and stats select by writer, machine, user", async () => {
      const ids: string[] = [];
      for (const sessions of [["a"], ["b", "b2"]]) {
        const sb = new Sandbox();
        homes.push(sb);
        for (const session of sessions) {
          const r = await sb.run(["record", "Stop"], { input: JSON.stringify(payloadFor("Stop", { session_id: session })) });
          expect(r.code, r.stderr).to.equal(0);
        }
        const shipped = await sb.run(["ship", "--to", db.url]);
        expect(shipped.code, shipped.stderr).to.equal(0);
        ids.push(sqlite3(sb.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim());
      }
      const central = async <T>(...args: string[]): Promise<T> => {
        const r = await homes[0]!.run([...args, "--json"], { env: { QHOOKS_DB: db.url } });
        expect(r.code, r.stderr).to.equal(0);
        return JSON.parse(r.stdout) as T;
      };
      const records = await central<LogRecord[]>("log");
      expect(records.map((r) => [r.sessionId, r.seq, r.origin])).to.deep.equal([
        ["b2", 3, { machine: hostname(), user: me, writer: ids[1], seq: 2, host: "qoder" }],
        ["b", 2, { machine: hostname(), user: me, writer: ids[1], seq: 1, host: "qoder" }],
        ["a", 1, { machine: hostname(), user: me, writer: ids[0], seq: 1, host: "qoder" }],
      ]);
      expect((await central<{ origin: unknown }>("show", "3")).origin).to.deep.equal(records[0]!.origin);

      const sessions = async (...flags: string[]) => (await central<SessionRow[]>("sessions", ...flags)).map((s) => s.sessionId).sort();
      expect(await sessions("--writer", ids[0]!)).to.deep.equal(["a"]);
      expect(await sessions("--writer", ids[1]!)).to.deep.equal(["b", "b2"]);
      expect(await sessions("--machine", hostname(), "--user", me)).to.deep.equal(["a", "b", "b2"]);
      expect(await sessions("--machine", "elsewhere")).to.deep.equal([]);
      const events = async (...flags: string[]) => (await central<Stats>("stats", ...flags)).events;
      expect(await events("--writer", ids[1]!)).to.equal(2);
      expect(await events("--writer", ids[0]!, "--user", me)).to.equal(1);
      expect(await events("--user", "nobody-here")).to.equal(0);
    });

    it("two hosts on two HOMEs: the tables show host and writer, and --host (or --dialect) selects on log, sessions, stats and report", async () => {
      const ids: string[] = [];
      // One HOME's events judged by Qoder's settings, the other's by Claude Code's.
      for (const [session, dialect] of [
        ["qa", "qoder"],
        ["cb", "claude"],
      ] as const) {
        const sb = new Sandbox();
        homes.push(sb);
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: session }), ["--dialect", dialect]);
        expect(r.code, r.stderr).to.equal(0);
        const shipped = await sb.run(["ship", "--to", db.url]);
        expect(shipped.code, shipped.stderr).to.equal(0);
        ids.push(sqlite3(sb.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim());
      }
      const central = async (...args: string[]) => {
        const r = await homes[0]!.run(args, { env: { QHOOKS_DB: db.url } });
        expect(r.code, r.stderr).to.equal(0);
        return r.stdout;
      };
      const records = async (...flags: string[]) => LogRecordSchema.array().parse(JSON.parse(await central("log", "--json", ...flags)));
      expect((await records()).map((r) => [r.sessionId, r.origin.host, r.origin.writer])).to.deep.equal([
        ["cb", "claude", ids[1]],
        ["qa", "qoder", ids[0]],
      ]);
      expect((await records("--host", "claude")).map((r) => r.sessionId)).to.deep.equal(["cb"]);
      expect((await records("--dialect", "qoder")).map((r) => r.sessionId)).to.deep.equal(["qa"]);
      expect(await records("--host", "gemini")).to.deep.equal([]);
      expect((await records("--host", "qoder", "--writer", ids[1]!)).map((r) => r.sessionId)).to.deep.equal([]);

      // The tables: HOST, and WRITER (both HOMEs are this machine and user, so only the log tells them apart).
      const [logHeader, ...logRows] = (await central("log", "--format", "table")).trimEnd().split("\n");
      expect(logHeader!.split(/\s+/)).to.include.members(["HOST", "WRITER"]);
      expect(logHeader).not.to.match(/MACHINE|USER/);
      expect(logRows.find((l) => l.includes("cb")))
        .to.include("claude")
        .and.include(ids[1]!.slice(0, 8));
      expect(logRows.find((l) => l.includes("qa")))
        .to.include("qoder")
        .and.include(ids[0]!.slice(0, 8));
      const filtered = (await central("log", "--format", "table", "--host", "claude")).split("\n")[0];
      expect(filtered).not.to.match(/HOST|WRITER/);

      const sessions = async (...flags: string[]) => SessionRowSchema.array().parse(JSON.parse(await central("sessions", "--json", ...flags)));
      expect((await sessions()).map((s) => [s.sessionId, s.origin]).sort()).to.deep.equal([
        ["cb", { machine: hostname(), user: me, writer: ids[1], host: "claude" }],
        ["qa", { machine: hostname(), user: me, writer: ids[0], host: "qoder" }],
      ]);
      expect((await sessions("--host", "claude")).map((s) => s.sessionId)).to.deep.equal(["cb"]);
      const [sessionsHeader, ...sessionRows] = (await central("sessions", "--format", "table")).trimEnd().split("\n");
      expect(sessionsHeader!.split(/\s+/)).to.include.members(["HOST", "WRITER"]);
      expect(sessionRows.find((l) => l.startsWith("cb"))).to.include("claude");

      const stats = async (...flags: string[]) => (JSON.parse(await central("stats", "--json", ...flags)) as Stats).events;
      expect(await stats("--host", "claude")).to.equal(1);
      expect(await stats("--host", "qoder", "--writer", ids[0]!)).to.equal(1);
      expect(await stats("--host", "cursor")).to.equal(0);

      const everything = await central("report", "-o", "-");
      expect(everything).to.match(/<th>HOST<\/th><th>WRITER<\/th><th>PROJECT<\/th>/);
      const claudeOnly = await central("report", "-o", "-", "--host", "claude");
      expect(claudeOnly).to.include("<title>qhooks report: host claude</title>");
      expect(claudeOnly).to.include("#2").and.not.to.include("<th>HOST</th>");
      expect(claudeOnly).to.match(/<b>1<\/b>matching events/);
    });
  });
});
