import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { closeSync, copyFileSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { Outcome } from "../../src/schema/outcome.js";
import { journalCount, nonEmptyLines, qhooksLines, seedLog, waitFor } from "../store/storeHelpers.js";
import { CLI, Sandbox, group, payloadFor, type CliResult } from "../support/sandbox.js";
import { QUICK, clip, cliWithDeadline, expectCleanCli, prng } from "./support.js";

/**
 * Issue 6, resource limits, with faults that hold for root: a log path below a regular file, a log that cannot grow
 * (a file size limit on the qhooks process; a real full file system), a read-only file system, a locked database
 * (another process holding its lock through the sqlite3 tool), corrupted files. Each gives one clear line; `qhooks
 * run` still returns the hooks' decision (fail-open for logging); `qhooks record` exits 1; what was logged before
 * stays readable and verified once the fault is gone.
 */

/** The append budget of src/store/sqlite/busy.ts (APPEND_BUDGET_MS): how long an event waits for a lock, once. */
const APPEND_BUDGET_MS = 5000;

describe("reliability: resource limits", function () {
  this.timeout(300_000);
  let sb: Sandbox;
  let hookFile: string;
  const mounts: string[] = [];
  const holders: ChildProcessWithoutNullStreams[] = [];

  beforeEach(async () => {
    sb = new Sandbox();
    hookFile = join(sb.root, "hook-ran");
    // A guard that blocks rm, and a hook that proves the hooks ran.
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group("Bash", { command: "echo 'no rm here' >&2; exit 2", name: "guard" }, { command: `cat > /dev/null; echo ran >> ${hookFile}`, name: "witness" }),
        ],
      },
    });
    // History that must survive every fault.
    await seedLog(
      sb.db,
      Array.from({ length: 30 }, (_, i) => ({
        ts: new Date(Date.now() - 60_000 + i),
        event: "PreToolUse" as const,
        sessionId: `old${i}`,
        matchValue: "Bash",
        decision: "deny" as const,
        hooks: [{ name: "guard", decision: "deny" as const }],
      })),
    );
  });
  afterEach(async () => {
    for (const h of holders) h.kill("SIGKILL");
    holders.length = 0;
    for (const m of mounts.splice(0)) spawnSync("umount", ["-l", m]);
    await sb.cleanup();
  });

  const bigPayload = () => JSON.stringify(payloadFor("PreToolUse", { session_id: "fault", tool_input: { command: `rm -rf / ${"x".repeat(300_000)}` } }));

  /** qhooks run decided as the hooks said (deny, exit 2), with the reason, and one warning line matching `why`. */
  function expectDecidedWithOneWarning(r: CliResult, why: RegExp, label: string): void {
    expectCleanCli(r, label);
    expect(r.code, `${label}: ${clip(r.stderr)}`).to.equal(2);
    const outcome = JSON.parse(r.stdout) as Outcome;
    expect(outcome, label).to.include({ decision: "deny", blocked: true, reason: "no rm here", seq: null });
    expect(
      outcome.hooks.map((h) => [h.name, h.outcome]),
      label,
    ).to.deep.equal([
      ["guard", "block"],
      ["witness", "success"],
    ]);
    const lines = qhooksLines(r.stderr);
    expect(lines, `${label}: ${clip(r.stderr, 1000)}`).to.have.length(1);
    expect(lines[0], label)
      .to.match(/^qhooks: warning: .*not (logged|recorded)/)
      .and.match(why);
    expect(nonEmptyLines(r.stderr), label).to.include("no rm here");
  }

  function expectRecordFails(r: CliResult, why: RegExp, label: string): void {
    expectCleanCli(r, label);
    expect(r.code, label).to.equal(1);
    expect(r.stdout, label).to.equal("");
    const lines = nonEmptyLines(r.stderr);
    expect(lines, `${label}: ${clip(r.stderr, 1000)}`).to.have.length(1);
    expect(lines[0], label)
      .to.match(/^qhooks: /)
      .and.match(why);
  }

  async function expectHistoryIntact(before: number, db = sb.db): Promise<void> {
    const v = await sb.run(["--db", db, "verify"]);
    expect(v.code, v.stdout + v.stderr).to.equal(0);
    expect(journalCount(db)).to.be.at.least(before);
    const records = JSON.parse((await sb.run(["--db", db, "log", "--json", "--limit", "1000"])).stdout) as Outcome[];
    expect(records.filter((r) => r.sessionId?.startsWith("old"))).to.have.length(30);
  }

  it(`a log that cannot grow (prlimit --fsize on qhooks): the write fails with EFBIG, qhooks survives SIGXFSZ, decides, and says why ${QUICK}`, async () => {
    const before = journalCount(sb.db);
    const limit = statSync(sb.db).size;
    // A hook that writes past the limit itself dies of SIGXFSZ (the default action): a hook error, nothing more.
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group(
            "Bash",
            { command: "echo 'no rm here' >&2; exit 2", name: "guard" },
            { command: `cat > /dev/null; echo ran >> ${hookFile}`, name: "witness" },
            { command: `exec head -c ${limit * 4} /dev/zero > ${join(sb.root, "too-big")}`, name: "writer" },
          ),
        ],
      },
    });
    const run = (args: string[], input: string) =>
      new Promise<CliResult>((resolve) => {
        const start = performance.now();
        const child = spawn("prlimit", [`--fsize=${limit}`, process.execPath, CLI, ...args], {
          cwd: sb.project,
          env: sb.env(),
          stdio: ["pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        child.stdin.end(input);
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - start }));
      });
    const r = await run(["run", "PreToolUse"], bigPayload());
    expect(r.signal, "node ignores SIGXFSZ: the write fails instead").to.equal(null);
    expectCleanCli(r, "run");
    expect(r.code, clip(r.stderr)).to.equal(2);
    const outcome = JSON.parse(r.stdout) as Outcome;
    expect(outcome).to.include({ decision: "deny", seq: null });
    expect(outcome.hooks.map((h) => [h.name, h.outcome, h.signal])).to.deep.equal([
      ["guard", "block", null],
      ["witness", "success", null],
      ["writer", "error", "SIGXFSZ"],
    ]);
    const lines = qhooksLines(r.stderr);
    expect(lines, clip(r.stderr, 1000)).to.have.length(1);
    expect(lines[0]).to.match(/^qhooks: warning: .*not (logged|recorded).*(disk is full|file size limit)/);

    const rec = await run(["record", "PreToolUse"], bigPayload());
    expect(rec.signal).to.equal(null);
    expectRecordFails(rec, /disk is full|file size limit/, "record");
    await expectHistoryIntact(before);
  });

  it("a full file system (a small tmpfs filled up): qhooks run decides with one warning, record exits 1, nothing logged is lost", async () => {
    const dir = join(sb.root, "full");
    mkdirSync(dir);
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]).status, "mount a tmpfs (the suite runs as root)").to.equal(0);
    mounts.push(dir);
    const db = join(dir, "events.db");
    copyFileSync(sb.db, db);
    const before = journalCount(db);
    // Fill what is left.
    const filler = openSync(join(dir, "filler"), "w");
    try {
      for (;;) writeSync(filler, Buffer.alloc(64 * 1024));
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).to.equal("ENOSPC");
    } finally {
      closeSync(filler);
    }
    const r = await sb.run(["--db", db, "run", "PreToolUse"], { input: bigPayload() });
    expectDecidedWithOneWarning(r, /disk is full|writing the file failed/, "run on a full disk");
    expectRecordFails(
      await sb.run(["--db", db, "record", "PreToolUse"], { input: bigPayload() }),
      /disk is full|writing the file failed/,
      "record on a full disk",
    );
    // With room again, the history is all there and the log takes appends.
    writeFileSync(join(dir, "filler"), "");
    await expectHistoryIntact(before, db);
    const after = await sb.run(["--db", db, "run", "PreToolUse"], { input: JSON.stringify(payloadFor("PreToolUse", { tool_name: "Read" })) });
    expect(after.code, after.stderr).to.equal(0);
    expect(JSON.parse(after.stdout).seq).to.be.a("number");
  });

  it("a read-only file system: qhooks run decides with one warning, record exits 1, the audit commands say why they cannot read", async () => {
    const dir = join(sb.root, "ro");
    mkdirSync(dir);
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir]).status, "mount a tmpfs (the suite runs as root)").to.equal(0);
    mounts.push(dir);
    const db = join(dir, "events.db");
    copyFileSync(sb.db, db);
    expect(spawnSync("mount", ["-o", "remount,ro", dir]).status).to.equal(0);
    const r = await sb.run(["--db", db, "run", "PreToolUse"], { input: bigPayload() });
    expectDecidedWithOneWarning(r, /read-only/, "run on a read-only disk");
    expectRecordFails(await sb.run(["--db", db, "record", "PreToolUse"], { input: bigPayload() }), /read-only/, "record on a read-only disk");
    // A WAL log cannot be read where SQLite cannot write its index file (a documented limit): one clear line.
    for (const command of [["log"], ["verify"]]) {
      const a = await sb.run(["--db", db, ...command]);
      expectCleanCli(a, command[0]!);
      expect(a.code).to.equal(1);
      expect(nonEmptyLines(a.stderr)).to.have.length(1);
      expect(a.stderr).to.match(/read-only/);
    }
  });

  it(`a log path below a regular file: run decides with one warning, record exits 1, again and again ${QUICK}`, async () => {
    const file = sb.file("plain-file", "not a directory\n");
    const db = join(file, "events.db");
    for (let i = 0; i < 3; i++) {
      expectDecidedWithOneWarning(await sb.run(["--db", db, "run", "PreToolUse"], { input: bigPayload() }), /not a directory/, `run ${i}`);
      expectRecordFails(await sb.run(["--db", db, "record", "PreToolUse"], { input: bigPayload() }), /not a directory/, `record ${i}`);
    }
    expect(readFileSync(file, "utf8")).to.equal("not a directory\n");
  });

  /** Starts the sqlite3 tool on the log, runs `sql`, and keeps it (and its lock) open until the test ends. */
  async function holdLock(sql: string): Promise<void> {
    const holder = spawn("sqlite3", [sb.db], { stdio: ["pipe", "pipe", "pipe"] });
    holders.push(holder);
    let out = "";
    holder.stdout.on("data", (c: Buffer) => (out += c.toString()));
    holder.stderr.on("data", (c: Buffer) => (out += c.toString()));
    holder.stdin.write(`${sql}\nSELECT 'holding';\n`);
    await waitFor("the sqlite3 tool to hold the lock", () => out.includes("holding"), 5000);
    expect(out).to.not.match(/Error/);
  }

  for (const [name, sql, why, quick] of [
    ["BEGIN EXCLUSIVE (writers locked out)", "BEGIN EXCLUSIVE;", /locked/, true],
    [
      "PRAGMA locking_mode=EXCLUSIVE after a write (readers locked out too)",
      "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; CREATE TABLE t(x); COMMIT; BEGIN EXCLUSIVE;",
      /locked/,
      false,
    ],
  ] as const) {
    it(`a locked database, ${name}: run returns the hooks' decision within the append budget plus a margin, record exits 1${quick ? ` ${QUICK}` : ""}`, async () => {
      const before = journalCount(sb.db);
      await holdLock(sql);
      const r = await cliWithDeadline(sb, ["run", "PreToolUse"], { input: bigPayload(), deadlineMs: 60_000 });
      expect(r.hung).to.equal(false);
      expectDecidedWithOneWarning(r, why, "run");
      // One budget for the whole event (its arrival waits, its outcome does not wait again), plus startup and hooks.
      expect(r.ms, "settles within the budget plus a margin").to.be.below(APPEND_BUDGET_MS + 3000);
      const rec = await cliWithDeadline(sb, ["record", "PreToolUse"], { input: bigPayload(), deadlineMs: 60_000 });
      expectRecordFails(rec, why, "record");
      expect(rec.ms).to.be.below(APPEND_BUDGET_MS + 3000);
      // Released: everything is there, and the log takes the next event.
      for (const h of holders.splice(0)) h.kill("SIGKILL");
      await expectHistoryIntact(before);
      const next = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read" }));
      expect(next.code).to.equal(0);
      expect(next.outcome!.seq).to.be.a("number");
    });
  }

  it("the library bus under a held lock: each dispatch waits the budget once, decides, and warns; later dispatches log again", async () => {
    await holdLock("BEGIN EXCLUSIVE;");
    const bus = sb.bus({ db: sb.db, watch: false });
    const start = performance.now();
    const outcomes = await Promise.all(
      [0, 1, 2].map((i) =>
        bus.dispatch({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse", { session_id: `locked${i}`, tool_input: { command: "rm -rf /" } }) }),
      ),
    );
    expect(performance.now() - start, "three events wait side by side, each once").to.be.below(APPEND_BUDGET_MS + 3000);
    for (const o of outcomes) {
      expect(o).to.include({ decision: "deny", seq: null });
      expect(o.warnings).to.have.length(1);
      expect(o.warnings[0]).to.match(/not recorded.*locked/);
    }
    for (const h of holders.splice(0)) h.kill("SIGKILL");
    const after = await bus.dispatch({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse", { session_id: "free" }) });
    expect(after.seq).to.be.a("number");
    expect(after.warnings).to.deep.equal([]);
  });

  async function corruptRounds(rounds: number, seed: number): Promise<void> {
    const random = prng(seed);
    const good = join(sb.root, "good.db");
    copyFileSync(sb.db, good);
    const size = statSync(good).size;
    const seen = new Map<string, number>();
    for (let i = 0; i < rounds; i++) {
      const db = join(sb.root, `corrupt-${i}.db`);
      copyFileSync(good, db);
      const kind = i % 3;
      const fd = openSync(db, "r+");
      if (kind === 0) {
        // A few random bytes anywhere (the header included).
        for (let k = 0; k < 1 + Math.floor(random() * 4); k++) writeSync(fd, Buffer.from([Math.floor(random() * 256)]), 0, 1, Math.floor(random() * size));
      } else if (kind === 1) {
        // A run of random bytes in the middle of a page.
        const len = 16 + Math.floor(random() * 2048);
        writeSync(fd, Buffer.from(Array.from({ length: len }, () => Math.floor(random() * 256))), 0, len, Math.floor(random() * (size - len)));
      } else {
        // Cut short.
        ftruncateSync(fd, Math.floor(random() * size));
      }
      closeSync(fd);
      const label = `round ${i} (kind ${kind})`;
      const r = await cliWithDeadline(sb, ["--db", db, "run", "PreToolUse"], { input: bigPayload(), deadlineMs: 30_000 });
      expect(r.hung, label).to.equal(false);
      expectCleanCli(r, label);
      expect(r.code, `${label}: ${clip(r.stderr)}`).to.equal(2);
      expect(JSON.parse(r.stdout), label).to.include({ decision: "deny", blocked: true });
      expect(qhooksLines(r.stderr).length, `${label}: ${clip(r.stderr, 800)}`).to.be.at.most(1);
      const rec = await cliWithDeadline(sb, ["--db", db, "record", "Stop"], { input: JSON.stringify({ session_id: "c" }), deadlineMs: 30_000 });
      expectCleanCli(rec, `${label} record`);
      expect(rec.code, label).to.be.oneOf([0, 1]);
      expect(nonEmptyLines(rec.stderr).length, label).to.equal(rec.code === 0 ? 0 : 1);
      for (const command of [["verify"], ["log", "--json", "--limit", "1000"], ["stats", "--json"]]) {
        const a = await cliWithDeadline(sb, ["--db", db, ...command], { deadlineMs: 30_000 });
        const what = `${label} ${command[0]}`;
        expect(a.hung, what).to.equal(false);
        expectCleanCli(a, what);
        expect(a.code, `${what}: ${clip(a.stderr)}`).to.be.oneOf(command[0] === "verify" ? [0, 1, 3] : [0, 1]);
        if (a.code === 0 && command[0] === "log") expect(() => JSON.parse(a.stdout), what).to.not.throw();
        if (a.code !== 0) {
          expect(a.stdout, what).to.equal("");
          expect(nonEmptyLines(a.stderr), what).to.have.length(1);
        }
        seen.set(`${command[0]}:${a.code}`, (seen.get(`${command[0]}:${a.code}`) ?? 0) + 1);
      }
    }
    console.log(`      exit codes seen: ${[...seen.entries()].map(([k, n]) => `${k}×${n}`).join(", ")}`);
    // Random damage may land where no check reads (a free page, an index): one edit that surely reaches a record's
    // content (a session id changed wherever the file holds it) must be an integrity failure.
    const edited = join(sb.root, "edited.db");
    const bytes = readFileSync(good);
    const from = Buffer.from("old17");
    for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + 1)) bytes.write("olx17", at);
    writeFileSync(edited, bytes);
    const verdict = await cliWithDeadline(sb, ["--db", edited, "verify"], { deadlineMs: 30_000 });
    expectCleanCli(verdict, "edited record");
    seen.set(`verify:${verdict.code}`, (seen.get(`verify:${verdict.code}`) ?? 0) + 1);
    expect(verdict.code, `an edited record: ${clip(verdict.stderr)}`).to.equal(3);
    expect(seen.get("verify:3") ?? 0, "some damage is an integrity failure").to.be.greaterThan(0);
  }

  it(`corrupted files (random bytes, random runs, truncation), 9 rounds: one clear line each, run still decides ${QUICK}`, () => corruptRounds(9, 0xc0de1));
  it("corrupted files, 45 more rounds", () => corruptRounds(45, 0xc0de2));
});
