import { expect } from "chai";
import { SessionRowSchema, type SessionRow, type Stats } from "../../src/schema/logRecord.js";
import { Sandbox } from "../support/sandbox.js";
import { nonEmptyLines, seedLog, type SeedEvent } from "./storeHelpers.js";

const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();

/** 21 durations, 1..21 ms, in a scrambled order (the percentiles must sort them). */
const MANY = Array.from({ length: 21 }, (_, i) => ((i * 8) % 21) + 1);

/**
 * A known history, appended through EventLog.append with controlled times and hook durations. Percentiles are
 * checked on data where nearest-rank and interpolating definitions agree (odd counts, or equal values), so the
 * test pins the numbers, not a choice the contract does not make.
 */
const HISTORY: SeedEvent[] = [
  {
    ts: at(0),
    event: "SessionStart",
    sessionId: "s1",
    matchValue: "startup",
    decision: "none",
    projectDir: "/proj/one",
    hooks: [{ name: "ctx", durationMs: 10 }],
  },
  {
    ts: at(10),
    event: "PreToolUse",
    sessionId: "s1",
    matchValue: "Bash",
    decision: "deny",
    projectDir: "/proj/one",
    reason: "no",
    hooks: [
      { name: "guard", decision: "deny", durationMs: 20 },
      { name: "logger", durationMs: 30 },
    ],
  },
  {
    ts: at(20),
    event: "PreToolUse",
    sessionId: "s1",
    matchValue: "Bash",
    decision: "allow",
    projectDir: "/proj/one",
    hooks: [
      { name: "guard", decision: "allow", durationMs: 20 },
      { name: "logger", durationMs: 30 },
    ],
  },
  {
    ts: at(30),
    event: "PreToolUse",
    sessionId: "s2",
    matchValue: "Write",
    decision: "none",
    projectDir: "/proj/two",
    hooks: [{ name: "logger", durationMs: 30 }],
  },
  {
    ts: at(40),
    event: "Stop",
    sessionId: "s2",
    decision: "block",
    projectDir: "/proj/two",
    reason: "tests fail",
    hooks: [{ name: "tests", decision: "block", durationMs: 75 }],
  },
  { ts: at(50), event: "Stop", sessionId: "s2", decision: "none", projectDir: "/proj/two", hooks: [{ name: "tests", outcome: "error", durationMs: 75 }] },
  { ts: at(60), event: "Stop", sessionId: "s1", decision: "none", projectDir: "/proj/one", hooks: [{ name: "tests", outcome: "timeout", durationMs: 75 }] },
  { ts: at(70), event: "UserPromptSubmit", sessionId: "s1", decision: "recorded", projectDir: "/proj/one" },
  { ts: at(80), event: "PreToolUse", sessionId: "s3", decision: "rejected", projectDir: "/proj/three" },
  { ts: at(90), event: "PreToolUse", sessionId: "s1", matchValue: "Bash", decision: "unfinished", projectDir: "/proj/one" },
  // A rejected payload without a session: counted as an event, but in no session.
  { ts: at(100), event: "PreToolUse", sessionId: null, decision: "rejected", projectDir: "/proj/one", payload: "{oops" },
  ...MANY.map(
    (ms, i): SeedEvent => ({
      ts: at(200 + i),
      event: "Notification",
      sessionId: "s4",
      matchValue: "idle",
      decision: "none",
      projectDir: "/proj/four",
      hooks: [{ name: "many", durationMs: ms }],
    }),
  ),
];

type Count = { event: string; decision: string; count: number };
const byKey = (a: Count, b: Count) => (a.event + a.decision).localeCompare(b.event + b.decision);

