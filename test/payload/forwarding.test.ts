import { expect } from "chai";
import { readFileSync } from "node:fs";
import { captureHook, settingsFor } from "../decisions/helpers.js";
import { Sandbox } from "../support/sandbox.js";

/** Contract 2.3 and 8 ("Payload forwarding"): hooks get what the agent sent, keys and values, byte for byte. */
describe("payload: forwarding to hooks", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /** Pretty-printed, with unicode (raw and escaped), numbers JSON.stringify would rewrite, __proto__ and unknown fields. */
  const bodyFields = `
  "session_id": "sess-ü-1",
  "transcript_path": "/home/u/.qoder/t.jsonl",
  "permission_mode": "acceptEdits",
  "tool_name": "Bash",
  "tool_input": {
    "command": "echo 日本語 🎉 && printf 'ok\\n'",
    "escaped": "caf\\u00e9 \\"quoted\\" \\ud83d\\ude00",
    "big": 12345678901234567890,
    "float": 1.50,
    "exp": 1E2,
    "neg_zero": -0
  },
  "tool_use_id": "toolu_01",
  "__proto__": { "polluted": true, "list": [1, 2] },
  "constructor": "not a function",
  "future_field": [ null, { "deep": [ {} ] } ],
  "empty": {}
`;
  const full = `{\n  "hook_event_name": "PreToolUse",\n  "cwd": "/work/somewhere",${bodyFields}}\n`;
  const partial = `{${bodyFields}}`;

  /** Keys and JSON-encoded values of a parsed object, own properties only (so that `__proto__` counts as a key). */
  function entries(value: unknown): Map<string, string> {
    const object = value as Record<string, unknown>;
    return new Map(Object.keys(object).map((k) => [k, JSON.stringify(Object.getOwnPropertyDescriptor(object, k)!.value)]));
  }

  it("a payload with every common field reaches the hook byte for byte", async () => {
    const capture = captureHook(sb);
    const settings = sb.file("s.json", settingsFor("PreToolUse", capture.command));
    const r = await sb.runEvent("PreToolUse", full, ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(readFileSync(capture.path).equals(Buffer.from(full, "utf8"))).to.equal(true, capture.text());
  });

  it("with fields filled in, the agent's bytes are still all there, and the keys and values are the same", async () => {
    const capture = captureHook(sb);
    const settings = sb.file("s.json", settingsFor("PreToolUse", capture.command));
    const r = await sb.runEvent("PreToolUse", partial, ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    const received = capture.text();
    // Everything after the opening brace, unchanged: only the two missing common fields were added.
    expect(received).to.include(partial.slice(1));
    const sent = entries(JSON.parse(partial));
    const got = entries(JSON.parse(received));
    expect([...got.keys()].sort()).to.deep.equal([...sent.keys(), "hook_event_name", "cwd"].sort());
    for (const [key, value] of sent) expect(got.get(key), key).to.equal(value);
    expect(got.get("__proto__")).to.equal('{"polluted":true,"list":[1,2]}');
    expect(got.get("hook_event_name")).to.equal('"PreToolUse"');
  });

  it("unicode survives, raw and escaped", async () => {
    const capture = captureHook(sb);
    const settings = sb.file("s.json", settingsFor("UserPromptSubmit", capture.command));
    const prompt = "Übersetze: 日本語のテキスト — emoji 🎉🧪, RTL עברית, combining é, NUL-free \u2028 separator";
    const text = JSON.stringify({ session_id: "s1", prompt });
    const r = await sb.runEvent("UserPromptSubmit", text, ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect((JSON.parse(capture.text()) as { prompt: string }).prompt).to.equal(prompt);
    expect(capture.text()).to.include(text.slice(1));
  });

  it("the hook does not see a polluted prototype: __proto__ stays a plain own key", async () => {
    const capture = captureHook(sb);
    const settings = sb.file("s.json", settingsFor("Notification", capture.command));
    const text = '{"session_id":"s1","message":"m","__proto__":{"hook_event_name":"Stop","session_id":"evil"}}';
    const r = await sb.runEvent("Notification", text, ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.outcome).to.include({ event: "Notification", sessionId: "s1" });
    const received = JSON.parse(capture.text()) as Record<string, unknown>;
    expect(received.hook_event_name).to.equal("Notification");
    expect(Object.keys(received)).to.include("__proto__");
  });

  it("the library forwards an object payload with the same keys and values, __proto__ and unknown fields included", async () => {
    const capture = captureHook(sb);
    sb.userSettings(settingsFor("PreToolUse", capture.command));
    const payload = JSON.parse(full) as Record<string, unknown>;
    await sb.bus({ watch: false }).dispatch(payload);
    const got = entries(JSON.parse(capture.text()));
    expect(got).to.deep.equal(entries(payload));
  });

  it("the library forwards a JSON text payload byte for byte", async () => {
    const capture = captureHook(sb);
    sb.userSettings(settingsFor("PreToolUse", capture.command));
    await sb.bus({ watch: false }).dispatch(full);
    expect(capture.text()).to.equal(full);
  });
});
