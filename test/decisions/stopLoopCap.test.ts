import { expect } from "chai";
import { Sandbox, group } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";

/**
 * The Stop-loop guard's cap: QHOOKS_STOP_BLOCK_CAP, else `qhooks.stopBlockCap` in the settings, else 8; 0 turns the
 * guard off (as CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0 does Claude Code's own).
 */
describe("decisions: the Stop-loop cap", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  const blocker = { hooks: { Stop: [group(undefined, { command: "echo 'tests still failing' >&2; exit 2", name: "keep-going" })] } };
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const stop = (session: string, env: Record<string, string> = {}, args: string[] = []) => sb.runEvent("Stop", { session_id: session }, args, env);
  const guardMessages = (outcome: Record<string, unknown> | null) => (outcome!.systemMessages as string[]).filter((m) => m.includes("Stop-loop guard"));

  it("QHOOKS_STOP_BLOCK_CAP=0 turns the guard off: twelve blocks in a row all stand, with no message and no warning", async () => {
    sb.projectSettings(blocker);
    for (let i = 1; i <= 12; i++) {
      const r = await stop("A", { QHOOKS_STOP_BLOCK_CAP: "0" });
      expect(r.code, `Stop #${i}: ${r.stderr}`).to.equal(2);
      expect(r.outcome, `Stop #${i}`).to.include({ decision: "block", blocked: true });
      expect(guardMessages(r.outcome), `Stop #${i}`).to.deep.equal([]);
      expect(warningLines(r.stderr), `Stop #${i}`).to.deep.equal([]);
    }
    // Off, not merely high: without a log there is nothing to warn about either.
    const unlogged = await stop("B", { QHOOKS_STOP_BLOCK_CAP: "0" }, ["--no-log"]);
    expect(unlogged.code).to.equal(2);
    expect(warningLines(unlogged.stderr)).to.deep.equal([]);
  });

  /** Stops of one session until the guard lets one through; returns how many blocked before it, and that outcome. */
  const blocksBeforeRelease = async (session: string, env: Record<string, string> = {}, most = 10) => {
    for (let i = 0; i < most; i++) {
      const r = await stop(session, env);
      if (r.code === 0) return { blocked: i, released: r };
      expect(r.code, `Stop #${i + 1}: ${r.stderr}`).to.equal(2);
    }
    return { blocked: most, released: null };
  };

  it("qhooks.stopBlockCap in the user's settings sets the cap; the project's may raise it", async () => {
    sb.userSettings({ qhooks: { stopBlockCap: 2 } });
    sb.projectSettings({ ...blocker, qhooks: { stopBlockCap: 3 } });
    const { blocked, released } = await blocksBeforeRelease("C");
    expect(blocked).to.equal(3);
    expect(released!.outcome).to.include({ decision: "none", blocked: false });
    expect(guardMessages(released!.outcome)).to.have.length(1);
    expect(guardMessages(released!.outcome)[0]).to.include("cap 3").and.include("tests still failing");
    expect(warningLines(released!.stderr)).to.deep.equal([]);
  });

  it("a project's or local cap lower than the user's (or the default) is ignored, with one warning: it never overrules the user's Stop hook sooner", async () => {
    sb.userSettings({ ...blocker, qhooks: { stopBlockCap: 3 } });
    sb.localSettings({ qhooks: { stopBlockCap: 1 } });
    const { blocked, released } = await blocksBeforeRelease("L");
    expect(blocked).to.equal(3);
    expect(guardMessages(released!.outcome)[0]).to.include("cap 3");
    expect(warningLines(released!.stderr)).to.deep.equal([
      ".qoder/settings.local.json: qhooks.stopBlockCap: 1 is lower than the cap of your own settings (3); only your own settings can lower it; ignored",
    ]);
    // Without a cap of the user's, the default is what a project cannot lower.
    sb.userSettings(blocker);
    sb.localSettings({});
    sb.projectSettings({ qhooks: { stopBlockCap: 1 } });
    const second = await stop("M");
    expect(second.code).to.equal(2);
    const again = await stop("M");
    expect(again.code, again.stderr).to.equal(2);
    expect(warningLines(again.stderr)).to.deep.equal([
      ".qoder/settings.json: qhooks.stopBlockCap: 1 is lower than the default cap (8); only your own settings can lower it; ignored",
    ]);
  });

  it("while trust is required, the project's caps do not apply (trust pins hooks, not settings): the user's cap stands, one warning", async () => {
    sb.userSettings({ ...blocker, qhooks: { stopBlockCap: 2 } });
    sb.projectSettings({ qhooks: { stopBlockCap: 6 } });
    // Trust not required: the project raises the cap.
    expect((await blocksBeforeRelease("T1")).blocked).to.equal(6);
    // Required: only the user's own cap counts.
    const { blocked, released } = await blocksBeforeRelease("T2", { QHOOKS_REQUIRE_TRUST: "1" });
    expect(blocked).to.equal(2);
    expect(guardMessages(released!.outcome)[0]).to.include("cap 2");
    expect(warningLines(released!.stderr)).to.deep.equal([
      ".qoder/settings.json: qhooks.stopBlockCap: not applied while trust is required (qhooks trust covers this file's hooks, not its settings); only your own settings set it",
    ]);
  });

  it("qhooks.stopBlockCap 0 turns the guard off; QHOOKS_STOP_BLOCK_CAP, when set, wins over the settings", async () => {
    sb.projectSettings({ ...blocker, qhooks: { stopBlockCap: 0 } });
    for (let i = 0; i < 10; i++) expect((await stop("D")).code, `Stop #${i + 1}`).to.equal(2);
    const env = { QHOOKS_STOP_BLOCK_CAP: "1" };
    expect((await stop("E", env)).code).to.equal(2);
    expect((await stop("E", env)).code).to.equal(0);
  });

  it("a bad value is one warning naming it; the default applies and the file's hooks still run", async () => {
    const file = sb.projectSettings({ ...blocker, qhooks: { stopBlockCap: -1, stopBlockcap: 3 } });
    const r = await stop("F");
    expect(r.code).to.equal(2);
    expect(warningLines(r.stderr)).to.deep.equal([
      ".qoder/settings.json: qhooks.stopBlockCap: expected a whole number >= 0 (0 turns the Stop-loop guard off); ignored",
      '.qoder/settings.json: qhooks.stopBlockcap: unknown key (did you mean "stopBlockCap"?), ignored',
    ]);
    void file;
    const env = await stop("G", { QHOOKS_STOP_BLOCK_CAP: "-3" });
    expect(warningLines(env.stderr)).to.include("QHOOKS_STOP_BLOCK_CAP=-3 is not a whole number >= 0; using the settings' qhooks.stopBlockCap, else 8");
  });

  it("the cap is part of the config hash: changing it is a new config snapshot", async () => {
    sb.projectSettings(blocker);
    const before = (await stop("H")).outcome!.configHash;
    sb.projectSettings({ ...blocker, qhooks: { stopBlockCap: 3 } });
    const after = (await stop("H")).outcome!.configHash;
    expect(after).to.be.a("string").and.not.equal(before);
  });
});
