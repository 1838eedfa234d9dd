import { randomBytes } from "node:crypto";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { Sandbox, group, payloadFor, type CliResult } from "../support/sandbox.js";
import { logJson, nonEmptyLines, qhooksLines, readOnly, seedLog } from "./storeHelpers.js";

const mode = (path: string) => statSync(path).mode & 0o777;
const octal = (m: number) => `0${m.toString(8)}`;

/** Runs `fn` (which must spawn synchronously) under a permissive umask, so that only qhooks' own modes count. */
function underUmask<T>(umask: number, fn: () => T): T {
  const old = process.umask(umask);
  try {
    return fn();
  } finally {
    process.umask(old);
  }
}

describe("where the log lives and who may read it (contract 5, 7)", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "exit 0")] } });
  });
  afterEach(() => sb.cleanup());

  it("qhooks run creates the file 0600 and the directories it makes 0700, whatever the umask", async () => {
    const db = join(sb.root, "made", "by", "qhooks", "events.db");
    const r = await underUmask(0o000, () => sb.runEvent("PreToolUse", payloadFor("PreToolUse"), [], { QHOOKS_DB: db }));
    expect(r.code, r.stderr).to.equal(0);
    expect(r.outcome!.seq).to.be.a("number");
    expect(octal(mode(db))).to.equal("0600");
    for (const dir of ["made", "made/by", "made/by/qhooks"]) expect(octal(mode(join(sb.root, dir))), dir).to.equal("0700");
  });

  it("qhooks record creates it the same way", async () => {
    const db = join(sb.root, "rec", "events.db");
    const r = await underUmask(0o000, () => sb.run(["record", "Stop"], { input: JSON.stringify({ session_id: "p" }), env: { QHOOKS_DB: db } }));
    expect(r.code, r.stderr).to.equal(0);
    expect(octal(mode(db))).to.equal("0600");
    expect(octal(mode(join(sb.root, "rec")))).to.equal("0700");
  });

  it("the write-ahead files next to the log are private too", async () => {
    const db = join(sb.root, "wal", "events.db");
    const log = underUmask(0o000, () => openSqliteLog(db));
    try {
      // (The first write happens synchronously inside append(), so under the same umask.)
      await underUmask(0o000, () =>
        log.append([
          {
            kind: "event",
            ts: new Date(),
            source: "record",
            event: "Stop",
            sessionId: "w",
            matchValue: null,
            projectDir: sb.project,
            payload: "{}",
            snapshot: null,
            rejection: null,
            replay: null,
            outcome: null,
          },
        ]),
      );
      // While the log is open (as during a run), its -wal and -shm files exist and hold its latest records.
      for (const suffix of ["-wal", "-shm"]) {
        expect(existsSync(db + suffix), suffix).to.equal(true);
        expect(octal(mode(db + suffix)), suffix).to.equal("0600");
      }
    } finally {
      await log.close();
    }
  });

  it("without --db or $QHOOKS_DB the log is $HOME/.qhooks/events.db", async () => {
    const unset = { QHOOKS_DB: undefined };
    const r = await underUmask(0o000, () => sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "home" }), [], unset));
    expect(r.code, r.stderr).to.equal(0);
    const expected = join(sb.home, ".qhooks", "events.db");
    expect(existsSync(expected)).to.equal(true);
    expect(existsSync(sb.db)).to.equal(false);
    expect(octal(mode(expected))).to.equal("0600");
    expect(octal(mode(join(sb.home, ".qhooks")))).to.equal("0700");
    const records = await logJson(sb, [], unset);
    expect(records.map((x) => [x.sessionId, x.seq])).to.deep.equal([["home", r.outcome!.seq]]);
  });

  it("--db wins over $QHOOKS_DB, which wins over the default", async () => {
    const other = join(sb.root, "other.db");
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "flag" }), ["--db", other]);
    expect(r.code).to.equal(0);
    expect(existsSync(other)).to.equal(true);
    expect(existsSync(sb.db)).to.equal(false);
    expect(existsSync(join(sb.home, ".qhooks"))).to.equal(false);
    expect((await logJson(sb, ["--db", other])).map((x) => x.sessionId)).to.deep.equal(["flag"]);
    // $QHOOKS_DB (the sandbox's) has nothing yet: `log` without --db says so.
    const viaEnv = await sb.run(["log"]);
    expect(viaEnv.code).to.equal(1);
    expect(viaEnv.stderr).to.include(sb.db);
    const r2 = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "env" }));
    expect(r2.code).to.equal(0);
    expect((await logJson(sb)).map((x) => x.sessionId)).to.deep.equal(["env"]);
    expect(existsSync(join(sb.home, ".qhooks"))).to.equal(false);
  });
});

/**
 * Contract 5 and the issue: when the log cannot be written, `qhooks run` still returns the hooks' decision, with one
 * `qhooks:` line saying what was not logged; `qhooks record` exits 1. Tests run as root, so file modes stop nothing:
 * these faults are made of the file system and of the file's content instead.
 */
