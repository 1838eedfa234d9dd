import { expect } from "chai";
import { QHOOKS_EVENT_NAMES, eventNamed, hostEventNames, hostEventOf, qhooksEventOf } from "../../src/hosts/hostEventNames.js";
import { EVENT_NAMES } from "../../src/schema/eventNames.js";
import { parsePayload } from "../../src/payload/parsePayload.js";

describe("host event names", () => {
  const names = hostEventNames(
    [
      ["BeforeTool", "PreToolUse"],
      ["AfterAgent", "Stop"],
    ],
    ["BeforeModel"],
  );

  it("maps a host's names to qhooks events and back; names it lacks are null", () => {
    expect(qhooksEventOf(names, "BeforeTool")).to.equal("PreToolUse");
    expect(hostEventOf(names, "Stop")).to.equal("AfterAgent");
    expect(qhooksEventOf(names, "PreToolUse")).to.equal(null);
    expect(qhooksEventOf(names, "BeforeModel")).to.equal(null);
    expect(qhooksEventOf(names, "__proto__")).to.equal(null);
    expect(hostEventOf(names, "Notification")).to.equal(null);
    expect([...names.unmapped]).to.deep.equal(["BeforeModel"]);
  });

  it("an event named on a command line: qhooks' name, else the host's; neither is null", () => {
    expect(eventNamed("PreToolUse")).to.equal("PreToolUse");
    expect(eventNamed("PreToolUse", names)).to.equal("PreToolUse");
    expect(eventNamed("BeforeTool", names)).to.equal("PreToolUse");
    expect(eventNamed("BeforeTool")).to.equal(null);
    expect(eventNamed("BeforeModel", names)).to.equal(null);
    expect(eventNamed("pretooluse", names)).to.equal(null);
  });

  it("refuses a name for two events, two names for one event, and a name both mapped and unmapped", () => {
    expect(() =>
      hostEventNames([
        ["A", "Stop"],
        ["A", "PreToolUse"],
      ]),
    ).to.throw(/A/);
    expect(() =>
      hostEventNames([
        ["A", "Stop"],
        ["B", "Stop"],
      ]),
    ).to.throw(/Stop/);
    expect(() => hostEventNames([["A", "Stop"]], ["A"])).to.throw(/A/);
  });

  it("reads a narrowed name as its event, one way only, with the tool it stands for; a narrowed name named twice throws", () => {
    const narrow = hostEventNames([["before", "PreToolUse"]], [], [["beforeShell", "PreToolUse", "Shell"]]);
    expect(qhooksEventOf(narrow, "beforeShell")).to.equal("PreToolUse");
    expect(hostEventOf(narrow, "PreToolUse")).to.equal("before");
    expect(narrow.narrowed.get("beforeShell")).to.deep.equal({ event: "PreToolUse", matcher: "Shell" });
    expect(() => hostEventNames([["before", "PreToolUse"]], [], [["before", "PreToolUse", "Shell"]])).to.throw(/before/);
    expect(() => hostEventNames([], ["x"], [["x", "Stop", "Shell"]])).to.throw(/x/);
  });

  it("qhooks' own names map every event to itself", () => {
    for (const e of EVENT_NAMES) expect([qhooksEventOf(QHOOKS_EVENT_NAMES, e), hostEventOf(QHOOKS_EVENT_NAMES, e)]).to.deep.equal([e, e]);
  });

  it("a payload in the host's words is its qhooks event, its text kept byte for byte; a missing name is filled in the host's words", () => {
    const text = '{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"cwd":"/p"}';
    const parsed = parsePayload(text, { projectDir: "/p", hostEvents: names });
    expect(parsed.ok && [parsed.value.event, parsed.value.json, parsed.value.matchValue]).to.deep.equal(["PreToolUse", text, "run_shell_command"]);
    const unnamed = parsePayload('{"session_id":"s","cwd":"/p"}', { projectDir: "/p", event: "Stop", hostEvents: names });
    expect(unnamed.ok && unnamed.value.payload.hook_event_name).to.equal("AfterAgent");
    const other = parsePayload('{"session_id":"s","hook_event_name":"BeforeModel"}', { projectDir: "/p", hostEvents: names });
    expect(other.ok ? null : other.value.error).to.equal('payload names an unknown hook_event_name "BeforeModel" (known: BeforeTool, AfterAgent)');
    const mismatch = parsePayload('{"session_id":"s","hook_event_name":"AfterAgent"}', { projectDir: "/p", event: "PreToolUse", hostEvents: names });
    expect(mismatch.ok ? null : mismatch.value.error).to.equal("payload's hook_event_name is Stop, but the event is PreToolUse");
  });
});
