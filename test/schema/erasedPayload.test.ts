import { expect } from "chai";
import { erasedPayloadOf, isErasedPayload } from "../../src/schema/erasedPayload.js";

describe("an erased payload", () => {
  it("is an object naming the erasure that keeps only the event, session and tool of the payload it replaces", () => {
    const payload = { hook_event_name: "PreToolUse", session_id: "s1", tool_name: "Bash", tool_input: { command: "echo sk-live-1" }, cwd: "/p" };
    expect(erasedPayloadOf(JSON.stringify(payload))).to.deep.equal({ erased: true, hook_event_name: "PreToolUse", session_id: "s1", tool_name: "Bash" });
    expect(erasedPayloadOf(JSON.stringify({ session_id: 7, tool_name: { x: 1 } })), "only strings are kept").to.deep.equal({ erased: true });
    expect(erasedPayloadOf("not json {"), "a rejected payload's text keeps nothing").to.deep.equal({ erased: true });
    expect(erasedPayloadOf("[1, 2]")).to.deep.equal({ erased: true });
  });

  it("is recognised as text or value, and so is the string older logs hold; a host payload with an erased key is not", () => {
    const erased = erasedPayloadOf(JSON.stringify({ session_id: "s1" }));
    expect(isErasedPayload(erased)).to.equal(true);
    expect(isErasedPayload(JSON.stringify(erased))).to.equal(true);
    expect(isErasedPayload("[ERASED]")).to.equal(true);
    expect(isErasedPayload({ erased: true, session_id: "s1", tool_input: { command: "ls" } })).to.equal(false);
    expect(isErasedPayload(JSON.stringify({ erased: false }))).to.equal(false);
    expect(isErasedPayload('{"erased": tru')).to.equal(false);
    expect(isErasedPayload(JSON.stringify({ session_id: "s1" }))).to.equal(false);
    expect(isErasedPayload(null)).to.equal(false);
  });
});
