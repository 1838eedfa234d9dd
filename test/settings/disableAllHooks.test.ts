import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/**
 * The hosts' `disableAllHooks`: the user's own switch turns every hook off; a project's (or its local settings', or a
 * plugin's) only the hooks of that tier, never the user's guards; a lower file's `false` never turns back on what the
 * user switched off. Each hook switched off is listed with the file that did it.
 */
describe("settings: disableAllHooks, which cannot switch off a higher level's guard", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const guard = (name: string) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo ${name} >&2; exit 2`, name }] }] });
  const claude = (level: "user" | "project" | "local", doc: Record<string, unknown>) =>
    sb.file(
      level === "user" ? join(sb.home, ".claude", "settings.json") : join(sb.project, ".claude", level === "project" ? "settings.json" : "settings.local.json"),
      doc,
    );
  const judge = () => sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--dialect", "claude", "--no-log"]);
  const ran = (outcome: Record<string, unknown> | null) => ((outcome?.hooks ?? []) as { name: string }[]).map((h) => h.name).sort();

  it("the user's own switch turns every hook off, and a project's false does not turn them back on", async () => {
    claude("user", { disableAllHooks: true, hooks: guard("user-guard") });
    claude("project", { disableAllHooks: false, hooks: guard("project-guard") });
    const r = await judge();
    expect(r.code, r.stderr).to.equal(0);
    expect(ran(r.outcome)).to.deep.equal([]);
    expect(r.stderr).to.include("~/.claude/settings.json: disableAllHooks: every hook is off (2)");
  });

  it("a project's switch turns off the project's, local and plugin hooks, never the user's guard", async () => {
    claude("user", { hooks: guard("user-guard") });
    claude("project", { disableAllHooks: true, hooks: guard("project-guard") });
    claude("local", { hooks: guard("local-guard") });
    const r = await judge();
    expect(r.code, r.stderr).to.equal(2);
    expect(ran(r.outcome)).to.deep.equal(["user-guard"]);
    expect(r.stderr).to.include(
      ".claude/settings.json: disableAllHooks: the hooks of the project, its local settings and plugins are off (2); yours still run",
    );
  });

  it("a --settings file inside the project is the project's: its switch cannot turn off a guard of a --settings file outside", async () => {
    const outside = sb.file(join(sb.home, "guards.json"), { hooks: guard("user-guard") });
    const inside = sb.file(join(sb.project, "hooks.json"), { disableAllHooks: true, hooks: guard("project-guard") });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log", "--settings", outside, "--settings", inside]);
    expect(r.code, r.stderr).to.equal(2);
    expect(ran(r.outcome)).to.deep.equal(["user-guard"]);
    expect(r.stderr).to.include(`${inside}: disableAllHooks: the hooks of the project, its local settings and plugins are off (1); yours still run`);
    expect(r.stderr).to.not.include("every hook is off");
    // The same switch in a --settings file outside the project is the user's own: every hook is off.
    const own = sb.file(join(sb.home, "off.json"), { disableAllHooks: true });
    const off = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log", "--settings", outside, "--settings", own, "--settings", inside]);
    expect(off.code, off.stderr).to.equal(0);
    expect(ran(off.outcome)).to.deep.equal([]);
    expect(off.stderr).to.include(`${own}: disableAllHooks: every hook is off (2)`);
  });

  it("a --settings file inside the project cannot lower the Stop cap nor silence notices of the user's own files", async () => {
    const outside = sb.file(join(sb.home, "guards.json"), { qhooks: { stopBlockCap: 5, notify: true }, hooks: guard("user-guard") });
    const inside = sb.file(join(sb.project, "hooks.json"), { qhooks: { stopBlockCap: 1, notify: false } });
    const r = await sb.run(["hooks", "--json", "--settings", outside, "--settings", inside]);
    expect(r.code, r.stderr).to.equal(0);
    const warnings = (JSON.parse(r.stdout) as { warnings: string[] }).warnings;
    expect(warnings).to.include(
      `${inside}: qhooks.stopBlockCap: 1 is lower than the cap of your own settings (5); only your own settings can lower it; ignored`,
    );
    expect(warnings).to.include(
      `${inside}: qhooks.notify: read only from your own settings (the user-level file, or a --settings file outside the project); ignored here`,
    );
  });

  it("qhooks hooks lists each hook switched off with the file that did it; doctor does not call it an error", async () => {
    claude("user", { hooks: guard("user-guard") });
    claude("project", { disableAllHooks: true, hooks: guard("project-guard") });
    const listed = await sb.run(["hooks", "--dialect", "claude"]);
    expect(listed.stdout).to.include("Loaded 1 of 2 hooks configured on disk.");
    expect(listed.stdout).to.include(
      "skipped .claude/settings.json hooks.PreToolUse[0].hooks[0] (switched-off): switched off: disableAllHooks in .claude/settings.json",
    );
    claude("user", { disableAllHooks: true, hooks: guard("user-guard") });
    const doctor = await sb.run(["doctor", "--dialect", "claude", "--format", "json"]);
    const findings = JSON.parse(doctor.stdout).findings as { rule: string }[];
    expect(findings.map((f) => f.rule)).to.not.include("hooks-not-loaded");
  });

  it("no switch, or false everywhere: every hook runs, and the config hash is the one it always was", async () => {
    claude("user", { hooks: guard("user-guard") });
    claude("project", { hooks: guard("project-guard") });
    const before = JSON.parse((await sb.run(["hooks", "--dialect", "claude", "--json"])).stdout).configHash;
    claude("project", { disableAllHooks: false, hooks: guard("project-guard") });
    const r = await judge();
    expect(ran(r.outcome)).to.deep.equal(["project-guard", "user-guard"]);
    expect(JSON.parse((await sb.run(["hooks", "--dialect", "claude", "--json"])).stdout).configHash).to.equal(before);
    claude("project", { disableAllHooks: true, hooks: guard("project-guard") });
    expect(JSON.parse((await sb.run(["hooks", "--dialect", "claude", "--json"])).stdout).configHash).to.not.equal(before);
  });
});
