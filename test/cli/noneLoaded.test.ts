import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { noneLoaded } from "../../src/engine/loadAttestation.js";

/** "Some configured, none loaded" is said in the session at its start (a systemMessage), not only by doctor. */
describe("run: hooks configured and none loaded, said at SessionStart", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const start = (file: string) =>
    sb.runEvent("SessionStart", payloadFor("SessionStart"), ["--dialect", "claude", "--format", "hook", "--settings", file, "--no-log"]);

  it("every entry invalid: the answer's systemMessage says so (Claude Code shows it; Qoder CN CLI shows notices only with a block)", async () => {
    const file = sb.file(join(sb.home, "guards.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "comand", command: "x" }] }] } });
    const r = await start(file);
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout).systemMessage).to.include("qhooks: 1 hook configured on disk, none loaded; no hook runs (qhooks hooks says why)");
  });

  it("one hook loads, or every hook switched off on purpose: nothing said", async () => {
    const file = sb.file(join(sb.home, "guards.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } });
    expect((await start(file)).stdout).to.not.include("none loaded");
    sb.file(file, { disableAllHooks: true, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } });
    expect((await start(file)).stdout).to.not.include("none loaded");
  });

  it("a file of 250 broken entries: the first 100 listed with why, 150 counted (hooks --json and the table), none loaded", async () => {
    const broken = Array.from({ length: 250 }, () => ({ type: "comand", command: "x" }));
    const file = sb.file(join(sb.home, "guards.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: broken }] } });
    const json = await sb.run(["hooks", "--json", "--settings", file]);
    const attestation = JSON.parse(json.stdout).attestation;
    expect(attestation.configured).to.equal(250);
    expect(attestation.loaded).to.equal(0);
    expect(attestation.skipped).to.have.length(100);
    expect(attestation.skipped[99].path).to.equal("hooks.PreToolUse[0].hooks[99]");
    expect(attestation.notListed).to.deep.equal({ count: 150, switchedOff: 0 });
    expect((await sb.run(["hooks", "--settings", file])).stdout).to.include("  skipped 150 more, not listed");
    expect(JSON.parse((await start(file)).stdout).systemMessage).to.include("250 hooks configured on disk, none loaded");
  });

  it("noneLoaded: the entries not listed count too (all switched off: null; one that is not: said)", () => {
    const off = { level: "user", file: "f", path: "p", why: "switched off: --no-hooks (this run)" };
    expect(noneLoaded({ configured: 3, loaded: 0, skipped: [off], notListed: { count: 2, switchedOff: 2 }, unreadFiles: [] })).to.equal(null);
    expect(noneLoaded({ configured: 3, loaded: 0, skipped: [off], notListed: { count: 2, switchedOff: 1 }, unreadFiles: [] })).to.equal(
      "3 hooks configured on disk, none loaded",
    );
  });

  it("noneLoaded: null when one loads, when nothing is configured, or when all are switched off", () => {
    const skipped = (why: string) => ({ level: "user", file: "f", path: "p", why });
    expect(noneLoaded({ configured: 2, loaded: 1, skipped: [skipped("x")], unreadFiles: [] })).to.equal(null);
    expect(noneLoaded({ configured: 0, loaded: 0, skipped: [], unreadFiles: [] })).to.equal(null);
    expect(noneLoaded({ configured: 1, loaded: 0, skipped: [skipped("switched off: --no-hooks (this run)")], unreadFiles: [] })).to.equal(null);
    expect(noneLoaded({ configured: 2, loaded: 0, skipped: [skipped("x"), skipped("y")], unreadFiles: [] })).to.equal(
      "2 hooks configured on disk, none loaded",
    );
    expect(noneLoaded({ configured: 0, loaded: 0, skipped: [], unreadFiles: [{ level: "user", file: "f", why: "w" }] })).to.equal(
      "no hook loaded: 1 settings file could not be read",
    );
  });
});
