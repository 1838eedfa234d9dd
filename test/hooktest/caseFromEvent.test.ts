import { expect } from "chai";
import { caseFromEvent } from "../../src/hooktest/caseFromEvent.js";
import type { LoggedEvent } from "../../src/hooktest/loggedEvent.js";

/**
 * The events a case cannot be made from without being told more, that the CLI tests cannot easily leave in a log: an
 * event whose qhooks died before its outcome (unfinished), and a payload kept as text (too deep to print again).
 */
describe("qhooks test add: which logged events make a case", () => {
  const event: LoggedEvent = {
    seq: 7,
    ts: "2026-01-13T09:00:05.250Z",
    event: "PreToolUse",
    source: "dispatch",
    matchValue: "Bash",
    payload: { session_id: "s1", tool_name: "Bash", tool_input: { command: "ls" } },
    decision: "unfinished",
    replay: null,
  };

  it("an unfinished event needs --expect, and makes a case with it", () => {
    const without = caseFromEvent(event);
    expect(without).to.deep.equal({
      ok: false,
      problem: {
        kind: "no-decision",
        message: "#7 has no outcome (qhooks stopped before one was logged): give the decision to expect with --expect allow|deny|ask|block|none",
      },
    });
    const made = caseFromEvent(event, { expect: "deny" });
    expect(made).to.deep.equal({
      ok: true,
      testCase: { name: "#7 PreToolUse Bash", event: "PreToolUse", expect: { decision: "deny" }, payload: event.payload, from: { seq: 7, ts: event.ts } },
    });
  });

  it("a payload the log keeps as text (not a JSON object) cannot be saved", () => {
    const made = caseFromEvent({ ...event, decision: "allow", payload: "[[[[" });
    expect(made.ok).to.equal(false);
    expect(!made.ok && made.problem.kind).to.equal("not-an-object");
  });

  it("an erased event cannot be saved: its payload (an object now, or the text older logs hold) has nothing to judge", () => {
    for (const payload of [{ erased: true, session_id: "s1", tool_name: "Bash" }, "[ERASED]"]) {
      const made = caseFromEvent({ ...event, decision: "allow", payload });
      expect(!made.ok && made.problem.kind, JSON.stringify(payload)).to.equal("erased");
    }
  });
});
