import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { EVENT_NAMES } from "../../src/schema/events.js";
import { recordHash } from "../../src/store/journal/hashFormat.js";
import { HASHED_COLUMNS, type JournalRow } from "../../src/store/journal/record.js";
import { journalCount, nonEmptyLines, qhooksLines, seedLog, sqlite3 } from "../store/storeHelpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { QUICK, clip, cliWithDeadline, expectCleanCli, prng } from "./support.js";
import { verifiedRecords } from "../support/verifyLine.js";

type Json = Record<string, unknown>;
const mode = (path: string) => statSync(path).mode & 0o7777;

/**
 * Issue 6, security: payload text never reaches a shell command line (only stdin, and the session id's own
 * variable); the log and its directory are private (the WAL files too), and a path that is not a regular file is
 * refused rather than chmod-ed; `qhooks verify` detects edits (and what it cannot detect is shown, as documented);
 * a settings file that others can change produces a warning.
 */
describe("reliability: security", function () {
  this.timeout(300_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  describe(`payload text never reaches a shell command line ${QUICK}`, () => {
    /** Shell syntax that would create a marker file if any of it were ever evaluated. */
    const injections = (marker: (n: number) => string): string[] => [
      `$(touch ${marker(1)})`,
      `\`touch ${marker(2)}\``,
      `; touch ${marker(3)}`,
      `' ; touch ${marker(4)} ; '`,
      `" ; touch ${marker(5)} ; "`,
      `x\ntouch ${marker(6)}\n`,
      `| touch ${marker(7)}`,
      `&& touch ${marker(8)} #`,
      `$(printf 'touch ${marker(9)}' | sh)`,
      `\${IFS}touch\${IFS}${marker(10)}`,
      `-rf --help %s%n $((1+1)) \\" \\\\`,
    ];

    it("in every string field of every event, through qhooks run, --format hook, record and replay: no marker appears, hooks get the bytes on stdin", async () => {
      const markers = join(sb.root, "markers");
      mkdirSync(markers);
      const marker = (n: number) => join(markers, `pwned-${n}`);
      const evil = injections(marker);
      const got = join(sb.root, "got");
      mkdirSync(got);
      // Hooks that take the payload and the session id's variable, quoted and unquoted, and write down their argv.
      const hook = `cat > "${got}/$QHOOKS_EVENT.stdin"; cat /proc/$$/cmdline > "${got}/$QHOOKS_EVENT.argv"; echo $QHOOKS_SESSION_ID > /dev/null; echo "$QHOOKS_SESSION_ID" > /dev/null`;
      const settings = { hooks: Object.fromEntries(EVENT_NAMES.map((e) => [e, [group(".*", { command: hook, name: "h" })]])) };
      sb.projectSettings(settings);
      const settingsFile = sb.file("settings.json", settings);

      let i = 0;
      for (const event of EVENT_NAMES) {
        // Every string field of the payload (and some extra ones) holds a piece of shell.
        const base = payloadFor(event) as Json;
        const payload: Json = { ...base, transcript_path: evil[i % evil.length], cwd: evil[(i + 1) % evil.length], extra: evil };
        for (const [k, v] of Object.entries(base)) if (typeof v === "string" && k !== "trigger") payload[k] = `${v}${evil[i++ % evil.length]}`;
        if (payload.tool_input) payload.tool_input = { command: evil.join(" "), file_path: evil[i % evil.length] };
        const text = JSON.stringify(payload);
        for (const args of [
          ["run", event],
          ["run", event, "--format", "hook", "--settings", settingsFile],
          ["record", event],
        ]) {
          const r = await sb.run(args, { input: text });
          expectCleanCli(r, args.join(" "));
          expect(r.code, `${args.join(" ")}: ${clip(r.stderr)}`).to.be.oneOf([0, 2]);
          if (args[0] === "record") continue;
          const stdin = readFileSync(join(got, `${event}.stdin`), "utf8");
          expect(JSON.parse(stdin), `${event}: the payload on stdin`).to.deep.include(payload);
          const argv = readFileSync(join(got, `${event}.argv`), "utf8")
            .split("\0")
            .filter((l) => l !== "");
          // The script is qhooks' one-line start gate, then the configured command verbatim: nothing of the payload.
          expect(argv.slice(0, 2), `${event}: the hook runs as /bin/sh -c`).to.deep.equal(["/bin/sh", "-c"]);
          expect(argv.slice(2), `${event}: the script is the start gate and the configured command`).to.have.length(1);
          const [gate, ...rest] = argv[2]!.split("\n");
          expect(gate, `${event}: the start gate`).to.match(/^IFS= read -r _ \|\| exit 125$/);
          expect(rest.join("\n"), `${event}: the configured command`).to.equal(hook);
        }
      }
      const replay = await sb.run(["replay", "--event", "PreToolUse", "--settings", settingsFile, "--yes", "--json"]);
      expect(replay.code, replay.stderr).to.equal(0);
      expect(JSON.parse(replay.stdout).events).to.be.greaterThan(0);
      // SQL injection through the audit filters: parameters, not text.
      for (const filter of [
        ["--session", "' OR 1=1; DROP TABLE journal; --"],
        ["--grep", "%' OR '1'='1"],
        ["--tool", 'x" OR ""="'],
      ]) {
        const r = await sb.run(["log", "--json", ...filter]);
        expect(r.code, r.stderr).to.equal(0);
        expect(JSON.parse(r.stdout), filter.join(" ")).to.deep.equal([]);
      }
      expect(readdirSync(markers), "no payload text was ever evaluated by a shell").to.deep.equal([]);
      const verify = await sb.run(["verify"]);
      expect(verify.code).to.equal(0);
    });

    it("a hook's environment holds the payload only in QHOOKS_SESSION_ID, and only when it fits", async () => {
      const env = join(sb.root, "env");
      sb.projectSettings({ hooks: { PreToolUse: [group(undefined, { command: `tr '\\0' '\\n' < /proc/$$/environ > ${env}`, name: "env" })] } });
      const secret = "payload-text-7f3a";
      for (const session of [`s-${secret}`, `nul\u0000${secret}`, `long-${secret}-${"x".repeat(10_000)}`]) {
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: session, tool_input: { command: secret } }), ["--no-log"]);
        expect(r.code, r.stderr).to.equal(0);
        expect(
          (r.outcome!.hooks as Json[]).map((h) => h.outcome),
          "the hook ran whatever the session id",
        ).to.deep.equal(["success"]);
        const lines = readFileSync(env, "utf8")
          .split("\n")
          .filter((l) => l.includes(secret));
        expect(lines, clip(JSON.stringify(session))).to.deep.equal(session.startsWith("s-") ? [`QHOOKS_SESSION_ID=${session}`] : []);
      }
    });
  });

  describe("the log and its directory are private", () => {
    const underUmask = async <T>(fn: () => Promise<T>): Promise<T> => {
      const old = process.umask(0);
      try {
        return await fn();
      } finally {
        process.umask(old);
      }
    };

    it(`created by run, record and the library bus under umask 0: 0600 files (-wal and -shm too), 0700 directories ${QUICK}`, async () => {
      const dbs = ["run", "record", "bus"].map((k) => join(sb.root, `${k}-dir`, "deep", "events.db"));
      const run = await underUmask(() => sb.run(["--db", dbs[0]!, "run", "PreToolUse"], { input: JSON.stringify(payloadFor("PreToolUse")) }));
      expect(run.code, run.stderr).to.equal(0);
      const rec = await underUmask(() => sb.run(["--db", dbs[1]!, "record", "Stop"], { input: JSON.stringify({ session_id: "r" }) }));
      expect(rec.code, rec.stderr).to.equal(0);
      const old = process.umask(0);
      const bus = sb.bus({ db: dbs[2]!, watch: false });
      try {
        await bus.dispatch({ hook_event_name: "Stop", session_id: "b" });
        // The bus keeps the log open: its WAL files exist now.
        for (const suffix of ["", "-wal", "-shm"]) expect(mode(dbs[2]! + suffix).toString(8), `bus ${suffix}`).to.equal("600");
      } finally {
        process.umask(old);
        await bus.close();
      }
      for (const db of dbs) {
        expect(mode(db).toString(8), db).to.equal("600");
        expect(mode(join(db, "..")).toString(8)).to.equal("700");
        expect(mode(join(db, "..", "..")).toString(8)).to.equal("700");
      }
    });

    it("an existing log readable by others is made private again, and so are the WAL files it then gets", async () => {
      await seedLog(sb.db, [{ ts: new Date(), event: "Stop", sessionId: "a", decision: "recorded" }]);
      chmodSync(sb.db, 0o644);
      const bus = sb.bus({ db: sb.db, watch: false });
      try {
        await bus.dispatch({ hook_event_name: "Stop", session_id: "b" });
        for (const suffix of ["", "-wal", "-shm"]) expect(mode(sb.db + suffix).toString(8), suffix).to.equal("600");
      } finally {
        await bus.close();
      }
    });

    it("a log path that is a device or a FIFO is refused, untouched (as root, chmod would take /dev/null from everyone)", async () => {
      const dev = join(sb.root, "null-device");
      const fifo = join(sb.root, "a-fifo");
      expect(spawnSync("mknod", [dev, "c", "1", "3"]).status, "mknod (the suite runs as root)").to.equal(0);
      chmodSync(dev, 0o666);
      expect(spawnSync("mkfifo", [fifo]).status).to.equal(0);
      chmodSync(fifo, 0o644);
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "echo no >&2; exit 2")] } });
      for (const [path, what, was] of [
        [dev, "a device", 0o20666],
        [fifo, "a FIFO", 0o10644],
      ] as const) {
        const r = await cliWithDeadline(sb, ["--db", path, "run", "PreToolUse"], { input: JSON.stringify(payloadFor("PreToolUse")), deadlineMs: 10_000 });
        expect(r.hung, `${what}: a FIFO must not block the open`).to.equal(false);
        expect(r.code).to.equal(2);
        expect(qhooksLines(r.stderr)).to.have.length(1);
        expect(r.stderr).to.include(`it is ${what}, not a regular file`);
        const rec = await cliWithDeadline(sb, ["--db", path, "record", "Stop"], { input: '{"session_id":"x"}', deadlineMs: 10_000 });
        expect([rec.hung, rec.code, nonEmptyLines(rec.stderr).length]).to.deep.equal([false, 1, 1]);
        const log = await cliWithDeadline(sb, ["--db", path, "log"], { deadlineMs: 10_000 });
        expect([log.hung, log.code]).to.deep.equal([false, 1]);
        expect(statSync(path).mode, `${what}: mode untouched`).to.equal(was);
        expect(existsSync(`${path}-journal`) || existsSync(`${path}-wal`), "SQLite never touched it").to.equal(false);
      }
    });
  });

  describe("qhooks verify detects edits", () => {
    let pristine: string;
    beforeEach(async () => {
      pristine = join(sb.root, "pristine.db");
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo 'no' >&2; exit 2", name: "guard" }, { command: "exit 0", name: "ok" })] } });
      for (let i = 0; i < 12; i++) {
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: `v${i}`, tool_name: i % 3 ? "Bash" : "Read" }), [], {
          QHOOKS_DB: pristine,
        });
        expect(r.code).to.be.oneOf([0, 2]);
      }
    });

    const logIdOf = (db: Database.Database): string => (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value;

    const columnValue = (column: string, random: () => number): string => {
      if (["seq", "ref", "blocked", "duration_ms", "format"].includes(column)) return String(Math.floor(random() * 1000) + 1000);
      return `'${["edited", "", "deny", "none", "x'x".replace("'", "''")][Math.floor(random() * 5)]}'`;
    };

    async function editRounds(rounds: number, seed: number): Promise<void> {
      const random = prng(seed);
      const total = journalCount(pristine);
      for (let i = 0; i < rounds; i++) {
        const db = join(sb.root, `edit-${i}.db`);
        copyFileSync(pristine, db);
        const seq = 1 + Math.floor(random() * (total - 1)); // any record but the newest (whose deletion is the documented blind spot)
        const action = Math.floor(random() * 4);
        let expectBad = seq;
        if (action === 0) {
          // Change one hashed column to a value it does not have.
          const columns = HASHED_COLUMNS.filter((c) => c !== "seq");
          const column = columns[Math.floor(random() * columns.length)]!;
          const value = columnValue(column, random);
          const before = sqlite3(db, `SELECT quote(${column}) FROM journal WHERE seq = ${seq}`).trim();
          if (before === value) continue;
          sqlite3(db, `UPDATE journal SET ${column} = ${value} WHERE seq = ${seq}`);
        } else if (action === 1) {
          sqlite3(db, `DELETE FROM journal WHERE seq = ${seq}`);
        } else if (action === 2) {
          // Two records' bodies swapped.
          sqlite3(db, `UPDATE journal SET body = (SELECT body FROM journal WHERE seq = ${seq + 1}) || ' ' WHERE seq = ${seq}`);
        } else {
          // A record's hash recomputed for its new content, without rebuilding the rest of the chain.
          const rowDb = new Database(db);
          const row = rowDb.prepare("SELECT * FROM journal WHERE seq = ?").get(seq) as JournalRow;
          const previous = (rowDb.prepare("SELECT hash FROM journal WHERE seq = ?").get(seq - 1) as { hash: string } | undefined)?.hash ?? "";
          const { hash: _old, ...content } = { ...row, reason: "rewritten" };
          rowDb.prepare("UPDATE journal SET reason = 'rewritten', hash = ? WHERE seq = ?").run(recordHash(content, previous, logIdOf(rowDb)), seq);
          rowDb.close();
          expectBad = seq + 1; // the record after it no longer follows it
        }
        const v = await sb.run(["--db", db, "verify"]);
        expectCleanCli(v, `round ${i}`);
        expect(v.code, `round ${i}, action ${action}, seq ${seq}: ${v.stdout}`).to.equal(3);
        expect(v.stderr, `round ${i}, action ${action}`).to.match(new RegExp(`record ${expectBad}\\b`));
      }
    }

    it(`random edits, deletions, swaps and re-hashed records, 12 rounds: exit 3, naming the first bad record ${QUICK}`, () => editRounds(12, 0x7a3b1));
    it("random edits, 80 more rounds", () => editRounds(80, 0x7a3b2));

    it("what verify cannot see, as documented: the newest records cut off, or the whole chain rebuilt by someone with write access", async () => {
      const cut = join(sb.root, "cut.db");
      copyFileSync(pristine, cut);
      const total = journalCount(cut);
      sqlite3(cut, `DELETE FROM journal WHERE seq > ${total - 5}`);
      const v1 = await sb.run(["--db", cut, "verify"]);
      expect([v1.code, verifiedRecords(v1.stdout)], v1.stdout).to.deep.equal([0, total - 5]);

      const rebuilt = join(sb.root, "rebuilt.db");
      copyFileSync(pristine, rebuilt);
      const db = new Database(rebuilt);
      db.prepare("UPDATE journal SET decision = 'allow', blocked = 0 WHERE decision = 'deny'").run();
      let previous = "";
      for (const row of db.prepare("SELECT * FROM journal ORDER BY seq").all() as JournalRow[]) {
        const { hash: _old, ...content } = row;
        previous = recordHash(content, previous, logIdOf(db))!;
        db.prepare("UPDATE journal SET hash = ? WHERE seq = ?").run(previous, row.seq);
      }
      db.close();
      const v2 = await sb.run(["--db", rebuilt, "verify"]);
      expect(v2.code, "a rebuilt chain verifies: the chain is not a signature").to.equal(0);
    });
  });

  describe(`settings that others can change ${QUICK}`, () => {
    const run = () => sb.run(["run", "PreToolUse", "--no-log"], { input: JSON.stringify(payloadFor("PreToolUse")) });
    const warnings = (stderr: string) => qhooksLines(stderr).filter((l) => l.includes(".qoder/settings.json:"));

    it("a file writable by every user: one warning naming it, and the hooks still apply", async () => {
      const file = sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "exit 0")] } });
      chmodSync(file, 0o666);
      const r = await run();
      expect(warnings(r.stderr)).to.deep.equal(["qhooks: warning: .qoder/settings.json: writable by every user; anyone here can change these hooks"]);
      expect(JSON.parse(r.stdout).hooks).to.have.length(1);
    });

    it("a file in a directory writable by every user (no sticky bit): anyone can replace it, so a warning too", async () => {
      const file = sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "exit 0")] } });
      chmodSync(join(file, ".."), 0o777);
      const r = await run();
      expect(warnings(r.stderr)).to.deep.equal([
        "qhooks: warning: .qoder/settings.json: in a directory writable by every user; anyone here can replace these hooks",
      ]);
      // With the sticky bit (as on /tmp), others cannot remove or rename it: no warning.
      chmodSync(join(file, ".."), 0o1777);
      expect(warnings((await run()).stderr)).to.deep.equal([]);
      // Group-writable is the owner's choice of group: no warning either.
      chmodSync(join(file, ".."), 0o775);
      chmodSync(file, 0o664);
      expect(warnings((await run()).stderr)).to.deep.equal([]);
    });
  });
});
