import { expect } from "chai";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group } from "../support/sandbox.js";
import { recordLine } from "./harness.js";

/** What a hook sees during a replay: QHOOKS_REPLAY=1, and the event's original payload, byte for byte. */
describe("qhooks replay: what the hooks see", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    // Each run keeps its stdin and its QHOOKS_REPLAY in a new file under $OUT (set per phase by the test).
    const keep = sb.script("keep-input.sh", `f=$(mktemp "$OUT/payload.XXXXXX")\ncat > "$f"\nprintf '%s' "\${QHOOKS_REPLAY-unset}" > "$f.replay-var"`);
    sb.projectSettings({ hooks: { PreToolUse: [group("*", keep)], PostToolUse: [group("*", keep)] } });
  });
  afterEach(() => sb.cleanup());

  /** The payloads each phase's hooks received, and the QHOOKS_REPLAY they saw. */
  const kept = (dir: string) => {
    const files = readdirSync(dir).filter((f) => f.startsWith("payload.") && !f.endsWith(".replay-var"));
    return {
      payloads: files.map((f) => readFileSync(join(dir, f))).sort(Buffer.compare),
      replayVar: files.map((f) => readFileSync(join(dir, `${f}.replay-var`), "utf8")),
    };
  };

  it("gives hooks QHOOKS_REPLAY=1 and the original payload bytes; live runs see neither the variable nor a change", async () => {
    const liveDir = join(sb.file("out-live/.keep", ""), "..");
    const replayDir = join(sb.file("out-replay/.keep", ""), "..");
    // Formatting, number spellings, escapes and key order that a re-serialisation would not keep; no
    // hook_event_name nor cwd, which qhooks fills in.
    const odd =
      '{ "session_id" : "env-1",\n  "tool_name":"Bash",  "tool_input": {"command":"echo caf\\u00e9 \u2713 \ud83d\ude00", "n": 1.50, ' +
      '"big": 12345678901234567890, "e": 1E2, "nested": {"a": [1, 2 ,3]}},\n "__proto__": {"polluted": true}, "extra": null, "tool_name_2": "\\/x" }';
    const post =
      '{"session_id":"env-1","hook_event_name":"PostToolUse","cwd":"/x","tool_name":"Write","tool_input":{"file_path":"a\\/b"},"tool_response":"l1\\nl2\\t\\"q\\""}';
    for (const [event, input] of [
      ["PreToolUse", odd],
      ["PostToolUse", post],
    ] as const) {
      const r = await sb.run(["run", event], { input, env: { OUT: liveDir } });
      expect(r.code, r.stderr).to.equal(0);
    }
    // Recorded, with every common field present: nothing is added, so the hook must get exactly these bytes.
    const recorded =
      '{"session_id":"env-1","hook_event_name":"PreToolUse","cwd":"/somewhere","tool_name":"Bash","tool_input":{"command":"rm  -rf   x"} ,"tool_use_id":"t\\u0031"}';
    await recordLine(sb, recorded);

    const atLive = kept(liveDir);
    expect(atLive.payloads).to.have.length(2);
    expect(atLive.replayVar).to.deep.equal(["unset", "unset"]);
    // The premise: the live hook got the agent's own bytes (filled-in fields only added), not a re-serialisation.
    const liveOdd = atLive.payloads.map(String).find((p) => p.includes("caf"))!;
    expect(liveOdd).to.contain('"n": 1.50, "big": 12345678901234567890, "e": 1E2');
    expect(liveOdd).to.contain('{"hook_event_name":"PreToolUse","cwd":');

    const replay = await sb.run(["replay", "--session", "env-1", "--yes", "--json"], { env: { OUT: replayDir } });
    expect(replay.code, replay.stderr).to.equal(0);
    expect((JSON.parse(replay.stdout) as { events: number }).events).to.equal(3);
    const atReplay = kept(replayDir);
    expect(atReplay.replayVar).to.deep.equal(["1", "1", "1"]);
    expect(atReplay.payloads).to.deep.equal([...atLive.payloads, Buffer.from(recorded)].sort(Buffer.compare));
  });

  it("sets QHOOKS_REPLAY for --settings replays too, and a later live run does not see it", async () => {
    const dir = join(sb.file("out/.keep", ""), "..");
    await recordLine(sb, JSON.stringify({ session_id: "env-2", hook_event_name: "PreToolUse", tool_name: "Read", tool_input: { file_path: "/a" } }));
    const settings = sb.file("s.json", readFileSync(join(sb.project, ".qoder", "settings.json"), "utf8"));
    const withOut = await sb.run(["replay", "--session", "env-2", "--settings", settings, "--yes"], { env: { OUT: dir } });
    expect(withOut.code, withOut.stderr).to.equal(0);
    const live = await sb.run(["run", "PreToolUse"], {
      input: JSON.stringify({ session_id: "env-2", tool_name: "Read", tool_input: { file_path: "/b" } }),
      env: { OUT: dir },
    });
    expect(live.code, live.stderr).to.equal(0);
    expect(kept(dir).replayVar.sort()).to.deep.equal(["1", "unset"]);
  });
});
