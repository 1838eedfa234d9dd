import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/**
 * A logged event remembers its host (its configuration snapshot says so): replay without --dialect judges it under
 * that host, even where another host's files would be the default; a named dialect still wins.
 */
describe("replay: each event under its own host", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("a Claude Code event is replayed against Claude Code's files unless --dialect says otherwise", async () => {
    sb.file(join(sb.home, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 2", name: "claude-guard" }] }] },
    });
    // Qoder's files exist too: without the logged host, the default (qoder) would judge it with no hooks.
    sb.userSettings({ hooks: {} });
    const live = await sb.run(["run", "PreToolUse", "--dialect", "claude"], { input: JSON.stringify(payloadFor("PreToolUse")) });
    expect(live.code, live.stderr).to.equal(2);
    const own = await sb.run(["replay", "--since", "1d", "--match-only", "--json"]);
    expect(own.code, own.stderr).to.equal(0);
    expect(JSON.parse(own.stdout).results.map((r: { after: { hooks: string[] } }) => r.after.hooks)).to.deep.equal([["claude-guard"]]);
    const named = await sb.run(["replay", "--since", "1d", "--match-only", "--json", "--dialect", "qoder"]);
    expect(JSON.parse(named.stdout).results.map((r: { after: { hooks: string[] } }) => r.after.hooks)).to.deep.equal([[]]);
  });
});
