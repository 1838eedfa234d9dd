import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { EventName } from "../../src/schema/events.js";
import type { EventEntry, LogEntry } from "../../src/store/eventLog.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { makeOutcome, readOnly } from "./storeHelpers.js";

// A large append makes each record as it is placed (a small one before its transaction): the log must hold the
// same records either way, with the same checks and the same Stop streaks.
describe("large appends", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "qhooks-large-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const snapshot = { hash: "c".repeat(64), document: [{ level: "user", hooks: {} }], warnings: ["a warning"] };
  const event = (i: number, name: EventName, judged: "deny" | "block" | "none" | null, extra: Partial<EventEntry> = {}): EventEntry => ({
    kind: "event",
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    source: "dispatch",
    event: name,
    sessionId: `s${i % 3}`,
    matchValue: name === "PreToolUse" ? "Bash" : null,
    projectDir: "/p",
    payload: JSON.stringify({ session_id: `s${i % 3}`, n: i, text: "é\u{1F600}".repeat(i % 5) }),
    snapshot,
    rejection: null,
    replay: null,
    outcome:
      judged === null
        ? null
        : {
            ...makeOutcome({ ts: new Date(0), event: name, sessionId: `s${i % 3}`, decision: judged, reason: judged === "none" ? null : `no ${i}` }),
            seq: null,
          },
    ...extra,
  });

  /** Events judged in one step (Stops that block and that do not), recorded and unfinished ones, then a replay run. */
  function entries(): LogEntry[] {
    const list: LogEntry[] = [];
    for (let i = 0; i < 80; i++) {
      if (i % 4 === 0) list.push(event(i, "Stop", i % 8 === 0 ? "block" : "none"));
      else if (i % 4 === 1) list.push(event(i, "PreToolUse", "deny"));
      else if (i % 4 === 2) list.push(event(i, "Notification", null, { source: "record", snapshot: null }));
      else list.push(event(i, "PreToolUse", null));
    }
    list.push({
      kind: "replay-run",
      ts: new Date(Date.UTC(2026, 0, 2)),
      run: { runId: "r1", startedAt: "2026-01-02T00:00:00.000Z", finishedAt: null, matchOnly: true, settings: null, selector: {}, summary: null },
    });
    list.push(event(81, "PreToolUse", "none", { source: "replay", replay: { runId: "r1", of: 2 } }));
    return list;
  }

  const contents = (file: string) =>
    readOnly(file, (db) =>
      db
        .prepare(
          "SELECT seq, ts, kind, event, session_id, match_value, project_dir, source, ref, run_id, config_hash, name, status, decision, blocked, duration_ms, reason, body, format, outcome FROM journal ORDER BY seq",
        )
        .all(),
    );

  it("one append of many entries writes what as many appends of one write, verifies, and keeps the Stop streaks", async () => {
    const whole = openSqliteLog(join(dir, "whole.db"));
    const single = openSqliteLog(join(dir, "single.db"));
    try {
      const list = entries();
      const seqs = [...(await whole.append(list))];
      const one: (number | null)[] = [];
      for (const entry of list) one.push(...(await single.append([entry])));
      expect(seqs).to.deep.equal(one);
      // Outcomes and async hook results for the unfinished events, as one large append and as single ones.
      const unfinished = list.flatMap((e, i) => (e.kind === "event" && e.outcome === null && e.source === "dispatch" ? [seqs[i]!] : []));
      const later: LogEntry[] = unfinished.flatMap((seq): LogEntry[] => [
        {
          kind: "hook",
          ts: new Date(Date.UTC(2026, 0, 3)),
          eventSeq: seq,
          event: "PreToolUse",
          sessionId: "s1",
          result: makeOutcome({ ts: new Date(0), event: "PreToolUse", sessionId: "s1", decision: "none", hooks: [{ name: "late" }] }).hooks[0]!,
        },
        {
          kind: "outcome",
          ts: new Date(Date.UTC(2026, 0, 3)),
          eventSeq: seq,
          outcome: {
            ...makeOutcome({ ts: new Date(0), event: "PreToolUse", sessionId: "s1", decision: "deny", hooks: [{ name: "guard", decision: "deny" }] }),
            seq,
          },
        },
      ]);
      expect(later.length).to.be.greaterThan(32);
      await whole.append(later);
      for (const entry of later) await single.append([entry]);
      for (const session of ["s0", "s1", "s2"]) expect(await whole.stopBlockStreak(session), session).to.equal(await single.stopBlockStreak(session));
      // A large append holding an outcome for an event judged in one step is refused whole, and writes nothing.
      const before = contents(join(dir, "whole.db")).length;
      let refused: unknown = null;
      await whole.append([...list.slice(0, 40), { ...later[1]!, eventSeq: seqs[1]! } as LogEntry]).catch((e: unknown) => (refused = e));
      expect(String(refused)).to.match(/already has its outcome/);
      expect(contents(join(dir, "whole.db")).length).to.equal(before);
      expect((await whole.verify()).ok).to.equal(true);
      expect((await single.verify()).ok).to.equal(true);
    } finally {
      await whole.close();
      await single.close();
    }
    expect(contents(join(dir, "whole.db"))).to.deep.equal(contents(join(dir, "single.db")));
  });
});