describe("a log that cannot be written (fail-open)", () => {
  let sb: Sandbox;
  let goodLog: string;
  before(async () => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo 'no rm here' >&2; exit 2", name: "guard" })] } });
    // A real log with enough rows to span many pages, to truncate or damage in the middle.
    goodLog = join(sb.root, "good.db");
    const base = Date.now() - 3_600_000;
    await seedLog(
      goodLog,
      Array.from({ length: 150 }, (_, i) => ({
        ts: new Date(base + i),
        event: "PreToolUse" as const,
        sessionId: `g${i}`,
        matchValue: "Bash",
        decision: "deny" as const,
        payload: { session_id: `g${i}`, tool_name: "Bash", tool_input: { command: "x".repeat(200) } },
        hooks: [{ name: "guard", decision: "deny" as const }],
      })),
    );
  });
  after(() => sb.cleanup());

  // `noHookToo`: also try an event no hook matches (its arrival and outcome are written in one step).
  const faults: { name: string; noHookToo?: boolean; why: RegExp; make: (dir: string) => string }[] = [
    {
      name: "a path below a regular file",
      noHookToo: true,
      why: /not a directory/,
      make: (dir) => {
        sb.file(join(dir, "regular-file"), "just a file\n");
        return join(dir, "regular-file", "events.db");
      },
    },
    {
      name: "a path that is a directory",
      why: /is a directory/,
      make: (dir) => {
        mkdirSync(join(dir, "a-directory.db"), { recursive: true });
        return join(dir, "a-directory.db");
      },
    },
    {
      name: "a corrupt file (random bytes)",
      why: /not a readable SQLite database/,
      make: (dir) => {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "random.db"), randomBytes(64 * 1024));
        return join(dir, "random.db");
      },
    },
    {
      name: "a truncated log",
      why: /not a readable SQLite database/,
      make: (dir) => {
        const file = join(dir, "truncated.db");
        mkdirSync(dir, { recursive: true });
        copyFileSync(goodLog, file);
        truncateSync(file, Math.floor(statSync(file).size / 2));
        return file;
      },
    },
    {
      name: "a log with damaged pages (opens, but cannot be written)",
      noHookToo: true,
      why: /not a readable SQLite database/,
      make: (dir) => {
        const file = join(dir, "damaged.db");
        mkdirSync(dir, { recursive: true });
        copyFileSync(goodLog, file);
        const pageSize = readOnly(file, (db) => db.pragma("page_size", { simple: true }) as number);
        // The journal's three rightmost leaves: the chain's head, which the next append reads, and the newest
        // records, which the audit commands read.
        const pages = readOnly(file, (db) =>
          (db.prepare("SELECT pageno AS p FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf' ORDER BY path DESC LIMIT 3").all() as { p: number }[]).map(
            (r) => r.p,
          ),
        );
        expect(pages).to.have.length(3);
        const fd = openSync(file, "r+");
        for (const page of pages) writeSync(fd, randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize);
        closeSync(fd);
        return file;
      },
    },
  ];

  let n = 0;
  for (const fault of faults) {
    describe(fault.name, () => {
      let path: string;
      let snapshot: Buffer | null;
      beforeEach(() => {
        path = fault.make(join(sb.root, `fault-${++n}`));
        snapshot = existsSync(path) && statSync(path).isFile() ? readFileSync(path) : null;
      });
      afterEach(() => {
        // qhooks leaves the broken thing as it found it (no repair, no overwrite of the user's data).
        if (snapshot) expect(readFileSync(path).equals(snapshot), "file left untouched").to.equal(true);
      });

      const expectOneWarning = (r: CliResult) => {
        const lines = qhooksLines(r.stderr);
        expect(lines, r.stderr).to.have.length(1);
        expect(lines[0])
          .to.match(/^qhooks: warning: /)
          .and.match(/not (logged|recorded)/)
          .and.match(fault.why)
          .and.include(path);
      };

      it("qhooks run still blocks (exit 2, the decision on stdout, the reason on stderr) with one warning", async () => {
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }), ["--db", path]);
        expect(r.code, r.stderr).to.equal(2);
        expect(r.outcome).to.include({ decision: "deny", blocked: true, reason: "no rm here", seq: null });
        expect(nonEmptyLines(r.stderr)).to.include("no rm here");
        expectOneWarning(r);
      });

      if (fault.noHookToo)
        it("qhooks run with no matching hook still answers (exit 0) with one warning", async () => {
          const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read" }), ["--db", path]);
          expect(r.code, r.stderr).to.equal(0);
          expect(r.outcome).to.include({ decision: "none", seq: null });
          expectOneWarning(r);
        });

      it("qhooks record exits 1 with one line", async () => {
        const r = await sb.run(["--db", path, "record", "Stop"], { input: JSON.stringify({ session_id: "f" }) });
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = nonEmptyLines(r.stderr);
        expect(lines).to.have.length(1);
        expect(lines[0])
          .to.match(/^qhooks: /)
          .and.include(path)
          .and.match(fault.why);
        expect(lines[0]).not.to.match(/internal error/);
      });
    });
  }

  it("the audit commands on a damaged log: a clear line, and verify calls it an integrity failure", async () => {
    const path = faults[4]!.make(join(sb.root, "audit"));
    for (const command of [["log"], ["log", "--json"], ["log", "--jsonl"], ["sessions"]]) {
      const r = await sb.run(["--db", path, ...command]);
      expect(r.code, command.join(" ")).to.equal(1);
      expect(r.stdout, command.join(" ")).to.equal("");
      const lines = nonEmptyLines(r.stderr);
      expect(lines, command.join(" ")).to.have.length(1);
      expect(lines[0])
        .to.match(/^qhooks: /)
        .and.include(path);
      expect(lines[0]).not.to.match(/internal error/);
    }
    // stats reads only its covering indexes, which the damage did not reach: it answers, or fails cleanly.
    const stats = await sb.run(["--db", path, "stats", "--json"]);
    if (stats.code === 0) expect(() => JSON.parse(stats.stdout)).not.to.throw();
    else
      expect(nonEmptyLines(stats.stderr))
        .to.have.length(1)
        .and.satisfy((l: string[]) => l[0]!.startsWith("qhooks: ") && !l[0]!.includes("internal error"));
    const v = await sb.run(["--db", path, "verify"]);
    expect(v.code).to.equal(3);
    expect(nonEmptyLines(v.stderr)).to.have.length(1);
    expect(v.stderr).to.match(/^qhooks: .*record \d+/);
  });
});
