import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";
import { usageError } from "./harness.js";

/**
 * A replay judged with a missing or broken settings file would judge as if it had no hooks: every "newly allowed"
 * line would look like the new rules' doing. A --settings file that cannot be read as settings stops replay (and
 * test, explain); otherwise replay warns exactly as `qhooks run` does for the same files, and says so when its
 * selection matches nothing.
 */
describe("qhooks replay: the warnings run gives", () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "echo 'live guard: no' >&2; exit 2")] } });
    const live = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "live", tool_input: { command: "rm -rf /" } }));
    expect(live.code).to.equal(2);
  });
  afterEach(() => sb.cleanup());

  const runWarnings = async (settingsFile: string) =>
    warningLines((await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log", "--settings", settingsFile])).stderr);

  // Judging with no hooks at all would report every guard as gone: a --settings file replay cannot judge with stops it.
  for (const [what, make, problem] of [
    ["does not exist", (sb: Sandbox) => join(sb.root, "missing.json"), "no such file"],
    ["is not JSON", (sb: Sandbox) => sb.file("broken.json", '{"hooks": {"PreToolUse": ['), "not valid JSON (line 1 column 27: Unexpected end of JSON input)"],
    ["is a directory", (sb: Sandbox) => join(sb.root, "home"), "cannot be read (is a directory)"],
    ["is JSON but not a settings object", (sb: Sandbox) => sb.file("list.json", "[1, 2]"), "not a settings file ("],
  ] as const) {
    it(`a --settings file that ${what}: exit 1 and one line, for replay (text, --json, --match-only), test and explain`, async () => {
      const file = make(sb);
      const payload = sb.file("payload.json", payloadFor("PreToolUse"));
      for (const args of [
        ["replay", "--session", "live", "--settings", file, "--yes"],
        ["replay", "--session", "live", "--settings", file, "--json"],
        ["replay", "--session", "live", "--settings", file, "--match-only"],
        ["test", "--settings", file],
        ["explain", "PreToolUse", "--payload", payload, "--settings", file],
      ]) {
        const r = await sb.run(args);
        expect(usageError(r), args.join(" ")).to.contain(`qhooks: --settings ${file}: ${problem}`);
        expect(r.stdout, args.join(" ")).to.equal("");
      }
      // Nothing was replayed: no run was logged.
      expect(JSON.parse((await sb.run(["replay", "--list", "--json"])).stdout)).to.deep.equal([]);
    });
  }

  it("a --settings file with a bad entry judges with the rest, and warns as qhooks run does, once", async () => {
    const file = sb.file("typo.json", { hooks: { PreToolUse: [group("Bash", { command: "true", timout: 5 })] } });
    const expected = await runWarnings(file);
    expect(expected).to.have.length(1);
    for (const json of [[], ["--json"]]) {
      const r = await sb.run(["replay", "--session", "live", "--settings", file, "--yes", ...json]);
      expect(r.code, r.stderr).to.equal(0);
      expect(warningLines(r.stderr)).to.deep.equal(expected);
    }
  });

  it("default settings (on disk for the event's project) that are broken: warned once for the whole replay", async () => {
    await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "live" }));
    sb.projectSettings("{ not json");
    const r = await sb.run(["replay", "--session", "live", "--yes"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal([
      ".qoder/settings.json: not valid JSON (line 1 column 3: Expected property name or '}'); this file is skipped",
    ]);
  });

  it("a selection that matches no event says so", async () => {
    const r = await sb.run(["replay", "--session", "no-such-session", "--settings", sb.file("ok.json", { hooks: {} })]);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal(["no recorded event matches this selection; nothing was replayed"]);
  });

  it("a bad QHOOKS_* value is warned about as run does", async () => {
    const r = await sb.run(["replay", "--session", "live", "--match-only"], { env: { QHOOKS_MAX_OUTPUT: "-1" } });
    expect(warningLines(r.stderr)).to.deep.equal(["QHOOKS_MAX_OUTPUT=-1 is not a whole number >= 0; using 1048576"]);
  });
});
