import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { lastValueFrom, reduce } from "rxjs";
import type { EventEntry } from "../../src/store/eventLog.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { replay$ } from "../../src/engine/replay.js";
import type { ReplayResult } from "../../src/schema/replay.js";
import { CLI, Sandbox, group } from "../support/sandbox.js";
import type { ReplayJson } from "./harness.js";

const EVENTS = 10_000;
/** Events of one session, replayed with a real hook. */
const WITH_HOOKS = 1_000;
/** Peak resident memory allowed to the `qhooks replay` process: generous, but far below what holding the log would take. */
const MAX_RSS_MB = 150;
/**
 * Padding per payload: 10,000 of them are ~80 MB of text that a replay must not hold at once. (Measured on the
 * reference machine: ~110 MB peak when the log is read page by page, ~195 MB when it is read in one go.)
 */
const PAD = "x".repeat(8_000);

/** A replay of 10,000 recorded events runs in bounded memory (issue 4, "Done when"). */
describe("qhooks replay of 10,000 recorded events", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let settings: string;

  before(async () => {
    sb = new Sandbox();
    settings = sb.file("s.json", { hooks: { PreToolUse: [group("Bash", { name: "true", command: "true" })] } });
    const log = openSqliteLog(sb.db);
    try {
      for (let first = 0; first < EVENTS; first += 500) {
        const batch: EventEntry[] = [];
        for (let i = first; i < first + 500; i++) {
          const sessionId = `bulk-${Math.floor(i / WITH_HOOKS)}`;
          batch.push({
            kind: "event",
            ts: new Date(),
            source: "record",
            event: "PreToolUse",
            sessionId,
            matchValue: "Bash",
            projectDir: sb.project,
            payload: JSON.stringify({
              session_id: sessionId,
              hook_event_name: "PreToolUse",
              cwd: sb.project,
              tool_name: "Bash",
              tool_input: { command: `echo ${i}`, pad: PAD },
            }),
            snapshot: null,
            rejection: null,
            replay: null,
            outcome: null,
          });
        }
        await log.append(batch);
      }
    } finally {
      await log.close();
    }
  });
  after(() => sb.cleanup());

  /** Runs the CLI and measures its peak RSS: with /usr/bin/time when there is one, else from /proc's VmHWM. */
  async function runMeasured(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakKb: number }> {
    const timeFile = join(sb.root, "time.txt");
    const withTime = existsSync("/usr/bin/time");
    const argv = withTime ? ["/usr/bin/time", "-v", "-o", timeFile, process.execPath, CLI, ...args] : [process.execPath, CLI, ...args];
    const child = spawn(argv[0]!, argv.slice(1), { cwd: sb.project, env: sb.env(), stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    let polledKb = 0;
    let exited = false;
    const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    child.on("exit", () => (exited = true));
    if (!withTime) {
      while (!exited) {
        try {
          const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
          if (hwm) polledKb = Math.max(polledKb, Number(hwm[1]));
        } catch {
          // Gone between the check and the read.
        }
        await sleep(10);
      }
    }
    const code = await closed;
    const peakKb = withTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, "utf8"))?.[1]) : polledKb;
    return { code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), peakKb };
  }

  it(`qhooks replay --match-only reports all ${EVENTS} events, in order, with a peak RSS under ${MAX_RSS_MB} MB`, async () => {
    const r = await runMeasured(["replay", "--event", "PreToolUse", "--match-only", "--settings", settings, "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    // Not a terminal: no progress line, nothing at all on stderr.
    expect(r.stderr).to.equal("");
    const json = JSON.parse(r.stdout) as ReplayJson;
    expect(json.events).to.equal(EVENTS);
    expect(json.results).to.have.length(EVENTS);
    for (let i = 1; i < json.results.length; i++) expect(json.results[i]!.seq).to.be.greaterThan(json.results[i - 1]!.seq);
    expect(json.results.every((x) => x.after.hooks.length === 1 && x.after.hooks[0] === "true" && x.after.decision === null)).to.equal(true);
    expect(r.peakKb).to.be.greaterThan(0);
    expect(r.peakKb / 1024, "peak RSS in MB").to.be.lessThan(MAX_RSS_MB);
  });

  /** Folds a replay into what the tests check: count, order, how many hooks ran, which decisions came out. */
  interface Tally {
    n: number;
    lastSeq: number;
    inOrder: boolean;
    hooks: number;
    decisions: Set<string | null>;
  }
  const fold = () =>
    reduce(
      (acc: Tally, r: ReplayResult): Tally => ({
        n: acc.n + 1,
        lastSeq: r.seq,
        inOrder: acc.inOrder && r.seq > acc.lastSeq,
        hooks: acc.hooks + r.after.hooks.length,
        decisions: acc.decisions.add(r.after.decision),
      }),
      { n: 0, lastSeq: 0, inOrder: true, hooks: 0, decisions: new Set<string | null>() },
    );

  it(`the library's replay$ streams all ${EVENTS} events, match-only, with concurrency 8`, async () => {
    const log = openSqliteLog(sb.db);
    try {
      const r = await lastValueFrom(
        replay$({ log, filter: { event: "PreToolUse" }, settingsFiles: [settings], homeDir: sb.home, env: sb.env(), matchOnly: true, concurrency: 8 }).pipe(
          fold(),
        ),
      );
      expect(r).to.include({ n: EVENTS, inOrder: true, hooks: EVENTS });
      expect([...r.decisions]).to.deep.equal([null]);
    } finally {
      await log.close();
    }
  });

  it(`the library's replay$ runs a real \`true\` hook for each of ${WITH_HOOKS} events with concurrency 8`, async () => {
    const log = openSqliteLog(sb.db);
    try {
      const runId = `replay-test-${Date.now()}`;
      const r = await lastValueFrom(
        replay$({ log, filter: { sessions: ["bulk-0"] }, settingsFiles: [settings], homeDir: sb.home, env: sb.env(), concurrency: 8, runId }).pipe(fold()),
      );
      expect(r).to.include({ n: WITH_HOOKS, inOrder: true, hooks: WITH_HOOKS });
      expect([...r.decisions]).to.deep.equal(["none"]);
      // Each one was judged and logged under the run, hooks included.
      expect(await log.count({ replayRun: runId })).to.equal(WITH_HOOKS);
      let hookRuns = 0;
      for await (const record of log.events({ replayRun: runId }, WITH_HOOKS)) hookRuns += record.hooks.filter((h) => h.outcome === "success").length;
      expect(hookRuns).to.equal(WITH_HOOKS);
      const runs = await log.replayRuns();
      expect(runs.find((x) => x.runId === runId)?.summary).to.include({ events: WITH_HOOKS, changed: 0, hookErrors: 0, timeouts: 0 });
    } finally {
      await log.close();
    }
  });
});
