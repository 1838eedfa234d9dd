import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { expect } from "chai";
import { LogRecordSchema, type LogRecord } from "../../src/schema/logRecord.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { CLI, group, payloadFor, Sandbox } from "../support/sandbox.js";

/** Followers still running: stopped after each test, passed or failed. */
const running = new Set<Follower>();

/** A real `qhooks log --follow` process, its stdout read line by line as it comes. */
class Follower {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = "";
  private readonly lines: string[] = [];
  private wake: (() => void) | null = null;
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(sb: Sandbox, args: readonly string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [CLI, "log", "--follow", "--interval", "100ms", ...args], { cwd: sb.project, env: sb.env(env) });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffer += chunk;
      const parts = this.buffer.split("\n");
      this.buffer = parts.pop()!;
      this.lines.push(...parts);
      this.wake?.();
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
    running.add(this);
    void this.exited.then(() => (running.delete(this), this.wake?.()));
  }

  /** The next line on stdout, waiting for it (the suite's timeout bounds the wait). */
  async line(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.child.exitCode !== null) throw new Error(`the follower exited (${this.child.exitCode}): ${this.stderr}`);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.lines.shift()!;
  }

  async record(): Promise<LogRecord> {
    return LogRecordSchema.parse(JSON.parse(await this.line()));
  }

  /** Lines received and not yet read. */
  get pending(): readonly string[] {
    return this.lines;
  }

  stop(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

for (const backend of ["SQLite", "PostgreSQL"] as const) {
  describe(`qhooks log --follow (${backend})`, function () {
    this.timeout(120_000);
    let sb: Sandbox;
    let db: TestDatabase | null = null;
    let env: Record<string, string> = {};
    const run = (session: string, command = "ls") =>
      sb.runEvent("PreToolUse", { ...payloadFor("PreToolUse", { session_id: session, tool_input: { command } }), hook_event_name: "PreToolUse" }, [], env);

    beforeEach(async () => {
      sb = new Sandbox();
      const guard = sb.script("guard.sh", `cat | grep -q '"rm ' && { echo "no rm" >&2; exit 2; }; exit 0`);
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", guard)] } });
      if (backend === "PostgreSQL") {
        db = await createTestDatabase("qhooks_follow");
        env = { QHOOKS_DB: db.url };
      }
    });
    afterEach(async () => {
      for (const f of running) f.stop("SIGKILL");
      await Promise.all([...running].map((f) => f.exited));
      await db?.drop();
      db = null;
      env = {};
      await sb.cleanup();
    });

    it("prints the newest events, then each event other processes log as it is judged, with its decision; SIGTERM exits 0", async () => {
      expect((await run("first")).code).to.equal(0);
      const follower = new Follower(sb, ["--jsonl"], env);
      const listed = await follower.record();
      expect(listed).to.include({ sessionId: "first", decision: "none" });
      const denied = await run("second", "rm -rf /tmp/x");
      expect(denied.code).to.equal(2);
      const next = await follower.record();
      expect(next).to.include({ sessionId: "second", event: "PreToolUse", decision: "deny", blocked: true });
      expect(next.seq).to.be.greaterThan(listed.seq);
      await run("third");
      expect(await follower.record()).to.include({ sessionId: "third", decision: "none" });
      follower.stop("SIGTERM");
      expect(await follower.exited).to.deep.equal({ code: 0, signal: null });
      expect(follower.pending, "each event once").to.deep.equal([]);
      expect(follower.stderr).to.equal("");
    });

    it("keeps to its filters (--decision) in tab-separated rows under one header; SIGINT exits 0", async () => {
      expect((await run("first")).code).to.equal(0);
      const follower = new Follower(sb, ["--decision", "deny", "--format", "tsv"], env);
      expect(await follower.line()).to.match(/^TIME\tSEQ\tSESSION\tEVENT/);
      await run("allowed");
      await run("blocked", "rm -rf /");
      const row = (await follower.line()).split("\t");
      expect(row.slice(2, 6)).to.deep.equal(["blocked", "PreToolUse", "Bash", "DENY"]);
      follower.stop("SIGINT");
      expect(await follower.exited).to.deep.equal({ code: 0, signal: null });
      expect(follower.pending, "the allowed event is not printed").to.deep.equal([]);
    });
  });
}

describe("qhooks log --follow: usage", () => {
  it("refuses --replay and a bad --interval with one line", async () => {
    const sb = new Sandbox();
    try {
      await sb.runEvent("Stop", payloadFor("Stop", { session_id: "s" }));
      const replay = await sb.run(["log", "--follow", "--replay", "r1"]);
      expect(replay.code).to.equal(1);
      expect(replay.stderr.trim().split("\n")).to.have.length(1);
      expect(replay.stderr).to.match(/--follow follows live events/);
      const interval = await sb.run(["log", "--follow", "--interval", "soon"]);
      expect(interval.code).to.equal(1);
      expect(interval.stderr).to.match(/--interval "soon"/);
    } finally {
      await sb.cleanup();
    }
  });
});
