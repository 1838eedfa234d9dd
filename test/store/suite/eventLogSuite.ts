import { expect } from "chai";
import fc from "fast-check";
import { QhooksError } from "../../../src/errors.js";
import { EventDetailSchema } from "../../../src/schema/eventDetail.js";
import { LogRecordSchema, MatchCountSchema, SessionRowSchema, StatsSchema, VerifyResultSchema } from "../../../src/schema/logRecord.js";
import type { Outcome } from "../../../src/schema/outcome.js";
import type { EventEntry } from "../../../src/store/eventLog.js";
import type { Store } from "../../../src/store/openStore.js";
import { makeOutcome, type SeedEvent } from "../storeHelpers.js";

/** A log behind the port: what every backend gives the shared suite. */
export type { Store };

export interface StoreBackend {
  /** For the suite's title: SQLite, PostgreSQL... */
  readonly name: string;
  /**
   * A new, empty log, and a way to open the same log again (as another process, or a later run, would): each
   * store it returns is closed by the suite.
   */
  fresh(): Promise<{ readonly log: Store; again(): Promise<Store> }>;
  /** Removes whatever `fresh()` made. */
  cleanup(): Promise<void>;
  /**
   * False for a backend that does not erase or prune yet: the suite then checks that both refuse with a usage error
   * and change nothing, instead of running the erasure and retention cases.
   */
  readonly maintenance?: boolean;
}

const SNAPSHOT = { hash: "c".repeat(64), document: [{ level: "project", hooks: { PreToolUse: [] } }], warnings: ["a warning of this configuration"] };
const t0 = Date.parse("2025-03-01T10:00:00.000Z");
const at = (minutes: number) => new Date(t0 + minutes * 60_000);

/** The entry a dispatch appends when the event arrives (judged later) or, with `outcome`, when judged in one step. */
function eventEntry(e: SeedEvent, outcome: Outcome | null, replay: EventEntry["replay"] = null): EventEntry {
  const payload = e.payload ?? { session_id: e.sessionId, hook_event_name: e.event, tool_name: e.matchValue };
  return {
    kind: "event",
    ts: e.ts,
    source: replay ? "replay" : e.decision === "recorded" ? "record" : "dispatch",
    event: e.event,
    sessionId: e.sessionId,
    matchValue: e.matchValue ?? null,
    projectDir: e.projectDir ?? "/suite/project",
    payload: typeof payload === "string" ? payload : JSON.stringify(payload),
    snapshot: e.decision === "recorded" || e.decision === "rejected" ? null : SNAPSHOT,
    rejection: e.decision === "rejected" ? (e.reason ?? "invalid payload") : null,
    replay,
    outcome,
  };
}

/** Appends an event as the engine does: in one step without hooks, arrival then outcome with hooks. */
async function record(log: Store, e: SeedEvent, replay: EventEntry["replay"] = null): Promise<number> {
  const judged = e.decision !== "recorded" && e.decision !== "rejected" && e.decision !== "unfinished";
  const outcome = judged ? makeOutcome(e) : null;
  if (!outcome || outcome.hooks.length === 0) {
    const [seq] = await log.append([eventEntry(e, outcome, replay)]);
    return seq!;
  }
  const [seq] = await log.append([eventEntry(e, null, replay)]);
  await log.append([{ kind: "outcome", ts: e.ts, eventSeq: seq!, outcome: { ...outcome, seq: seq! } }]);
  return seq!;
}

async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/**
 * The behaviour every backend of the store port must have, through the port alone: the same suite runs against
 * SQLite here and against any other backend that gets written.
 */
