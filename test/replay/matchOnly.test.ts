import { expect } from "chai";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group } from "../support/sandbox.js";
import { capture, replayJson } from "./harness.js";

/** `qhooks replay --match-only`: which hooks would run, without running any. */
describe("qhooks replay --match-only", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let markers: string;
  let settings: string;

  beforeEach(async () => {
    sb = new Sandbox();
    markers = join(sb.root, "markers");
    mkdirSync(markers);
    // Every hook of the new config leaves a marker file when it runs.
    const marker = sb.script("marker.sh", `cat >/dev/null\ntouch "${markers}/$1.$$"`);
    settings = sb.file("new.json", {
      hooks: {
        PreToolUse: [group("Bash", { name: "marker-bash", command: `${marker} bash` }), group("*", { name: "marker-any", command: `${marker} any` })],
        Stop: [group(undefined, { name: "marker-stop", command: `${marker} stop` })],
      },
    });
    const old = sb.file("old.json", { hooks: { PreToolUse: [group("Read", { name: "old-guard", command: "cat >/dev/null" })] } });
    await capture(
      sb,
      [
        JSON.stringify({ session_id: "m1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }),
        JSON.stringify({ session_id: "m1", hook_event_name: "PreToolUse", tool_name: "Read", tool_input: { file_path: "/etc/hosts" } }),
        { record: JSON.stringify({ session_id: "m1", hook_event_name: "UserPromptSubmit", prompt: "go on" }) },
        JSON.stringify({ session_id: "m1", hook_event_name: "Stop" }),
        JSON.stringify({ session_id: "m1", hook_event_name: "SessionEnd", reason: "other" }),
      ],
      { settingsFiles: [old] },
    );
  });
  afterEach(() => sb.cleanup());

  it("executes nothing, names the hooks that would run, decides nothing and changes nothing", async () => {
    const r = await replayJson(sb, ["--session", "m1", "--settings", settings, "--match-only"]);
    expect(readdirSync(markers), "no hook ran").to.deep.equal([]);
    expect(r.results.map((x) => [x.event, x.before.hooks, x.after.hooks])).to.deep.equal([
      ["PreToolUse", [], ["marker-bash", "marker-any"]],
      ["PreToolUse", ["old-guard"], ["marker-any"]],
      ["UserPromptSubmit", [], []],
      ["Stop", [], ["marker-stop"]],
      ["SessionEnd", [], []],
    ]);
    for (const x of r.results) {
      expect(x.after).to.deep.equal({ decision: null, blocked: false, reason: null, hooks: x.after.hooks });
      expect(x.changed).to.equal(false);
    }
    expect(r).to.include({ events: 5, changed: 0, newlyBlocked: 0, newlyAllowed: 0, hookErrors: 0, timeouts: 0 });
  });

  it("predicts exactly the hooks a real replay then runs", async () => {
    const predicted = await replayJson(sb, ["--session", "m1", "--settings", settings, "--match-only"]);
    expect(readdirSync(markers)).to.deep.equal([]);
    const real = await replayJson(sb, ["--session", "m1", "--settings", settings]);
    expect(real.results.map((x) => x.after.hooks)).to.deep.equal(predicted.results.map((x) => x.after.hooks));
    // The markers really are written when the hooks run: one per hook run.
    const ran = readdirSync(markers)
      .map((f) => f.split(".")[0])
      .sort();
    expect(ran).to.deep.equal(["any", "any", "bash", "stop"]);
    expect(real.results.every((x) => x.after.decision === "none")).to.equal(true);
  });

  it("says in text mode that nothing runs, and lists what would", async () => {
    const r = await sb.run(["replay", "--session", "m1", "--settings", settings, "--match-only"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(readdirSync(markers)).to.deep.equal([]);
    expect(r.stdout).to.contain("match only: nothing runs");
    expect(r.stdout).to.match(/#\d+ PreToolUse Bash: no hooks {2}-> {2}marker-bash, marker-any/);
    expect(r.stdout).to.match(/#\d+ Stop: no hooks {2}-> {2}marker-stop/);
  });
});