describe("qhooks sessions and qhooks stats (contract 5)", () => {
  let sb: Sandbox;
  before(async () => {
    sb = new Sandbox();
    await seedLog(sb.db, HISTORY);
  });
  after(() => sb.cleanup());

  async function json<T>(args: string[]): Promise<T> {
    const r = await sb.run(args);
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout) as T;
  }

  it("sessions --json: one row per session, most recently active first, with exact counts", async () => {
    const listed = SessionRowSchema.array().parse(await json<SessionRow[]>(["sessions", "--json"]));
    // Each row's origin is its first event's: this one log's, judged by Qoder's settings (s3's was never judged).
    expect(listed.map((s) => [s.sessionId, s.origin.host, s.origin.writer !== null])).to.deep.equal([
      ["s4", "qoder", true],
      ["s1", "qoder", true],
      ["s3", null, true],
      ["s2", "qoder", true],
    ]);
    const rows = listed.map(({ origin, ...row }) => row);
    expect(rows).to.deep.equal([
      { sessionId: "s4", projectDir: "/proj/four", firstTs: iso(200), lastTs: iso(220), events: 21, blocked: 0 },
      { sessionId: "s1", projectDir: "/proj/one", firstTs: iso(0), lastTs: iso(90), events: 6, blocked: 1 },
      { sessionId: "s3", projectDir: "/proj/three", firstTs: iso(80), lastTs: iso(80), events: 1, blocked: 0 },
      { sessionId: "s2", projectDir: "/proj/two", firstTs: iso(30), lastTs: iso(50), events: 3, blocked: 1 },
    ]);
  });

  it("sessions --since/--until narrow the window", async () => {
    const rows = (await json<SessionRow[]>(["sessions", "--json", "--since", iso(35), "--until", iso(100)])).map(({ origin, ...row }) => row);
    expect(rows).to.deep.equal([
      { sessionId: "s1", projectDir: "/proj/one", firstTs: iso(60), lastTs: iso(90), events: 3, blocked: 0 },
      { sessionId: "s3", projectDir: "/proj/three", firstTs: iso(80), lastTs: iso(80), events: 1, blocked: 0 },
      { sessionId: "s2", projectDir: "/proj/two", firstTs: iso(40), lastTs: iso(50), events: 2, blocked: 1 },
    ]);
  });

  it("stats --json: counts by event and decision, and per hook runs, blocks, errors, timeouts, p50, p95", async () => {
    const stats = await json<Stats>(["stats", "--json"]);
    expect(stats.events).to.equal(HISTORY.length);
    expect([...stats.byEvent].sort(byKey)).to.deep.equal(
      [
        { event: "SessionStart", decision: "none", count: 1 },
        { event: "PreToolUse", decision: "deny", count: 1 },
        { event: "PreToolUse", decision: "allow", count: 1 },
        { event: "PreToolUse", decision: "none", count: 1 },
        { event: "PreToolUse", decision: "rejected", count: 2 },
        { event: "PreToolUse", decision: "unfinished", count: 1 },
        { event: "Stop", decision: "block", count: 1 },
        { event: "Stop", decision: "none", count: 2 },
        { event: "UserPromptSubmit", decision: "recorded", count: 1 },
        { event: "Notification", decision: "none", count: 21 },
      ].sort(byKey),
    );
    expect(stats.byEvent.reduce((n, c) => n + c.count, 0)).to.equal(stats.events);
    expect(new Set(stats.hooks.map((h) => h.level))).to.deep.equal(new Set(["project"]));
    const hooks = Object.fromEntries(stats.hooks.map(({ name, level: _level, ...rest }) => [name, rest]));
    expect(hooks).to.deep.equal({
      ctx: { runs: 1, blocks: 0, errors: 0, invalidOutputs: 0, timeouts: 0, p50Ms: 10, p95Ms: 10, p99Ms: 10, maxMs: 10, lastTs: "2026-03-02T10:00:00.000Z" },
      guard: { runs: 2, blocks: 1, errors: 0, invalidOutputs: 0, timeouts: 0, p50Ms: 20, p95Ms: 20, p99Ms: 20, maxMs: 20, lastTs: "2026-03-02T10:00:20.000Z" },
      logger: { runs: 3, blocks: 0, errors: 0, invalidOutputs: 0, timeouts: 0, p50Ms: 30, p95Ms: 30, p99Ms: 30, maxMs: 30, lastTs: "2026-03-02T10:00:30.000Z" },
      tests: { runs: 3, blocks: 1, errors: 1, invalidOutputs: 0, timeouts: 1, p50Ms: 75, p95Ms: 75, p99Ms: 75, maxMs: 75, lastTs: "2026-03-02T10:01:00.000Z" },
      // 21 runs: nearest rank puts p95 at the 20th and p99 at the 21st.
      many: { runs: 21, blocks: 0, errors: 0, invalidOutputs: 0, timeouts: 0, p50Ms: 11, p95Ms: 20, p99Ms: 21, maxMs: 21, lastTs: "2026-03-02T10:03:40.000Z" },
    });
  });

  it("stats --since/--until narrow the window", async () => {
    const stats = await json<Stats>(["stats", "--json", "--since", iso(35), "--until", iso(100)]);
    expect(stats.events).to.equal(6);
    expect([...stats.byEvent].sort(byKey)).to.deep.equal(
      [
        { event: "Stop", decision: "block", count: 1 },
        { event: "Stop", decision: "none", count: 2 },
        { event: "UserPromptSubmit", decision: "recorded", count: 1 },
        { event: "PreToolUse", decision: "rejected", count: 1 },
        { event: "PreToolUse", decision: "unfinished", count: 1 },
      ].sort(byKey),
    );
    expect(stats.hooks).to.deep.equal([
      {
        name: "tests",
        level: "project",
        runs: 3,
        blocks: 1,
        errors: 1,
        invalidOutputs: 0,
        timeouts: 1,
        p50Ms: 75,
        p95Ms: 75,
        p99Ms: 75,
        maxMs: 75,
        lastTs: "2026-03-02T10:01:00.000Z",
      },
    ]);
  });

  it("the text forms show the same numbers", async () => {
    const sessions = await sb.run(["sessions", "--format", "table"]);
    expect(sessions.code).to.equal(0);
    const lines = nonEmptyLines(sessions.stdout);
    expect(lines).to.have.length(5);
    expect(lines[0])
      .to.match(/SESSION/)
      .and.match(/EVENTS/)
      .and.match(/BLOCKED/);
    expect(lines.find((l) => l.startsWith("s1 "))!.split(/\s{2,}/)).to.include.members(["6", "1", "/proj/one"]);
    const stats = await sb.run(["stats", "--format", "table"]);
    expect(stats.code).to.equal(0);
    expect(stats.stdout).to.match(new RegExp(`^${HISTORY.length} events`, "m"));
    const many = stats.stdout.split("\n").find((l) => l.startsWith("many "))!;
    expect(many.trim().split(/\s+/)).to.deep.equal(["many", "project", "21", "0", "0", "0", "0", "11", "20", "21"]);
  });
});
