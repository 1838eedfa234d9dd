import { expect } from "chai";
import { join } from "node:path";
import { CLI, Sandbox } from "../support/sandbox.js";
import { capture, cliJson, liveEvents, replayJson } from "./harness.js";

/**
 * The capture workflow the contract recommends: `qhooks record` as a hook on every event (the snippet of
 * `qhooks record --print-settings`), in the user's settings. Replaying with the settings on disk runs those hooks
 * too, with QHOOKS_REPLAY=1: they must not add the replayed payloads to live history.
 */
describe("qhooks replay with qhooks record among the hooks", function () {
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

  it("leaves live history as it was", async () => {
    const snippet = await sb.run(["record", "--print-settings"], { env });
    expect(snippet.code, snippet.stderr).to.equal(0);
    sb.userSettings(snippet.stdout);
    await capture(sb, [
      { record: JSON.stringify({ session_id: "cap", hook_event_name: "UserPromptSubmit", prompt: "build it" }) },
      { record: JSON.stringify({ session_id: "cap", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "make" } }) },
      { record: JSON.stringify({ session_id: "cap", hook_event_name: "Stop" }) },
    ]);
    const run = (args: string[]) => sb.run(args, { env });
    const json = async (args: string[]) => {
      const r = await run(args);
      expect(r.code, r.stderr).to.equal(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const before = { log: await liveEvents(sb), sessions: await cliJson(sb, ["sessions", "--json"]), stats: await cliJson(sb, ["stats", "--json"]) };
    expect(before.log).to.have.length(3);

    const replay = await run(["replay", "--session", "cap", "--json"]);
    expect(replay.code, replay.stderr).to.equal(0);
    const r = JSON.parse(replay.stdout) as Awaited<ReturnType<typeof replayJson>>;
    // The recorder hooks did run (and succeeded), as they would live.
    expect(r.results.map((x) => x.after.hooks)).to.deep.equal([["qhooks record UserPromptSubmit"], ["qhooks record PreToolUse"], ["qhooks record Stop"]]);
    expect(r).to.include({ events: 3, hookErrors: 0, timeouts: 0 });

    expect(await json(["log", "--json", "--limit", "1000"])).to.deep.equal([...before.log].reverse());
    expect(await json(["sessions", "--json"])).to.deep.equal(before.sessions);
    expect(await json(["stats", "--json"])).to.deep.equal(before.stats);
  });
});
