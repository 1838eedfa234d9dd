import { expect } from "chai";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { qhooksLines, seedLog } from "./storeHelpers.js";

const mode = (path: string) => statSync(path).mode & 0o7777;
const companions = (path: string) => ["-wal", "-shm", "-journal"].filter((s) => existsSync(path + s));

/**
 * `--db` (and $QHOOKS_DB) may name anything. qhooks never follows a symbolic link at the log path, never changes the
 * mode of a file it did not create before knowing it is a log, and says when the log's directory lets others
 * replace the log. `qhooks run` keeps deciding whatever the log path is (fail-open for logging only).
 */
describe("the log path is never handled through files qhooks does not own", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "echo 'guard: no' >&2; exit 2")] } });
  });
  afterEach(() => sb.cleanup());

  const rm = () => payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } });

  /** `run` blocks with one warning matching `why`; `record` exits 1 with one line matching it. */
  async function expectRefused(db: string, why: RegExp) {
    const r = await sb.runEvent("PreToolUse", rm(), ["--db", db]);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.outcome).to.include({ decision: "deny", seq: null });
    const lines = qhooksLines(r.stderr);
    expect(lines, r.stderr).to.have.length(1);
    expect(lines[0])
      .to.match(/^qhooks: warning: /)
      .and.match(why)
      .and.match(/this event is not logged$/);
    const rec = await sb.run(["--db", db, "record", "Stop"], { input: '{"session_id":"r"}' });
    expect(rec.code).to.equal(1);
    expect(qhooksLines(rec.stderr)).to.have.length(1);
    expect(rec.stderr).to.match(why);
  }

  it("an existing file that is not a log (as /etc/hosts would be): mode and content untouched, nothing created beside it", async () => {
    const hosts = sb.file("etc/hosts", "127.0.0.1 localhost\n", 0o644);
    await expectRefused(hosts, /not a readable SQLite database/);
    expect(mode(hosts).toString(8)).to.equal("644");
    expect(readFileSync(hosts, "utf8")).to.equal("127.0.0.1 localhost\n");
    expect(companions(hosts)).to.deep.equal([]);
  });

  it("a symlink at the log path, to a file that is not a log: refused; the target keeps its mode and content", async () => {
    const target = sb.file("elsewhere/notes.txt", "my notes\n", 0o644);
    const link = join(sb.root, "logs", "events.db");
    mkdirSync(join(sb.root, "logs"), { mode: 0o700 });
    symlinkSync(target, link);
    await expectRefused(link, /it is a symbolic link \(qhooks never opens or creates its log through a link/);
    expect(mode(target).toString(8)).to.equal("644");
    expect(readFileSync(target, "utf8")).to.equal("my notes\n");
  });

  it("a symlink at the log path, to a real log: refused too, and the log is left as it was", async () => {
    const real = join(sb.root, "real.db");
    await seedLog(real, [{ ts: new Date(), event: "Stop", sessionId: "a", decision: "recorded" }]);
    chmodSync(real, 0o640);
    const before = readFileSync(real);
    const link = join(sb.root, "link.db");
    symlinkSync(real, link);
    await expectRefused(link, /it is a symbolic link/);
    expect(mode(real).toString(8)).to.equal("640");
    expect(readFileSync(real).equals(before)).to.equal(true);
  });

  it("a dangling symlink at the log path: nothing is created at its target", async () => {
    const target = join(sb.root, "victim-dir", "created-by-qhooks.db");
    mkdirSync(join(sb.root, "victim-dir"));
    const link = join(sb.root, "dangling.db");
    symlinkSync(target, link);
    await expectRefused(link, /it is a symbolic link to nothing/);
    expect(existsSync(target), "the link's target was not created").to.equal(false);
    expect(lstatSync(link).isSymbolicLink()).to.equal(true);
  });

  it("a symlink where SQLite keeps its write-ahead file: refused before SQLite writes through it", async () => {
    const victim = sb.file("victim.txt", "keep me\n", 0o644);
    const db = join(sb.root, "wal-trap", "events.db");
    mkdirSync(join(sb.root, "wal-trap"), { mode: 0o700 });
    symlinkSync(victim, `${db}-wal`);
    await expectRefused(db, /events\.db-wal is a symbolic link, where SQLite keeps a file of its own/);
    expect(readFileSync(victim, "utf8")).to.equal("keep me\n");
    expect(mode(victim).toString(8)).to.equal("644");
  });

  describe("the log's directory", () => {
    const runIn = async (dir: string) => {
      const r = await sb.runEvent("PreToolUse", rm(), ["--db", join(dir, "events.db")]);
      expect(r.code, r.stderr).to.equal(2);
      expect(r.outcome!.seq, "still logged").to.be.a("number");
      return qhooksLines(r.stderr).filter((l) => l.startsWith("qhooks: warning: "));
    };
    const dirWith = (name: string, dirMode: number) => {
      const dir = join(sb.root, name);
      mkdirSync(dir);
      chmodSync(dir, dirMode);
      return dir;
    };

    it("writable by every user, or by its group, without the sticky bit: one warning naming it", async () => {
      const world = dirWith("world", 0o777);
      expect(await runIn(world)).to.deep.equal([`qhooks: warning: the log's directory ${world} is writable by every user, who can replace or remove the log`]);
      const groupDir = dirWith("group", 0o770);
      expect(await runIn(groupDir)).to.deep.equal([
        `qhooks: warning: the log's directory ${groupDir} is writable by its group, who can replace or remove the log`,
      ]);
    });

    it("with the sticky bit (as /tmp), or private: no warning", async () => {
      expect(await runIn(dirWith("sticky", 0o1777))).to.deep.equal([]);
      expect(await runIn(dirWith("private", 0o700))).to.deep.equal([]);
    });

    it("owned by another user: one warning (the suite runs as root, which can chown)", async () => {
      const other = dirWith("other", 0o755);
      chownSync(other, 12345, 12345);
      // The log file in it is the current user's (created by qhooks): only the directory is someone else's.
      expect(await runIn(other)).to.deep.equal([
        `qhooks: warning: the log's directory ${other} belongs to another user (uid 12345), who can replace or remove the log`,
      ]);
    });

    it("the library bus reports it on warnings$", async () => {
      const world = dirWith("world-bus", 0o777);
      const bus = sb.bus({ db: join(world, "events.db"), watch: false });
      const warnings: string[] = [];
      bus.warnings$.subscribe((w) => warnings.push(w));
      expect(warnings).to.deep.equal([`the log's directory ${world} is writable by every user, who can replace or remove the log`]);
    });
  });

  it("an existing log of the current user that others can read is made private only once SQLite has opened it", async () => {
    const db = join(sb.root, "shared.db");
    await seedLog(db, [{ ts: new Date(), event: "Stop", sessionId: "a", decision: "recorded" }]);
    chmodSync(db, 0o644);
    const r = await sb.runEvent("PreToolUse", rm(), ["--db", db]);
    expect(r.code, r.stderr).to.equal(2);
    expect(mode(db).toString(8)).to.equal("600");
  });
});
