import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";

/**
 * A replay judged with a missing or broken settings file judges as if it had no hooks: every "newly allowed" line
 * would look like the new rules' doing. Replay warns exactly as `qhooks run` does for the same files, and says so
 * when its selection matches nothing.
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

  for (const [what, make] of [
    ["a --settings file that does not exist", (sb: Sandbox) => join(sb.root, "missing.json")],
    ["a --settings file that is not JSON", (sb: Sandbox) => sb.file("broken.json", '{"hooks": {"PreToolUse": [')],
    ["a --settings file that is a directory", (sb: Sandbox) => join(sb.root, "home")],
  ] as const) {
    it(`${what}: the same warning lines as qhooks run, once, in text and JSON output`, async () => {
      const file = make(sb);
      const expected = await runWarnings(file);
      expect(expected).to.have.length(1);
      for (const json of [[], ["--json"]]) {
        const r = await sb.run(["replay", "--session", "live", "--settings", file, ...json]);
        expect(r.code, r.stderr).to.equal(0);
        expect(warningLines(r.stderr)).to.deep.equal(expected);
      }
    });
  }

  it("default settings (on disk for the event's project) that are broken: warned once for the whole replay", async () => {
    await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "live" }));
    sb.projectSettings("{ not json");
    const r = await sb.run(["replay", "--session", "live"]);
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
