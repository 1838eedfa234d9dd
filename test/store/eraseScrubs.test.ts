import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * Issue 21 item 8: what erase and prune remove leaves the log's files, not only its tables. The files are searched
 * byte by byte as `grep -a` would (the log file and its write-ahead file), while another process has the log open,
 * as a `qhooks run` or a bus would: its WAL is then not deleted when the command closes it.
 */
describe("qhooks erase and prune: the removed text leaves the files", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let other: Database.Database | null = null;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(async () => {
    other?.close();
    other = null;
    await sb.cleanup();
  });

  const tag = (word: string) => `${word}-${randomBytes(6).toString("hex")}`;
  /** Which of `texts` the log file or its write-ahead file still holds, byte for byte. */
  const foundInFiles = (texts: readonly string[]): string[] => {
    const files = [sb.db, `${sb.db}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f));
    return texts.filter((t) => files.some((bytes) => bytes.includes(t)));
  };
  /** Another connection to the log, as another process's would be: open, reading, not in a transaction. */
  const openOther = () => {
    other = new Database(sb.db);
    other.prepare("SELECT count(*) FROM journal").get();
    return other;
  };

  async function seedRuns(secrets: readonly string[]) {
    // The hook echoes the payload to stderr: the text is in the event, its outcome and the hook's output.
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >&2; exit 0", name: "echo" })] } });
    for (const [i, secret] of secrets.entries()) {
      const r = await sb.runEvent(
        "PreToolUse",
        payloadFor("PreToolUse", { session_id: `s${i}`, tool_input: { command: `echo ${secret} ${"p".repeat(300 + 97 * i)}` } }),
      );
      expect(r.code, r.stderr).to.equal(0);
    }
  }

  it("erase: the erased text is in neither the log file nor its WAL; what was kept still is", async () => {
    const erased = Array.from({ length: 12 }, () => tag("erase-me"));
    const kept = Array.from({ length: 6 }, () => tag("keep-me"));
    await seedRuns([...erased.slice(0, 6), ...kept, ...erased.slice(6)]);
    openOther();
    expect(foundInFiles(erased), "before erasing").to.deep.equal(erased);

    const r = await sb.run(["erase", "--pattern", "erase-me", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(foundInFiles(erased), "erased text still in the files").to.deep.equal([]);
    expect(foundInFiles(kept)).to.deep.equal(kept);
    expect(JSON.parse(r.stdout)).to.deep.equal({ events: 12, records: 24, leftovers: [] });
    expect(r.stderr).to.equal("");
    const v = await sb.run(["verify"]);
    expect(v.code, v.stderr).to.equal(0);
  });

  it("erase while another process reads the log from before: the command says the text stays in the WAL until it closes", async () => {
    const erased = [tag("erase-me"), tag("erase-me")];
    await seedRuns(erased);
    const reader = openOther();
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM journal").get();

    const json = await sb.run(["erase", "--pattern", "erase-me", "--json"]);
    expect(json.code, json.stderr).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal({ events: 2, records: 4, leftovers: [{ kind: "wal-in-use", file: `${sb.db}-wal` }] });
    const text = await sb.run(["erase", "--pattern", "erase-me"]);
    expect(text.stdout).to.equal("Nothing to erase: no event matches that has content left.\n");
    expect(text.stderr).to.equal(
      `qhooks: warning: another process was reading the log: the removed text stays in ${sb.db}-wal and the log file's old pages until the last process using the log closes it (or the next qhooks erase)\n`,
    );

    // Once that read ends, the next erase (nothing new to erase) scrubs the files.
    reader.exec("COMMIT");
    const again = await sb.run(["erase", "--pattern", "erase-me", "--json"]);
    expect(JSON.parse(again.stdout)).to.deep.equal({ events: 0, records: 0, leftovers: [] });
    expect(foundInFiles(erased)).to.deep.equal([]);
  });

  it("prune: the pruned records' text is in neither file; a reader from before is said as a leftover", async () => {
    const old = [tag("old-secret"), tag("old-secret")];
    await appendOld(old);
    const kept = [tag("keep-me")];
    await seedRuns(kept);
    openOther();
    const r = await sb.run(["prune", "--before", "90d", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(foundInFiles(old), "pruned text still in the files").to.deep.equal([]);
    expect(foundInFiles(kept)).to.deep.equal(kept);
    expect(JSON.parse(r.stdout)).to.deep.include({ events: 400, leftovers: [] });

    // The log is pruned from its start: what the second prune takes is what the first kept.
    other!.exec("BEGIN");
    other!.prepare("SELECT count(*) FROM journal").get();
    const busy = await sb.run(["prune", "--before", "now"]);
    expect(busy.code, busy.stderr).to.equal(0);
    expect(busy.stdout).to.match(/^Pruned \d+ records \(1 events\)/);
    expect(busy.stderr).to.contain(`qhooks: warning: another process was reading the log: the removed text stays in ${sb.db}-wal`);
    other!.exec("COMMIT");
  });

  /** 200 events a year old per secret, appended through the library. */
  async function appendOld(secrets: readonly string[]) {
    const script = `
      const { openSqliteLog } = await import(${JSON.stringify(join(REPO_ROOT, "dist/src/store/sqlite/sqliteEventLog.js"))});
      const log = openSqliteLog(${JSON.stringify(sb.db)});
      const ts = new Date(Date.now() - 365 * 86400_000);
      for (const secret of ${JSON.stringify(secrets)})
        await log.append(Array.from({ length: 200 }, (_, i) => ({ kind: "event", ts, source: "record", event: "Stop", sessionId: "old", matchValue: null, projectDir: "/p", payload: JSON.stringify({ session_id: "old", note: secret, i }), snapshot: null, rejection: null, replay: null, outcome: null })));
      await log.close();`;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`node exited ${code}: ${stderr}`))));
    });
  }
});
