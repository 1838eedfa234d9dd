import { copyFileSync, readFileSync } from "node:fs";
import { toolInputSummary } from "../../src/core/toolInputSummary.js";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import type { Stats } from "../../src/schema/logRecord.js";
import { CURRENT_FORMAT } from "../../src/store/journal/hashFormat.js";
import { MIGRATIONS, SCHEMA_VERSION, migrate } from "../../src/store/sqlite/migrations.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, nonEmptyLines, qhooksLines, readOnly, sqlite3 } from "./storeHelpers.js";

type Row = Record<string, unknown>;
/** The columns a schema-3 record has, all covered by its hash. */
const V3_COLUMNS =
  "seq, ts, kind, event, session_id, match_value, project_dir, source, ref, run_id, config_hash, name, status, decision, blocked, duration_ms, reason, body, hash";
const v3Rows = (file: string): Row[] =>
  readOnly(
    file,
    (db) =>
      db
        .prepare(
          `SELECT ${V3_COLUMNS.split(", ")
            .map((c) => `quote(${c}) AS ${c}`)
            .join(", ")} FROM journal WHERE seq <= 40 ORDER BY seq`,
        )
        .all() as Row[],
  );
const userVersion = (file: string): number => readOnly(file, (db) => db.pragma("user_version", { simple: true }) as number);
const indexNames = (file: string): string[] =>
  readOnly(file, (db) =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]).map((r) => r.name),
  );

/**
 * A real log written by qhooks in schema version 3 (test/fixtures/makeV3Log.sh, run on a build of 534b4b0), and what
 * that qhooks printed for it. It holds lone surrogates that version stored in a form it could not verify.
 */
const FIXTURE = join(REPO_ROOT, "test", "fixtures", "v3-log.db");
const PRINTED = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "v3-log.expected.json"), "utf8")) as {
  log: Row[];
  replayLog: Row[];
  sessions: Row[];
  stats: Row;
};
/**
 * What that qhooks printed, with the fields added since: `skipped` and `env` (empty for outcomes older than them),
 * `asyncHooks` (none: that qhooks had no async hooks), `tried` (made from the payload as it is read, so an old log
 * has it too), `caller` (also read from the payload: none of these events came from another host's entry).
 */
const added = (r: Row): Row => ({ skipped: [], env: {}, asyncHooks: [], tried: toolInputSummary(r.payload), caller: null, ...r });
const EXPECTED = { ...PRINTED, log: PRINTED.log.map(added), replayLog: PRINTED.replayLog.map(added) };
/**
 * And `origin`: records older than hash format 5 know no machine, user or judging host; their writer is the id the
 * file's log was given when it was migrated, their origin seq their own.
 */