export function eventLogSuite(backend: StoreBackend): void {
  describe(`the store port (${backend.name})`, function () {
    this.timeout(60_000);
    const opened: Store[] = [];
    const fresh = async () => {
      const made = await backend.fresh();
      opened.push(made.log);
      return {
        log: made.log,
        again: async () => {
          const other = await made.again();
          opened.push(other);
          return other;
        },
      };
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((l) => l.close()));
    });
    after(() => backend.cleanup());

    it("append resolves to one seq per entry, in order, once committed: the log opened again sees them", async () => {
      const { log, again } = await fresh();
      const result = await log.append([
        eventEntry({ ts: at(0), event: "SessionStart", sessionId: "a", matchValue: "startup", decision: "recorded" }, null),
        eventEntry({ ts: at(1), event: "Stop", sessionId: "a", decision: "recorded" }, null),
      ]);
      expect(result).to.have.length(2);
      expect(result.warnings).to.deep.equal([]);
      expect(result[1]).to.equal(result[0]! + 1);
      const next = await log.append([eventEntry({ ts: at(2), event: "Stop", sessionId: "b", decision: "recorded" }, null)]);
      expect(next[0]).to.be.greaterThan(result[1]!);
      const other = await again();
      expect((await all(other.events({}, 10))).map((r) => r.seq)).to.deep.equal([next[0], result[1], result[0]]);
    });

    it("an event judged in one step is listed with its outcome; event(seq) gives all of it", async () => {
      const { log } = await fresh();
      const e: SeedEvent = {
        ts: at(0),
        event: "PreToolUse",
        sessionId: "s",
        matchValue: "Bash",
        decision: "none",
        payload: { session_id: "s", tool_name: "Bash", n: 1 },
      };
      const seq = await record(log, e);
      const [listed] = await all(log.events({}, 10));
      expect(LogRecordSchema.parse(listed)).to.include({
        seq,
        event: "PreToolUse",
        sessionId: "s",
        decision: "none",
        matchValue: "Bash",
        source: "dispatch",
        ts: at(0).toISOString(),
      });
      expect(listed!.payload).to.deep.equal({ session_id: "s", tool_name: "Bash", n: 1 });
      const detail = EventDetailSchema.parse(await log.event(seq));
      expect(detail).to.deep.include({ seq, decision: "none", payload: JSON.stringify(e.payload), rejection: null, replay: null });
      expect(detail.outcome).to.deep.equal({ ...makeOutcome(e), seq });
      expect(detail.snapshot).to.deep.equal(SNAPSHOT);
      expect(detail.chain.records.map((r) => r.seq)).to.deep.equal([seq]);
      expect(detail.chain.logId).to.be.a("string");
    });

    it("an event with hooks is unfinished until its outcome comes, then has every hook result and its output", async () => {
      const { log } = await fresh();
      const e: SeedEvent = {
        ts: at(0),
        event: "PreToolUse",
        sessionId: "s",
        matchValue: "Bash",
        decision: "deny",
        reason: "no",
        hooks: [{ name: "guard", decision: "deny", reason: "no" }, { name: "fmt" }],
      };
      const [seq] = await log.append([eventEntry(e, null)]);
      expect((await all(log.events({}, 10))).map((r) => [r.seq, r.decision])).to.deep.equal([[seq, "unfinished"]]);
      expect(await log.event(seq!)).to.deep.include({ decision: "unfinished", outcome: null });
      const outcome = {
        ...makeOutcome(e),
        seq: seq!,
        hooks: makeOutcome(e).hooks.map((h) => ({ ...h, stdout: `out of ${h.name}`, stderr: `err of ${h.name}` })),
      };
      await log.append([{ kind: "outcome", ts: at(1), eventSeq: seq!, outcome }]);
      const [listed] = await all(log.events({}, 10));
      expect(listed).to.include({ seq, decision: "deny", blocked: true, reason: "no" });
      expect(listed!.hooks.map((h) => [h.name, h.outcome, h.stdout])).to.deep.equal([
        ["guard", "block", "out of guard"],
        ["fmt", "success", "out of fmt"],
      ]);
      const detail = EventDetailSchema.parse(await log.event(seq!));
      expect(detail.outcome).to.deep.equal(outcome);
      expect(detail.chain.records).to.have.length(2);
      expect(detail.chain.records[1]!.seq).to.be.greaterThan(seq!);
      expect(await log.event(detail.chain.records[1]!.seq), "an outcome's seq is no event").to.equal(null);
      expect(await log.event(10_000)).to.equal(null);
    });

    it("settledAfter: events settled after a record, in the order they settled, filtered; unfinished ones wait for their outcome", async () => {
      const { log, again } = await fresh();
      const start = await log.settledAfter({}, 0, 100);
      expect(start).to.deep.equal({ records: [], through: 0 });
      const slow: SeedEvent = {
        ts: at(0),
        event: "PreToolUse",
        sessionId: "a",
        matchValue: "Bash",
        decision: "deny",
        reason: "no",
        hooks: [{ name: "guard", decision: "deny", reason: "no" }],
      };
      const [slowSeq] = await log.append([eventEntry(slow, null)]);
      const quick = await record(log, { ts: at(1), event: "PreToolUse", sessionId: "b", matchValue: "Read", decision: "none" });
      const noted = await record(log, { ts: at(2), event: "Stop", sessionId: "a", decision: "recorded" });
      const first = await log.settledAfter({}, start.through, 100);
      expect(first.records.map((r) => [r.seq, r.decision])).to.deep.equal([
        [quick, "none"],
        [noted, "recorded"],
      ]);
      expect(first.through).to.equal(noted);
      await log.append([{ kind: "outcome", ts: at(3), eventSeq: slowSeq!, outcome: { ...makeOutcome(slow), seq: slowSeq! } }]);
      // Another process's reader sees what this one appended.
      const other = await again();
      const second = await other.settledAfter({}, first.through, 100);
      expect(second.records.map((r) => [r.seq, r.decision, r.reason])).to.deep.equal([[slowSeq, "deny", "no"]]);
      expect(second.through).to.be.greaterThan(first.through);
      expect(await other.settledAfter({}, second.through, 100)).to.deep.equal({ records: [], through: second.through });
      // Filters select as the listing does; a limit cuts, and `through` is where the cut was.
      expect((await other.settledAfter({ sessions: ["a"] }, start.through, 100)).records.map((r) => r.seq)).to.deep.equal([noted, slowSeq]);
      expect((await other.settledAfter({ decision: "deny" }, start.through, 100)).records.map((r) => r.seq)).to.deep.equal([slowSeq]);
      const cut = await other.settledAfter({}, start.through, 1);
      expect(cut).to.deep.include({ through: quick });
      expect(cut.records.map((r) => r.seq)).to.deep.equal([quick]);
      expect((await other.settledAfter({}, cut.through, 100)).records.map((r) => r.seq)).to.deep.equal([noted, slowSeq]);
    });

    it("async hook results: appended against their event before or after its outcome, listed with it in order; one for no event is refused", async () => {
      const { log } = await fresh();
      const e: SeedEvent = { ts: at(0), event: "Stop", sessionId: "a", decision: "none", hooks: [{ name: "sync" }] };
      const [seq] = await log.append([eventEntry(e, null)]);
      const result = (name: string, outcome: "success" | "timeout") => ({
        ...makeOutcome(e).hooks[0]!,
        name,
        outcome,
        stdout: `out of ${name}`,
        timedOut: outcome === "timeout",
      });
      await log.append([{ kind: "hook", ts: at(1), eventSeq: seq!, event: "Stop", sessionId: "a", result: result("early", "success") }]);
      await log.append([{ kind: "outcome", ts: at(2), eventSeq: seq!, outcome: { ...makeOutcome(e), seq: seq! } }]);
      await log.append([{ kind: "hook", ts: at(3), eventSeq: seq!, event: "Stop", sessionId: "a", result: result("late", "timeout") }]);
      const [listed] = await all(log.events({}, 10));
      const parsed = LogRecordSchema.parse(listed);
      expect(parsed.hooks.map((h) => h.name)).to.deep.equal(["sync"]);
      expect(parsed.asyncHooks.map((h) => [h.name, h.outcome, h.stdout])).to.deep.equal([
        ["early", "success", "out of early"],
        ["late", "timeout", "out of late"],
      ]);
      const bad = log.append([{ kind: "hook", ts: at(4), eventSeq: seq! + 100, event: "Stop", sessionId: "a", result: result("lost", "success") }]);
      const settled = await Promise.allSettled([bad]);
      expect(settled[0]!.status).to.equal("rejected");
      expect((await log.verify()).ok).to.equal(true);
      expect((await log.stats({})).hooks.map((h) => h.name)).to.deep.equal(["sync"]);
    });

    it("stats: one name at two levels is two hooks, each its own runs and percentiles, by name then level", async () => {
      const { log } = await fresh();
      await record(log, {
        ts: at(0),
        event: "Stop",
        sessionId: "l",
        decision: "none",
        hooks: [
          { name: "check.sh", level: "user", durationMs: 7 },
          { name: "check.sh", durationMs: 2 },
        ],
      });
      await record(log, { ts: at(1), event: "Stop", sessionId: "l", decision: "none", hooks: [{ name: "check.sh", level: "user", durationMs: 9 }] });
      for (const window of [{}, { since: at(0) }]) {
        const stats = StatsSchema.parse(await log.stats(window));
        expect(stats.hooks.map((h) => [h.name, h.level, h.runs, h.maxMs, h.lastTs])).to.deep.equal([
          ["check.sh", "project", 1, 2, at(0).toISOString()],
          ["check.sh", "user", 2, 9, at(1).toISOString()],
        ]);
      }
    });

    it("stats with names: runs stored under a hook's old name count under its name now, percentiles over both", async () => {
      const { log } = await fresh();
      await record(log, {
        ts: at(0),
        event: "Stop",
        sessionId: "n",
        decision: "none",
        hooks: [
          { name: "/x/check.sh", durationMs: 1 },
          { name: "other", durationMs: 3 },
        ],
      });
      await record(log, { ts: at(1), event: "Stop", sessionId: "n", decision: "none", hooks: [{ name: "/x/check.sh", durationMs: 9 }] });
      await record(log, { ts: at(2), event: "Stop", sessionId: "n", decision: "none", hooks: [{ name: "check.sh", durationMs: 5 }] });
      const names = new Map([["/x/check.sh", "check.sh"]]);
      for (const window of [{}, { since: at(0) }]) {
        const stats = StatsSchema.parse(await log.stats(window, names));
        expect(stats.hooks.map((h) => [h.name, h.runs, h.p50Ms, h.maxMs, h.lastTs])).to.deep.equal([
          ["check.sh", 3, 5, 9, at(2).toISOString()],
          ["other", 1, 3, 3, at(0).toISOString()],
        ]);
      }
      // Without names, each name stored is its own row, as before.
      expect((await log.stats({})).hooks.map((h) => [h.name, h.runs])).to.deep.equal([
        ["/x/check.sh", 2],
        ["check.sh", 1],
        ["other", 1],
      ]);
    });

    it("recorded and rejected events: their decision, reason and payload as sent", async () => {
      const { log } = await fresh();
      const recorded = await record(log, { ts: at(0), event: "Stop", sessionId: "r", decision: "recorded" });
      const rejected = await record(log, {
        ts: at(1),
        event: "Stop",
        sessionId: "r",
        decision: "rejected",
        reason: "payload is not valid JSON",
        payload: "not json",
      });
      const listed = await all(log.events({}, 10));
      expect(listed.map((r) => [r.seq, r.decision, r.source, r.reason])).to.deep.equal([
        [rejected, "rejected", "dispatch", "payload is not valid JSON"],
        [recorded, "recorded", "record", null],
      ]);
      expect(listed[0]!.payload).to.equal("not json");
      expect(await log.event(rejected)).to.deep.include({
        decision: "rejected",
        rejection: "payload is not valid JSON",
        payload: "not json",
        snapshot: null,
        outcome: null,
      });
    });

    it("an outcome for an event that is not in the log is refused alone; appends made with it go through", async () => {
      const { log } = await fresh();
      const seq = await record(log, { ts: at(0), event: "Stop", sessionId: "x", decision: "recorded" });
      const bad = log.append([
        { kind: "outcome", ts: at(1), eventSeq: seq + 100, outcome: makeOutcome({ ts: at(1), event: "Stop", sessionId: "x", decision: "none" }) },
      ]);
      const good = log.append([eventEntry({ ts: at(2), event: "Stop", sessionId: "y", decision: "recorded" }, null)]);
      const [badResult, goodResult] = await Promise.allSettled([bad, good]);
      expect(badResult.status).to.equal("rejected");
      expect((badResult as PromiseRejectedResult).reason)
        .to.be.instanceOf(QhooksError)
        .and.have.property("code", "log");
      expect(goodResult.status).to.equal("fulfilled");
      expect((await all(log.events({}, 10))).map((r) => r.sessionId)).to.deep.equal(["y", "x"]);
      expect((await log.verify()).ok).to.equal(true);
    });

    it("the shadow filter: events whose shadow hooks would have changed the outcome, as the outcome says", async () => {
      const { log } = await fresh();
      const judged = async (ts: Date, shadow: Outcome["shadow"]) => {
        const e: SeedEvent = {
          ts,
          event: "PreToolUse",
          sessionId: "s",
          matchValue: "Bash",
          decision: "none",
          hooks: [{ name: "guard" }, { name: "new-guard", decision: "deny" }],
        };
        const [seq] = await log.append([eventEntry(e, null)]);
        await log.append([{ kind: "outcome", ts, eventSeq: seq!, outcome: { ...makeOutcome(e), seq: seq!, ...(shadow ? { shadow } : {}) } }]);
        return seq!;
      };
      const changed = await judged(at(0), { hooks: ["new-guard"], decision: "deny", blocked: true, reason: "no", continue: true, changed: true });
      await judged(at(1), { hooks: ["new-guard"], decision: "none", blocked: false, reason: null, continue: true, changed: false });
      await judged(at(2), undefined);
      expect((await all(log.events({ shadow: true }, 10))).map((r) => r.seq)).to.deep.equal([changed]);
      expect(await log.count({ shadow: true })).to.equal(1);
      expect((await all(log.events({}, 10))).find((r) => r.seq === changed)!.shadow).to.deep.include({ decision: "deny", changed: true });
    });

    it("the hook filter with the hook's other names: a text in a name or command, or one of the names exactly", async () => {
      const { log } = await fresh();
      const ran = (minutes: number, event: SeedEvent["event"], name: string, command: string) =>
        record(log, { ts: at(minutes), event, sessionId: "h", decision: "none", hooks: [{ name, command }] });
      const old = await ran(0, "PreToolUse", "kit: ${CLAUDE_PLUGIN_ROOT}/check.sh", "/p/kit/check.sh");
      const now = await ran(1, "PreToolUse", "kit: check.sh", "/p/kit/check.sh --strict");
      await ran(2, "PreToolUse", "other: ${CLAUDE_PLUGIN_ROOT}/check.sh", "/p/other/check.sh");
      const oldStop = await ran(3, "Stop", "kit: ${CLAUDE_PLUGIN_ROOT}/check.sh", "/p/kit/check.sh");
      const quoted = await ran(4, "Stop", 'it\'s "quoted"', "true");
      const seqs = async (filter: Parameters<Store["events"]>[0]) => (await all(log.events(filter, 10))).map((r) => r.seq);
      const names = ["kit: ${CLAUDE_PLUGIN_ROOT}/check.sh", 'it\'s "quoted"'];
      expect(await seqs({ hook: "kit: check.sh" })).to.deep.equal([now]);
      expect(await seqs({ hook: "kit: check.sh", hookNames: names })).to.deep.equal([quoted, oldStop, now, old]);
      expect(await log.count({ hook: "kit: check.sh", hookNames: names })).to.equal(4);
      // Exact names: a part of one matches nothing; with another filter, both apply.
      expect(await seqs({ hook: "kit: check.sh", hookNames: ["kit: ${CLAUDE_PLUGIN_ROOT}"] })).to.deep.equal([now]);
      expect(await seqs({ hook: "kit: check.sh", hookNames: names, event: "PreToolUse" })).to.deep.equal([now, old]);
      const read: number[] = [];
      for await (const e of log.read({ hook: "kit: check.sh", hookNames: names })) read.push(e.seq);
      expect(read.sort((a, b) => a - b)).to.deep.equal([old, now, oldStop, quoted]);
    });

    it("200 appends at once: each its own seq, all committed, the chain valid", async () => {
      const { log, again } = await fresh();
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          record(log, {
            ts: at(i),
            event: "PreToolUse",
            sessionId: `c${i % 7}`,
            matchValue: "Bash",
            decision: i % 5 === 0 ? "deny" : "none",
            hooks: i % 3 === 0 ? [{ name: "h", decision: i % 5 === 0 ? "deny" : "none" }] : [],
          }),
        ),
      );
      expect(new Set(results).size).to.equal(200);
      const other = await again();
      expect(await other.count({})).to.equal(200);
      const verified = VerifyResultSchema.parse(await other.verify());
      expect(verified.ok).to.equal(true);
    });

    describe("queries", () => {
      let log: Store;
      const seqs: Record<string, number> = {};
      // Opened once for these tests, closed after them.
      after(() => log.close());
      before(async () => {
        log = (await backend.fresh()).log;
        const events: [string, SeedEvent][] = [
          ["a1", { ts: at(0), event: "SessionStart", sessionId: "A", matchValue: "startup", decision: "none" }],
          [
            "a2",
            {
              ts: at(1),
              event: "PreToolUse",
              sessionId: "A",
              matchValue: "Bash",
              decision: "deny",
              reason: "rm -rf refused",
              hooks: [{ name: "bash-guard", command: "~/guard.sh", decision: "deny", reason: "rm -rf refused", durationMs: 12 }],
            },
          ],
          [
            "a3",
            {
              ts: at(2),
              event: "PreToolUse",
              sessionId: "A",
              matchValue: "Read",
              decision: "none",
              payload: { session_id: "A", tool_name: "Read", needle: "haystack-42" },
            },
          ],
          [
            "b1",
            {
              ts: at(10),
              event: "PreToolUse",
              sessionId: "B",
              matchValue: "Bash",
              decision: "allow",
              hooks: [
                { name: "bash-guard", command: "~/guard.sh", decision: "allow", durationMs: 4 },
                { name: "slow", outcome: "timeout", durationMs: 30 },
              ],
            },
          ],
          [
            "b2",
            {
              ts: at(11),
              event: "Stop",
              sessionId: "B",
              decision: "block",
              reason: "tests fail",
              hooks: [{ name: "keep-going", decision: "block", reason: "tests fail", durationMs: 2 }],
            },
          ],
          ["b3", { ts: at(12), event: "Stop", sessionId: "B", decision: "recorded" }],
          ["b4", { ts: at(13), event: "Stop", sessionId: "B", decision: "unfinished" }],
          ["c1", { ts: at(20), event: "Notification", sessionId: "C", matchValue: "permission", decision: "rejected", reason: "bad notification_type" }],
        ];
        for (const [name, e] of events) seqs[name] = await record(log, e);
        // A replay of a2 under another configuration, apart from live history.
        seqs.r1 = await record(
          log,
          { ts: at(30), event: "PreToolUse", sessionId: "A", matchValue: "Bash", decision: "none" },
          { runId: "run-1", of: seqs.a2! },
        );
      });
      const listed = async (filter: Parameters<Store["events"]>[0]) => (await all(log.events(filter, 100))).map((r) => r.seq);
      const names = (...keys: string[]) => keys.map((k) => seqs[k]!);

      it("each filter selects what it says, newest first, live events only unless a replay run is asked for", async () => {
        expect(await listed({})).to.deep.equal(names("c1", "b4", "b3", "b2", "b1", "a3", "a2", "a1"));
        expect(await listed({ event: "Stop" })).to.deep.equal(names("b4", "b3", "b2"));
        expect(await listed({ sessions: ["A", "C"] })).to.deep.equal(names("c1", "a3", "a2", "a1"));
        expect(await listed({ tool: "Bash" })).to.deep.equal(names("b1", "a2"));
        expect(await listed({ decision: "deny" })).to.deep.equal(names("a2"));
        expect(await listed({ decision: "unfinished" })).to.deep.equal(names("b4"));
        expect(await listed({ decision: "recorded" })).to.deep.equal(names("b3"));
        expect(await listed({ decision: "rejected" })).to.deep.equal(names("c1"));
        expect(await listed({ blocked: true })).to.deep.equal(names("b2", "a2"));
        expect(await listed({ blocked: false })).to.deep.equal(names("c1", "b4", "b3", "b1", "a3", "a1"));
        expect(await listed({ hook: "guard" })).to.deep.equal(names("b1", "a2"));
        expect(await listed({ hook: "slow" })).to.deep.equal(names("b1"));
        expect(await listed({ grep: "haystack-42" })).to.deep.equal(names("a3"));
        expect(await listed({ grep: "tests fail" }), "the reason too").to.deep.equal(names("b2"));
        expect(await listed({ since: at(10), until: at(13) })).to.deep.equal(names("b3", "b2", "b1"));
        expect(await listed({ replayRun: "run-1" })).to.deep.equal(names("r1"));
        expect((await all(log.events({}, 3))).map((r) => r.seq)).to.deep.equal(names("c1", "b4", "b3"));
      });

      it("read gives the same selection oldest first, with what replay compares; count agrees", async () => {
        const read = await all(log.read({ sessions: ["B"] }));
        expect(read.map((r) => [r.seq, r.decision, r.blocked, r.reason, r.hooks])).to.deep.equal([
          [seqs.b1, "allow", false, null, ["bash-guard", "slow"]],
          [seqs.b2, "block", true, "tests fail", ["keep-going"]],
          [seqs.b3, "recorded", false, null, []],
          [seqs.b4, "unfinished", false, null, []],
        ]);
        expect(await log.count({ sessions: ["B"] })).to.equal(4);
        expect(await log.count({ event: "PreToolUse" })).to.equal(3);
        expect(await log.count({ replayRun: "run-1" })).to.equal(1);
      });

      it("sessions: one row per live session, most recently active first", async () => {
        const rows = (await log.sessions({})).map((s) => SessionRowSchema.parse(s));
        // Each session's origin is its first event's: the host that judged it (none for C's rejected event).
        expect(rows.map((s) => s.origin.host)).to.deep.equal([null, "qoder", "qoder"]);
        const sessions = rows.map(({ origin: _origin, ...row }) => row);
        expect(sessions).to.deep.equal([
          { sessionId: "C", projectDir: "/suite/project", firstTs: at(20).toISOString(), lastTs: at(20).toISOString(), events: 1, blocked: 0 },
          { sessionId: "B", projectDir: "/suite/project", firstTs: at(10).toISOString(), lastTs: at(13).toISOString(), events: 4, blocked: 1 },
          { sessionId: "A", projectDir: "/suite/project", firstTs: at(0).toISOString(), lastTs: at(2).toISOString(), events: 3, blocked: 1 },
        ]);
        expect((await log.sessions({ since: at(10) })).map((s) => s.sessionId)).to.deep.equal(["C", "B"]);
      });

      it("stats: counts by event and decision; per hook runs, outcomes and percentiles", async () => {
        const stats = StatsSchema.parse(await log.stats({}));
        expect(stats.events).to.equal(8);
        expect(stats.byEvent).to.deep.equal([
          { event: "Notification", decision: "rejected", count: 1 },
          { event: "PreToolUse", decision: "allow", count: 1 },
          { event: "PreToolUse", decision: "deny", count: 1 },
          { event: "PreToolUse", decision: "none", count: 1 },
          { event: "SessionStart", decision: "none", count: 1 },
          { event: "Stop", decision: "block", count: 1 },
          { event: "Stop", decision: "recorded", count: 1 },
          { event: "Stop", decision: "unfinished", count: 1 },
        ]);
        expect(stats.hooks).to.deep.equal([
          {
            name: "bash-guard",
            level: "project",
            runs: 2,
            blocks: 1,
            errors: 0,
            invalidOutputs: 0,
            timeouts: 0,
            p50Ms: 4,
            p95Ms: 12,
            p99Ms: 12,
            maxMs: 12,
            lastTs: at(10).toISOString(),
          },
          {
            name: "keep-going",
            level: "project",
            runs: 1,
            blocks: 1,
            errors: 0,
            invalidOutputs: 0,
            timeouts: 0,
            p50Ms: 2,
            p95Ms: 2,
            p99Ms: 2,
            maxMs: 2,
            lastTs: at(11).toISOString(),
          },
          {
            name: "slow",
            level: "project",
            runs: 1,
            blocks: 0,
            errors: 0,
            invalidOutputs: 0,
            timeouts: 1,
            p50Ms: 30,
            p95Ms: 30,
            p99Ms: 30,
            maxMs: 30,
            lastTs: at(10).toISOString(),
          },
        ]);
        expect((await log.stats({ since: at(10) })).events).to.equal(5);
      });

      it("matchCounts: live events by event and match value, most frequent first", async () => {
        expect((await log.matchCounts({})).map((m) => MatchCountSchema.parse(m))).to.deep.equal([
          { event: "Notification", matchValue: "permission", count: 1 },
          { event: "PreToolUse", matchValue: "Bash", count: 2 },
          { event: "PreToolUse", matchValue: "Read", count: 1 },
          { event: "SessionStart", matchValue: "startup", count: 1 },
          { event: "Stop", matchValue: null, count: 3 },
        ]);
        expect(await log.matchCounts({ since: at(10), until: at(11) })).to.deep.equal([{ event: "PreToolUse", matchValue: "Bash", count: 1 }]);
      });

      it("replayRuns: a run's start and end, the later record winning", async () => {
        const run = {
          runId: "run-1",
          startedAt: at(30).toISOString(),
          finishedAt: null,
          matchOnly: false,
          settings: null,
          selector: { sessions: ["A"] },
          summary: null,
        };
        await log.append([{ kind: "replay-run", ts: at(30), run }]);
        const summary = { runId: "run-1", events: 1, changed: 1, newlyBlocked: 0, newlyAllowed: 1, skipped: 0, hookErrors: 0, timeouts: 0 };
        await log.append([{ kind: "replay-run", ts: at(31), run: { ...run, finishedAt: at(31).toISOString(), summary } }]);
        expect(await log.replayRuns()).to.deep.equal([{ ...run, finishedAt: at(31).toISOString(), summary }]);
      });
    });

    it("stopBlockStreak: blocked live Stop outcomes of a session in a row; any other Stop outcome ends it; recorded and replayed Stops do not count", async () => {
      const { log, again } = await fresh();
      const stop = (session: string, decision: SeedEvent["decision"], replay: EventEntry["replay"] = null, hooks = decision === "block") =>
        record(log, { ts: at(0), event: "Stop", sessionId: session, decision, hooks: hooks ? [{ name: "keep-going", decision: "block" }] : [] }, replay);
      expect(await log.stopBlockStreak("S")).to.equal(0);
      await stop("S", "block");
      await stop("S", "block", null, false);
      await stop("T", "block");
      expect(await log.stopBlockStreak("S")).to.equal(2);
      await stop("S", "recorded");
      await stop("S", "block", { runId: "run", of: 1 });
      expect(await log.stopBlockStreak("S")).to.equal(2);
      await stop("S", "none");
      expect(await log.stopBlockStreak("S")).to.equal(0);
      await stop("S", "block");
      expect(await log.stopBlockStreak("S")).to.equal(1);
      expect(await log.stopBlockStreak("T")).to.equal(1);
      expect(await (await again()).stopBlockStreak("S")).to.equal(1);
    });

    if (backend.maintenance === false) {
      it("erase and prune refuse with one line and change nothing (not available on this backend)", async () => {
        const { log } = await fresh();
        const [seq] = await log.append([eventEntry({ ts: at(0), event: "Stop", sessionId: "kept", decision: "none", payload: { session_id: "kept" } }, null)]);
        for (const attempt of [() => log.erase({ seq: seq! }), () => log.prune(at(100))]) {
          const error = await attempt().then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).to.be.instanceOf(QhooksError);
          expect((error as QhooksError).code).to.equal("usage");
          expect((error as QhooksError).message).not.to.include("\n");
        }
        expect(await log.count({})).to.equal(1);
        expect((await log.verify()).ok).to.equal(true);
      });
    } else
      describe("erasure and retention", () => {
        const withOutput = (e: SeedEvent): Outcome => ({
          ...makeOutcome(e),
          hooks: makeOutcome(e).hooks.map((h) => ({ ...h, stdout: `out ${e.sessionId} secret-${e.sessionId}`, stderr: `err secret-${e.sessionId}` })),
        });
        /** An event with a hook, its output and reason holding `secret-<session>`. */
        async function judged(log: Store, ts: Date, session: string): Promise<number> {
          const e: SeedEvent = {
            ts,
            event: "PreToolUse",
            sessionId: session,
            matchValue: "Bash",
            decision: "deny",
            reason: `holds secret-${session}`,
            payload: { session_id: session, tool_name: "Bash", note: `secret-${session}` },
            hooks: [{ name: "guard", decision: "deny", reason: `holds secret-${session}` }],
          };
          const [seq] = await log.append([eventEntry(e, null)]);
          await log.append([{ kind: "outcome", ts, eventSeq: seq!, outcome: { ...withOutput(e), seq: seq! } }]);
          return seq!;
        }

        it("erase --seq: the event's and its outcome's text goes, how it was decided stays; verify passes and counts them as erased", async () => {
          const { log, again } = await fresh();
          const a = await judged(log, at(0), "a");
          const b = await judged(log, at(1), "b");
          const one = await record(log, { ts: at(2), event: "Stop", sessionId: "c", decision: "none", payload: { session_id: "c", note: "secret-c" } });
          expect(await log.erase({ seq: a }, "test")).to.deep.include({ events: 1, records: 2 });
          expect(await log.erase({ seq: one })).to.deep.include({ events: 1, records: 1 });
          const detail = EventDetailSchema.parse(await log.event(a));
          // The payload stays a JSON object naming the erasure, with only what the small columns hold anyway.
          expect(JSON.parse(detail.payload)).to.deep.equal({ erased: true, session_id: "a", tool_name: "Bash" });
          expect(JSON.parse((await log.event(one))!.payload)).to.deep.equal({ erased: true, session_id: "c" });
          expect(detail).to.deep.include({ decision: "deny", sessionId: "a", matchValue: "Bash" });
          expect(detail.outcome!.reason).to.equal("[ERASED]");
          expect(detail.outcome!.hooks.map((h) => [h.name, h.outcome, h.stdout, h.stderr])).to.deep.equal([["guard", "block", "[ERASED]", "[ERASED]"]]);
          const listed = JSON.stringify(await all(log.events({}, 10)));
          expect(listed).to.not.contain("secret-a");
          expect(listed).to.not.contain("secret-c");
          expect(listed).to.contain("secret-b");
          expect(await log.count({ grep: "secret-a" })).to.equal(0);
          expect(await log.count({ sessions: ["a"] }), "the event is still there").to.equal(1);
          const verified = VerifyResultSchema.parse(await log.verify());
          expect(verified).to.deep.include({ ok: true, erased: 3, from: 1 });
          expect(await log.erase({ seq: a }), "erased already").to.deep.include({ events: 0, records: 0 });
          expect(await log.erase({ seq: 10_000 })).to.deep.include({ events: 0, records: 0 });
          expect((await (await again()).verify()).ok).to.equal(true);
          expect((await log.event(b))!.payload).to.contain("secret-b");
        });

        it("erase --session and --pattern select what they say; appends after an erasure chain on", async () => {
          const { log } = await fresh();
          await judged(log, at(0), "a");
          await judged(log, at(1), "b");
          await judged(log, at(2), "b");
          await judged(log, at(3), "c");
          const dry = await log.erase({ sessionId: "b" }, null, { dryRun: true });
          expect(dry, "a dry run counts what would go").to.deep.equal({ events: 2, records: 4, leftovers: [] });
          expect(JSON.stringify(await all(log.events({}, 10))), "and changes nothing").to.contain("secret-b");
          expect(await log.verify()).to.deep.include({ ok: true, erased: 0 });
          expect(await log.erase({ sessionId: "b" })).to.deep.include({ events: 2, records: 4 });
          expect(await log.erase({ pattern: "secret-c" })).to.deep.include({ events: 1, records: 2 });
          await judged(log, at(4), "d");
          const text = JSON.stringify(await all(log.events({}, 10)));
          for (const gone of ["secret-b", "secret-c"]) expect(text).to.not.contain(gone);
          for (const kept of ["secret-a", "secret-d"]) expect(text).to.contain(kept);
          expect(await log.verify()).to.deep.include({ ok: true, erased: 6 });
        });

        it("prune: records older than the date go with their projections; the rest verifies from the first kept, snapshots still readable", async () => {
          const { log, again } = await fresh();
          const old1 = await judged(log, at(0), "old");
          await record(log, { ts: at(1), event: "Stop", sessionId: "old", decision: "none" });
          const kept = await judged(log, at(60), "new");
          await record(log, { ts: at(61), event: "Stop", sessionId: "both", decision: "block", hooks: [{ name: "keep-going", decision: "block" }] });
          expect(await log.count({})).to.equal(4);
          const dry = await log.prune(at(30), { dryRun: true });
          expect(await log.count({}), "a dry run deletes nothing").to.equal(4);
          expect(await log.event(old1)).to.not.equal(null);
          const pruned = await log.prune(at(30));
          expect(dry, "a dry run says what the prune then does").to.deep.include({
            records: pruned.records,
            events: pruned.events,
            from: pruned.from,
            leftovers: [],
          });
          expect(pruned).to.include({ events: 2, from: kept });
          expect(pruned.records).to.be.at.least(4);
          expect(await log.count({})).to.equal(2);
          expect(await log.event(old1)).to.equal(null);
          expect((await log.sessions({})).map((s) => s.sessionId).sort()).to.deep.equal(["both", "new"]);
          expect((await log.stats({})).events).to.equal(2);
          expect(EventDetailSchema.parse(await log.event(kept)).snapshot, "its configuration is still in the log").to.deep.equal(SNAPSHOT);
          const verified = VerifyResultSchema.parse(await log.verify());
          expect(verified).to.deep.include({ ok: true, from: kept });
          await judged(log, at(62), "later");
          expect(await log.prune(at(30)), "nothing older left").to.include({ records: 0, events: 0 });
          expect(await (await again()).verify()).to.deep.include({ ok: true, from: kept });
          expect((await log.prune(at(1000))).events).to.equal(3);
          expect(await log.count({})).to.equal(0);
          await judged(log, at(1001), "after");
          expect(await log.count({})).to.equal(1);
          expect((await log.verify()).ok).to.equal(true);
        });
      });

    it("an untouched log verifies, whatever strings went into it; what is read back is what was stored", async () => {
      // Any UTF-16 code unit, lone surrogates included: JSON can carry them all (as \ud800), and so can a payload
      // string handed to the library.
      const anyUnit = fc.oneof(
        fc.constantFrom("\ud800", "\udfff", "\ud83d", "\ude00", "\u0000", "😀"),
        fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      );
      const text = fc.string({ unit: anyUnit, maxLength: 12 });
      const { log, again } = await fresh();
      await fc.assert(
        fc.asyncProperty(
          fc.record({ session: text, tool: text, reason: text, output: text, payloadText: text }),
          async ({ session, tool, reason, output, payloadText }) => {
            const e: SeedEvent = {
              ts: at(0),
              event: "PreToolUse",
              sessionId: session,
              matchValue: tool,
              decision: "deny",
              reason,
              payload: { session_id: session, tool_name: tool, text: payloadText },
              hooks: [{ name: tool, decision: "deny", reason }],
            };
            const outcome = { ...makeOutcome(e), hooks: makeOutcome(e).hooks.map((h) => ({ ...h, stdout: output, stderr: output })) };
            const [seq] = await log.append([eventEntry(e, null)]);
            await log.append([{ kind: "outcome", ts: at(0), eventSeq: seq!, outcome: { ...outcome, seq: seq! } }]);
            await log.append([eventEntry({ ts: at(0), event: "Stop", sessionId: session, decision: "rejected", reason, payload: payloadText }, null)]);
            const detail = await log.event(seq!);
            // JSON keeps every value exactly; text kept outside JSON is stored well formed.
            expect(detail!.outcome).to.deep.equal({ ...outcome, seq });
            expect(JSON.parse(detail!.payload)).to.deep.equal(e.payload);
          },
        ),
        { numRuns: 60, seed: 0x51a7 },
      );
      expect((await log.verify()).ok).to.equal(true);
      expect((await (await again()).verify()).ok).to.equal(true);
    });
  });
}
