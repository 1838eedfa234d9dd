import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, Sandbox, group } from "../support/sandbox.js";
import { capture, cliJson, liveEvents, type replayJson } from "./harness.js";

/**
 * qhooks itself as a hook, as the contract recommends: `qhooks record` on every event to capture sessions (the
 * snippet of `qhooks record --print-settings`), or `qhooks run --format hook --settings guards.json` as the one
 * hook an agent calls. Replaying with the settings on disk runs those hooks too, with QHOOKS_REPLAY=1: they must
 * not add the replayed payloads to live history.
 */
describe("qhooks replay with qhooks itself among the hooks", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let env: Record<string, string>;

  beforeEach(() => {
    sb = new Sandbox();
    // `qhooks` on the PATH of the CLI and of its hooks, as after an install.
    const bin = join(sb.root, "bin");
    sb.file(join(bin, "qhooks"), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`, 0o755);
    env = { PATH: `${bin}:${process.env.PATH ?? ""}` };
  });
  afterEach(() => sb.cleanup());

  /** log, sessions and stats as JSON: what must not change. */
  const history = async () => ({
    log: await liveEvents(sb),
    sessions: await cliJson(sb, ["sessions", "--json"]),
    stats: await cliJson(sb, ["stats", "--json"]),
  });

  it("recorder hooks (qhooks record) leave live history as it was", async () => {
    const snippet = await sb.run(["record", "--print-settings"], { env });
    expect(snippet.code, snippet.stderr).to.equal(0);
    sb.userSettings(snippet.stdout);
    await capture(sb, [
      { record: JSON.stringify({ session_id: "cap", hook_event_name: "UserPromptSubmit", prompt: "build it" }) },
      { record: JSON.stringify({ session_id: "cap", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "make" } }) },
      { record: JSON.stringify({ session_id: "cap", hook_event_name: "Stop" }) },
    ]);
    const before = await history();
    expect(before.log).to.have.length(3);

    const replay = await sb.run(["replay", "--session", "cap", "--yes", "--json"], { env });
    expect(replay.code, replay.stderr).to.equal(0);
    const r = JSON.parse(replay.stdout) as Awaited<ReturnType<typeof replayJson>>;
    // The recorder hooks did run (and succeeded), as they would live.
    expect(r.results.map((x) => x.after.hooks)).to.deep.equal([["qhooks record UserPromptSubmit"], ["qhooks record PreToolUse"], ["qhooks record Stop"]]);
    expect(r).to.include({ events: 3, hookErrors: 0, timeouts: 0 });
    expect(await history()).to.deep.equal(before);
  });

  it("a fan-out hook (qhooks run --format hook) judges as part of the replay: its guards see QHOOKS_REPLAY=1, live history is unchanged", async () => {
    const seen = join(sb.root, "seen.txt");
    const guard = sb.script(
      "no-rm.sh",
      `echo "\${QHOOKS_REPLAY-unset}" >> '${seen}'\ncase "$(cat)" in *'rm -rf'*) echo "rm -rf is not allowed" >&2; exit 2 ;; esac`,
    );
    const guards = sb.file("guards.json", { hooks: { PreToolUse: [group("Bash", { name: "no-rm", command: guard })] } });
    // The agent's settings: its one hook is qhooks, fanning out to the guards.
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { name: "fanout", command: `qhooks run PreToolUse --format hook --settings '${guards}'` })] } });
    const line = (command: string) => JSON.stringify({ session_id: "fan", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } });
    // Live: the agent calls its hook, which logs the event with the guards' verdict.
    for (const [command, code] of [
      ["rm -rf x", 2],
      ["ls", 0],
    ] as const) {
      const r = await sb.run(["run", "PreToolUse", "--format", "hook", "--settings", guards], { input: line(command), env });
      expect(r.code, r.stderr).to.equal(code);
    }
    const before = await history();
    expect(before.log.map((e) => [e.decision, e.hooks.map((h) => h.name)])).to.deep.equal([
      ["deny", ["no-rm"]],
      ["none", ["no-rm"]],
    ]);

    const replay = await sb.run(["replay", "--session", "fan", "--yes", "--json"], { env });
    expect(replay.code, replay.stderr).to.equal(0);
    const r = JSON.parse(replay.stdout) as Awaited<ReturnType<typeof replayJson>>;
    expect(r.results.map((x) => x.after)).to.deep.equal([
      { decision: "deny", blocked: true, reason: "rm -rf is not allowed", hooks: ["fanout"] },
      { decision: "none", blocked: false, reason: null, hooks: ["fanout"] },
    ]);
    expect(r).to.include({ events: 2, changed: 0, hookErrors: 0 });
    expect(readFileSync(seen, "utf8").split("\n").filter(Boolean)).to.deep.equal(["unset", "unset", "1", "1"]);
    expect(await history()).to.deep.equal(before);
  });
});
