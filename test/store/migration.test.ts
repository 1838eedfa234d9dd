import { copyFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { MIGRATIONS, SCHEMA_VERSION, migrate } from "../../src/store/sqlite/migrations.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, nonEmptyLines, qhooksLines, readOnly, sqlite3 } from "./storeHelpers.js";

type Row = Record<string, unknown>;
const allRows = (file: string): Row[] => readOnly(file, (db) => db.prepare("SELECT * FROM journal ORDER BY seq").all() as Row[]);
const userVersion = (file: string): number => readOnly(file, (db) => db.pragma("user_version", { simple: true }) as number);
const indexNames = (file: string): string[] =>
  readOnly(file, (db) => (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'journal' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]).map((r) => r.name));

/** Contract 7: a newer qhooks migrates an older file forward without loss. */
describe("schema migrations", function () {
  let sb: Sandbox;
  let source: string;
  let sourceRecords: unknown[];
  let files = 0;

  before(async () => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo no >&2; exit 2", name: "no" })] } });
    // A real history, written by the current code: judged, unjudged (no hook), recorded and rejected events.
    expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "m1" }))).code).to.equal(2);
    expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "m1", tool_name: "Read" }))).code).to.equal(0);
    expect((await sb.run(["record", "Stop"], { input: JSON.stringify({ session_id: "m2" }) })).code).to.equal(0);
    expect((await sb.run(["record", "Stop"], { input: "nope" })).code).to.equal(1);
    source = sb.db;
    sourceRecords = await logJson(sb);
    expect(sourceRecords).to.have.length(4);
  });
  after(() => sb.cleanup());

  /** A file at schema version 1 only, made by the version-1 step itself, holding the real history's rows. */
  function versionOneFile(): string {
    const file = join(sb.root, `v1-${++files}.db`);
    const db = new Database(file);
    try {
      migrate(db, 1);
      db.prepare("ATTACH DATABASE ? AS src").run(source);
      db.exec("INSERT INTO journal SELECT * FROM src.journal");
      db.exec("DETACH DATABASE src");
    } finally {
      db.close();
    }
    expect(userVersion(file)).to.equal(1);
    expect(indexNames(file)).to.deep.equal([]);
    return file;
  }

  /** The indexes a file created by this qhooks has: what a migrated one must end up with. */
  async function currentIndexes(): Promise<string[]> {
    const file = join(sb.root, `fresh-${++files}.db`);
    await openSqliteLog(file).close();
    return indexNames(file);
  }

  it("knows more than one version (so that the test below migrates something)", () => {
    expect(SCHEMA_VERSION).to.be.greaterThan(1);
    expect(MIGRATIONS.map((m) => m.version)).to.deep.equal(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it("qhooks log migrates a version-1 file to the latest version, losing and rewriting nothing", async () => {
    const file = versionOneFile();
    const before = allRows(file);
    const records = await logJson(sb, ["--db", file]);
    expect(records).to.deep.equal(sourceRecords);
    expect(userVersion(file)).to.equal(SCHEMA_VERSION);
    expect(indexNames(file)).to.deep.equal(await currentIndexes());
    expect(allRows(file)).to.deep.equal(before);
    const verify = await sb.run(["--db", file, "verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${before.length} records`);
  });

  it("qhooks run migrates a version-1 file and appends after the old records, chain intact", async () => {
    const file = versionOneFile();
    const before = allRows(file);
    const lastSeq = before[before.length - 1]!.seq as number;
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "m3" }), ["--db", file]);
    expect(r.code).to.equal(2);
    expect(qhooksLines(r.stderr)).to.deep.equal([]);
    expect(r.outcome!.seq).to.be.greaterThan(lastSeq);
    expect(userVersion(file)).to.equal(SCHEMA_VERSION);
    expect(allRows(file).slice(0, before.length)).to.deep.equal(before);
    const records = await logJson(sb, ["--db", file]);
    expect(records.slice(1)).to.deep.equal(sourceRecords);
    expect(records[0]).to.include({ seq: r.outcome!.seq, sessionId: "m3", decision: "deny" });
    // The queries the new indexes serve still answer correctly over old and new rows.
    expect((await logJson(sb, ["--db", file, "--session", "m1"])).map((x) => x.decision)).to.deep.equal(["none", "deny"]);
    expect((await logJson(sb, ["--db", file, "--blocked"])).map((x) => x.sessionId)).to.deep.equal(["m3", "m1"]);
    const verify = await sb.run(["--db", file, "verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${allRows(file).length} records`);
  });

  describe("a file from a newer qhooks", () => {
    let newer: string;
    let rowsBefore: Row[];
    beforeEach(() => {
      newer = join(sb.root, `newer-${++files}.db`);
      copyFileSync(source, newer);
      sqlite3(newer, `PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
      rowsBefore = allRows(newer);
    });
    afterEach(() => {
      // Left as it was: qhooks never touches a schema it does not know.
      expect(userVersion(newer)).to.equal(SCHEMA_VERSION + 1);
      expect(allRows(newer)).to.deep.equal(rowsBefore);
    });

    for (const command of [["log"], ["sessions"], ["stats"], ["verify"]]) {
      it(`qhooks ${command[0]}: one clear line, exit 1`, async () => {
        const r = await sb.run(["--db", newer, ...command]);
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = nonEmptyLines(r.stderr);
        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(/^qhooks: /).and.match(/newer/).and.include(String(SCHEMA_VERSION + 1));
        expect(lines[0]).not.to.match(/internal error/);
      });
    }

    it("qhooks run still decides, with one warning that the event is not logged", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "m4" }), ["--db", newer]);
      expect(r.code).to.equal(2);
      expect(r.outcome).to.include({ decision: "deny", blocked: true, seq: null });
      const lines = qhooksLines(r.stderr);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/newer/).and.match(/not logged/);
    });

    it("qhooks record exits 1 with one line", async () => {
      const r = await sb.run(["--db", newer, "record", "Stop"], { input: JSON.stringify({ session_id: "m5" }) });
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal("");
      expect(nonEmptyLines(r.stderr)).to.have.length(1);
      expect(r.stderr).to.match(/^qhooks: .*newer/);
    });
  });
});
