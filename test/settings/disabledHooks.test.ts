import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { runSwitchOf } from "../../src/settings/runSwitch.js";
import { applySwitches, disabledWhy } from "../../src/settings/switchedOff.js";
import { explicitSettings, isUserTier } from "../../src/settings/settingsSources.js";

/**
 * Switching hooks off as a logged act: `qhooks.disabled` by name (read from the user's own files only), and the
 * per-run switch (`qhooks run --no-hooks`, `QHOOKS_DISABLE=1`), after which the event is still logged.
 */
describe("settings: hooks switched off by name and per run", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const guard = (name: string) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo ${name} >&2; exit 2`, name }] }] });
  const both = (a: string, b: string) => ({
    PreToolUse: [{ matcher: "Bash", hooks: [guard(a).PreToolUse[0]!.hooks[0]!, guard(b).PreToolUse[0]!.hooks[0]!] }],
  });
  const ran = (outcome: Record<string, unknown> | null) => ((outcome?.hooks ?? []) as { name: string }[]).map((h) => h.name).sort();
  const judge = (args: string[] = [], env: Record<string, string> = {}) => sb.runEvent("PreToolUse", payloadFor("PreToolUse"), args, env);

  it("qhooks.disabled in the user's file switches off the named hooks of any level, and qhooks hooks says by which file", async () => {
    sb.userSettings({ qhooks: { disabled: ["noisy", "project-lint"] }, hooks: both("noisy", "user-guard") });
    sb.projectSettings({ hooks: guard("project-lint") });
    const r = await judge(["--no-log"]);
    expect(r.code, r.stderr).to.equal(2);
    expect(ran(r.outcome)).to.deep.equal(["user-guard"]);
    expect(r.stderr).to.include('~/.qoder-cn/settings.json: qhooks.disabled: "noisy" is off (1)');
    const listed = await sb.run(["hooks"]);
    expect(listed.stdout).to.include("Loaded 1 of 3 hooks configured on disk.");
    expect(listed.stdout).to.include(
      "skipped .qoder/settings.json hooks.PreToolUse[0].hooks[0] (switched-off): switched off: qhooks.disabled in ~/.qoder-cn/settings.json",
    );
  });

  it("a project's or its local settings' qhooks.disabled is ignored with one warning: the user's guard still runs", async () => {
    sb.userSettings({ hooks: guard("user-guard") });
    sb.projectSettings({ qhooks: { disabled: ["user-guard", "other"] } });
    sb.localSettings({ qhooks: { disabled: ["user-guard"] } });
    const r = await judge(["--no-log"]);
    expect(r.code, r.stderr).to.equal(2);
    expect(ran(r.outcome)).to.deep.equal(["user-guard"]);
    expect(r.stderr.match(/\.qoder\/settings\.json: qhooks\.disabled: read only from your own settings/g)).to.have.length(1);
    expect(r.stderr).to.include(".qoder/settings.local.json: qhooks.disabled: read only from your own settings");
  });

  it("a name that matches no hook is a warning, and switches nothing off", async () => {
    sb.userSettings({ qhooks: { disabled: ["user-gaurd"] }, hooks: guard("user-guard") });
    const r = await judge(["--no-log"]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('qhooks.disabled: no hook is named "user-gaurd"; nothing switched off by it');
  });

  for (const [how, args, env] of [
    ["--no-hooks", ["--no-hooks"], {}],
    ["QHOOKS_DISABLE=1", [], { QHOOKS_DISABLE: "1" }],
  ] as const) {
    it(`${how}: no hook runs, the event is logged, and the log keeps that hooks were switched off`, async () => {
      sb.userSettings({ hooks: guard("user-guard") });
      const r = await judge([...args], { ...env });
      expect(r.code, r.stderr).to.equal(0);
      expect(ran(r.outcome)).to.deep.equal([]);
      expect(r.stderr).to.include(`${how}: hooks are switched off for this run; 1 not run, the event is still logged`);
      const seq = r.outcome?.seq as number;
      expect(seq).to.be.a("number");
      const shown = await sb.run(["show", String(seq), "--json"]);
      expect(shown.stdout).to.include(`${how}: hooks are switched off for this run`);
      // The next run without the switch runs the guard again.
      expect((await judge()).code).to.equal(2);
    });
  }

  it("runSwitchOf: the flag first, then QHOOKS_DISABLE of 1 or true; any other value is no switch", () => {
    expect(runSwitchOf(true, {})).to.equal("--no-hooks");
    expect(runSwitchOf(false, { QHOOKS_DISABLE: "1" })).to.equal("QHOOKS_DISABLE=1");
    expect(runSwitchOf(false, { QHOOKS_DISABLE: "true" })).to.equal("QHOOKS_DISABLE=1");
    expect(runSwitchOf(false, { QHOOKS_DISABLE: "0" })).to.equal(null);
    expect(runSwitchOf(false, {})).to.equal(null);
  });

  it("applySwitches and disabledWhy: each switched-off hook with what did it", () => {
    const hook = { name: "g", level: "project", plugin: null, file: ".qoder/settings.json", path: "hooks.Stop[0].hooks[0]" } as never;
    const none = applySwitches([hook], { allBy: null, sharedBy: null, names: new Map() }, () => false);
    expect(none.enabled).to.have.length(1);
    const byName = applySwitches([hook], { allBy: null, sharedBy: null, names: new Map([["g", "~/u.json"]]) }, () => false);
    expect(byName.enabled).to.have.length(0);
    expect(disabledWhy(byName.disabled[0]!)).to.equal("switched off: qhooks.disabled in ~/u.json");
    expect(disabledWhy({ hook, switch: "run", by: "--no-hooks" })).to.equal("switched off: --no-hooks (this run)");
  });

  it("isUserTier: the user level and a --settings file outside the project; not one inside it, nor the project's", () => {
    const [outside, inside] = explicitSettings(["/elsewhere/s.json", "guards.json"], sb.project, "qoder", sb.project);
    expect(isUserTier(outside!)).to.equal(true);
    expect(isUserTier(inside!)).to.equal(false);
    expect(isUserTier({ level: "user", path: "/h/s.json", display: "~/s.json" })).to.equal(true);
    expect(isUserTier({ level: "project", path: "/p/s.json", display: ".qoder/s.json" })).to.equal(false);
  });
});