const withOrigin = (file: string, rows: Row[]): Row[] => {
  const writer = readOnly(file, (db) => (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value);
  return rows.map((r) => ({ ...r, origin: { machine: null, user: null, writer, seq: r.seq, host: null } }));
};
const FIXTURE_RECORDS = 40;

/** Contract 7: a newer qhooks migrates an older file forward without loss. */
describe("schema migrations", () => {
  let sb: Sandbox;
  let files = 0;

  before(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo no >&2; exit 2", name: "no" })] } });
  });
  after(() => sb.cleanup());

  const fixtureCopy = (): string => {
    const file = join(sb.root, `v3-${++files}.db`);
    copyFileSync(FIXTURE, file);
    return file;
  };

  /** A file at schema version 1 only, made by the version-1 step itself, holding the fixture's records. */
  function versionOneFile(): string {
    const file = join(sb.root, `v1-${++files}.db`);
    const db = new Database(file);
    try {
      migrate(db, 1);
      db.prepare("ATTACH DATABASE ? AS src").run(FIXTURE);
      db.exec(`INSERT INTO journal SELECT ${V3_COLUMNS} FROM src.journal`);
      db.exec("DETACH DATABASE src");
    } finally {
      db.close();
    }
    expect(userVersion(file)).to.equal(1);
    return file;
  }

  /** The indexes a file created by this qhooks has: what a migrated one must end up with. */
  async function currentIndexes(): Promise<string[]> {
    const file = join(sb.root, `fresh-${++files}.db`);
    await openSqliteLog(file).close();
    return indexNames(file);
  }

  it("knows more than one version (so that the tests below migrate something)", () => {
    expect(SCHEMA_VERSION).to.be.greaterThan(3);
    expect(MIGRATIONS.map((m) => m.version)).to.deep.equal(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(userVersion(FIXTURE)).to.equal(3);
  });

  it("a real schema-3 log: every record kept as it was, verify passes (its lone surrogates included), and log, sessions and stats say what that qhooks said", async () => {
    const file = fixtureCopy();
    const before = v3Rows(file);
    expect(before).to.have.length(FIXTURE_RECORDS);
    const verify = await sb.run(["--db", file, "verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${FIXTURE_RECORDS} records`);
    expect(userVersion(file)).to.equal(SCHEMA_VERSION);
    expect(indexNames(file)).to.deep.equal(await currentIndexes());
    expect(v3Rows(file)).to.deep.equal(before);
    expect(readOnly(file, (db) => db.prepare("SELECT DISTINCT format FROM journal").all())).to.deep.equal([{ format: 3 }]);

    expect(await logJson(sb, ["--db", file, "--limit", "1000"])).to.deep.equal(withOrigin(file, EXPECTED.log));
    const runId = (EXPECTED.replayLog[0]!.replay as { runId: string }).runId;
    expect(await logJson(sb, ["--db", file, "--limit", "1000", "--replay", runId])).to.deep.equal(withOrigin(file, EXPECTED.replayLog));
    const sessions = await sb.run(["--db", file, "sessions", "--json"]);
    // What that qhooks said, and the origin this one adds: the file's writer, nothing more known of older records.
    const writer = withOrigin(file, [{ seq: 0 }])[0]!.origin as { writer: string };
    expect(JSON.parse(sessions.stdout)).to.deep.equal(
      EXPECTED.sessions.map((s) => ({ ...s, origin: { machine: null, user: null, writer: writer.writer, host: null } })),
    );
    const stats = await sb.run(["--db", file, "stats", "--json"]);
    // What that qhooks said, and what this one adds: p99, the slowest run, the last run and the level of each hook.
    const now = JSON.parse(stats.stdout) as Stats;
    expect({ ...now, hooks: now.hooks.map(({ p99Ms: _p99, maxMs: _max, lastTs: _last, level: _level, ...was }) => was) }).to.deep.equal(EXPECTED.stats);
    expect(new Set(now.hooks.map((h) => h.level))).to.deep.equal(new Set(["project"]));
    for (const h of now.hooks) expect(h.p99Ms! >= h.p95Ms! && h.maxMs! >= h.p99Ms! && typeof h.lastTs === "string").to.equal(true);
  });

  it("a version-6 log whose hook runs were projected without their level gets them from the outcomes it holds", async () => {
    const file = fixtureCopy();
    const stats = async () => (JSON.parse((await sb.run(["--db", file, "stats", "--json"])).stdout) as Stats).hooks.map((h) => [h.name, h.level, h.runs]);
    const current = await stats();
    expect(current.length).to.be.greaterThan(0);
    // The file as version 6 left it: its hook runs projected, with no level column.
    sqlite3(file, "ALTER TABLE proj_hooks DROP COLUMN level; PRAGMA user_version = 6;");
    expect(userVersion(file)).to.equal(6);
    expect(await stats()).to.deep.equal(current);
    expect(userVersion(file)).to.equal(SCHEMA_VERSION);
    expect(readOnly(file, (db) => db.prepare("SELECT count(*) AS n FROM proj_hooks WHERE level IS NULL").get())).to.deep.equal({ n: 0 });
  });

  it("a version-1 file holding the same records migrates to the same log", async () => {
    const file = versionOneFile();
    expect(await logJson(sb, ["--db", file, "--limit", "1000"])).to.deep.equal(withOrigin(file, EXPECTED.log));
    expect(userVersion(file)).to.equal(SCHEMA_VERSION);
    expect(indexNames(file)).to.deep.equal(await currentIndexes());
    const verify = await sb.run(["--db", file, "verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${FIXTURE_RECORDS} records`);
  });

  it("qhooks run appends after the old records in the current format, with the log's new id; the chain goes on and verifies", async () => {
    const file = fixtureCopy();
    const before = v3Rows(file);
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "m3" }), ["--db", file]);
    expect(r.code).to.equal(2);
    expect(qhooksLines(r.stderr)).to.deep.equal([]);
    expect(r.outcome!.seq).to.equal(FIXTURE_RECORDS + 2); // its snapshot, then the event
    expect(v3Rows(file)).to.deep.equal(before);
    const formats = readOnly(file, (db) => db.prepare("SELECT format, count(*) AS n FROM journal GROUP BY format ORDER BY format").all());
    expect(formats).to.deep.equal([
      { format: 3, n: FIXTURE_RECORDS },
      { format: CURRENT_FORMAT, n: 3 },
    ]); // snapshot, arrival, outcome
    const logId = readOnly(file, (db) => (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value);
    expect(logId).to.match(/^[0-9a-f-]{36}$/);

    const records = await logJson(sb, ["--db", file, "--limit", "1000"]);
    expect(records.slice(1)).to.deep.equal(withOrigin(file, EXPECTED.log));
    expect(records[0]).to.include({ seq: r.outcome!.seq, sessionId: "m3", decision: "deny" });
    // The projections answer over old and new records alike.
    expect((await logJson(sb, ["--db", file, "--session", "a"])).map((x) => x.decision)).to.deep.equal(["none", "none", "deny"]);
    expect((await logJson(sb, ["--db", file, "--blocked"])).map((x) => x.sessionId)).to.deep.equal(["m3", "loop", "loop", "loop", "b", "a"]);
    expect((await logJson(sb, ["--db", file, "--hook", "guard.sh"])).map((x) => x.seq)).to.deep.equal([10, 5, 2]);
    const verify = await sb.run(["--db", file, "verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${FIXTURE_RECORDS + 3} records`);
  });

  it("the Stop-loop count of a session carries over: three blocked Stops in the old log count towards the cap", async () => {
    const file = fixtureCopy();
    const hook = sb.script("block-stop.sh", 'cat >/dev/null; echo "not yet" >&2; exit 2');
    sb.localSettings({ hooks: { Stop: [group(undefined, { command: hook, name: "block-stop" })] } });
    try {
      const env = { QHOOKS_STOP_BLOCK_CAP: "4" };
      const fourth = await sb.runEvent("Stop", { session_id: "loop" }, ["--db", file], env);
      expect(fourth.code, "the 4th block in a row stands").to.equal(2);
      const fifth = await sb.runEvent("Stop", { session_id: "loop" }, ["--db", file], env);
      expect(fifth.code, "the 5th is overruled").to.equal(0);
      expect(fifth.outcome).to.include({ decision: "none", blocked: false });
    } finally {
      sb.localSettings({});
    }
  });

  describe("a file from a newer qhooks", () => {
    let newer: string;
    let rowsBefore: Row[];
    beforeEach(async () => {
      newer = fixtureCopy();
      await openSqliteLog(newer).close();
      sqlite3(newer, `PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
      rowsBefore = v3Rows(newer);
    });
    afterEach(() => {
      // Left as it was: qhooks never touches a schema it does not know.
      expect(userVersion(newer)).to.equal(SCHEMA_VERSION + 1);
      expect(v3Rows(newer)).to.deep.equal(rowsBefore);
    });

    for (const command of [["log"], ["sessions"], ["stats"], ["verify"]]) {
      it(`qhooks ${command[0]}: one clear line, exit 1`, async () => {
        const r = await sb.run(["--db", newer, ...command]);
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = nonEmptyLines(r.stderr);
        expect(lines).to.have.length(1);
        expect(lines[0])
          .to.match(/^qhooks: /)
          .and.match(/newer/)
          .and.include(String(SCHEMA_VERSION + 1));
        expect(lines[0]).not.to.match(/internal error/);
      });
    }

    it("qhooks run still decides, with one warning that the event is not logged", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "m4" }), ["--db", newer]);
      expect(r.code).to.equal(2);
      expect(r.outcome).to.include({ decision: "deny", blocked: true, seq: null });
      const lines = qhooksLines(r.stderr);
      expect(lines).to.have.length(1);
      expect(lines[0])
        .to.match(/newer/)
        .and.match(/not logged/);
    });

    it("qhooks record exits 1 with one line", async () => {
      const r = await sb.run(["--db", newer, "record", "Stop"], { input: JSON.stringify({ session_id: "m5" }) });
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal("");
      expect(nonEmptyLines(r.stderr)).to.have.length(1);
      expect(r.stderr).to.match(/^qhooks: .*newer/);
    });
  });
  describe("another program's SQLite database", () => {
    let foreign: string;
    const tables = () => readOnly(foreign, (db) => db.prepare("SELECT name FROM sqlite_schema ORDER BY name").all());
    beforeEach(() => {
      foreign = join(sb.root, `foreign-${Math.random().toString(36).slice(2)}.db`);
      sqlite3(foreign, "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('mine');");
    });
    afterEach(() => {
      // Never written to: no qhooks table appears in it, its own rows stay.
      expect(tables()).to.deep.equal([{ name: "notes" }]);
      expect(userVersion(foreign)).to.equal(0);
    });

    for (const command of [["log"], ["verify"], ["record", "Stop"]]) {
      it(`qhooks ${command.join(" ")}: one clear line, exit 1, the file left alone`, async () => {
        const r = await sb.run(["--db", foreign, ...command], { input: JSON.stringify({ session_id: "f1" }) });
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = nonEmptyLines(r.stderr);
        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(/^qhooks: .*did not create/);
      });
    }

    it("qhooks run still decides, with one warning that the event is not logged", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "f2" }), ["--db", foreign]);
      expect(r.code).to.equal(2);
      expect(r.outcome).to.include({ decision: "deny", blocked: true, seq: null });
      expect(qhooksLines(r.stderr).join("\n"))
        .to.match(/did not create/)
        .and.match(/not logged/);
    });
  });
});
