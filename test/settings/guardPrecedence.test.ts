import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { keepGuards, weakenedFields, weakerCopyText, weakerCopyWhy } from "../../src/settings/guardPrecedence.js";
import type { DeclaredHook } from "../../src/core/hookDescriptor.js";

/**
 * Precedence that cannot weaken a guard: a lower-trust file (project, local, plugin, a --settings file inside the
 * project) that declares the user's guard again with weaker settings is ignored, with one warning naming both files;
 * the user's guard runs as the user declared it. A copy that weakens nothing keeps its place as before.
 */
describe("settings: a lower-trust file cannot weaken the user's guard", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const command = "echo guard says no >&2; exit 2";
  const guardGroup = (extra: Record<string, unknown>) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command, ...extra }] }] });
  const judge = (args: string[] = []) => sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log", ...args]);
  const levels = (outcome: Record<string, unknown> | null) => ((outcome?.hooks ?? []) as { level: string }[]).map((h) => h.level);

  const weakenings: [string, Record<string, unknown>, string][] = [
    ["a shorter timeout", { timeout: 1, onFailure: "block" }, "timeout 1 s < 30 s"],
    ["onFailure continue", { onFailure: "continue", timeout: 30 }, "onFailure continue where yours blocks"],
    ["mode shadow", { mode: "shadow", timeout: 30, onFailure: "block" }, "mode shadow"],
    ["async", { async: true, timeout: 30, onFailure: "block" }, "async"],
    ["once", { once: true, timeout: 30, onFailure: "block" }, "once"],
  ];

  for (const lower of ["project", "local"] as const) {
    for (const [what, copy, phrase] of weakenings) {
      it(`user > ${lower}: ${what} is ignored with one warning naming both files; the user's guard blocks`, async () => {
        sb.userSettings({ hooks: guardGroup({ name: "guard", timeout: 30, onFailure: "block" }) });
        const file = lower === "project" ? sb.projectSettings({ hooks: guardGroup(copy) }) : sb.localSettings({ hooks: guardGroup(copy) });
        expect(file).to.be.a("string");
        const r = await judge();
        expect(r.code, r.stderr).to.equal(2);
        expect(levels(r.outcome)).to.deep.equal(["user"]);
        const shown = lower === "project" ? ".qoder/settings.json" : ".qoder/settings.local.json";
        const line = `${shown}: hooks.PreToolUse[0].hooks[0]: would weaken your guard ~/.qoder-cn/settings.json hooks.PreToolUse[0].hooks[0] (${phrase})`;
        expect(r.stderr.split(line).length - 1, r.stderr).to.equal(1);
      });
    }

    it(`user > ${lower}: a copy that weakens nothing keeps its place (reported as the ${lower} copy), without a warning`, async () => {
      sb.userSettings({ hooks: guardGroup({ name: "guard", timeout: 30 }) });
      if (lower === "project") sb.projectSettings({ hooks: guardGroup({ timeout: 60 }) });
      else sb.localSettings({ hooks: guardGroup({ timeout: 60 }) });
      const r = await judge();
      expect(r.code, r.stderr).to.equal(2);
      expect(levels(r.outcome)).to.deep.equal([lower]);
      expect(r.stderr).to.not.include("would weaken");
    });
  }

  it("user > plugin: a plugin's copy in shadow mode runs apart and cannot weaken the user's guard", async () => {
    const root = join(sb.root, "plugins", "kit");
    sb.file(join(root, ".claude-plugin", "plugin.json"), { name: "kit", version: "0.1.0" });
    sb.file(join(root, "hooks", "hooks.json"), { hooks: guardGroup({ mode: "shadow", timeout: 1 }) });
    sb.userSettings({ qhooks: { plugins: [root] }, hooks: guardGroup({ name: "guard", timeout: 30 }) });
    const r = await judge();
    expect(r.code, r.stderr).to.equal(2);
    expect(levels(r.outcome).sort()).to.deep.equal(["plugin", "user"]);
  });

  it("--settings outside > --settings inside the project: the inside file's weaker copy is ignored", async () => {
    const outside = sb.file(join(sb.home, "guards.json"), { hooks: guardGroup({ name: "guard", timeout: 30 }) });
    const inside = sb.file(join(sb.project, "hooks.json"), { hooks: guardGroup({ mode: "shadow", timeout: 30 }) });
    const r = await judge(["--settings", outside, "--settings", inside]);
    expect(r.code, r.stderr).to.equal(2);
    expect(levels(r.outcome)).to.deep.equal([outside]);
    expect(r.stderr).to.include(`${inside}: hooks.PreToolUse[0].hooks[0]: would weaken your guard ${outside} hooks.PreToolUse[0].hooks[0] (mode shadow)`);
  });

  it("qhooks hooks lists the ignored copy with why, and the warning is in the logged configuration", async () => {
    sb.userSettings({ hooks: guardGroup({ name: "guard", timeout: 30 }) });
    sb.projectSettings({ hooks: guardGroup({ mode: "shadow" }) });
    const listed = await sb.run(["hooks"]);
    expect(listed.stdout).to.include("Loaded 1 of 2 hooks configured on disk.");
    expect(listed.stdout).to.include(
      "skipped .qoder/settings.json hooks.PreToolUse[0].hooks[0] (overruled): ignored: would weaken your guard in ~/.qoder-cn/settings.json (mode shadow",
    );
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(2);
    const shown = await sb.run(["show", String(r.outcome?.seq), "--json"]);
    expect(shown.stdout).to.include("would weaken your guard ~/.qoder-cn/settings.json");
  });

  describe("the pure parts", () => {
    const hook = (over: Omit<Partial<DeclaredHook>, "handler"> & { handler?: Record<string, unknown> }, level = "user"): DeclaredHook =>
      ({
        kind: "command",
        event: "PreToolUse",
        name: "g",
        level,
        file: level === "user" ? "~/u.json" : ".qoder/p.json",
        path: "hooks.PreToolUse[0].hooks[0]",
        command: "x",
        written: "x",
        timeoutMs: 30_000,
        shadow: false,
        plugin: null,
        ...over,
        handler: { type: "command", command: "x", ...(over.handler ?? {}) },
      }) as unknown as DeclaredHook;

    it("weakenedFields names each weaker setting, and none for an equal or stronger copy", () => {
      const guard = hook({ handler: { onFailure: "block" } });
      expect(weakenedFields(guard, hook({ handler: { onFailure: "block" }, timeoutMs: 60_000 }, "project"))).to.deep.equal([]);
      expect(weakenedFields(guard, hook({ timeoutMs: 500, shadow: true, handler: { async: true, once: true } }, "project"))).to.deep.equal([
        "timeout 0.5 s < 30 s",
        "onFailure unset where yours blocks",
        "mode shadow",
        "async",
        "once",
      ]);
    });

    it("keepGuards ignores only lower-tier copies that weaken; other commands and plugin hooks stay", () => {
      const guard = hook({});
      const weaker = hook({ shadow: true }, "project");
      const other = hook({ command: "y", shadow: true }, "project");
      const { kept, ignored } = keepGuards([guard, weaker, other], (h) => h.level === "user");
      expect(kept).to.deep.equal([guard, other]);
      expect(ignored).to.have.length(1);
      expect(ignored[0]!.kind).to.equal("weakens-guard");
      expect(weakerCopyText(ignored[0]!)).to.equal(
        ".qoder/p.json: hooks.PreToolUse[0].hooks[0]: would weaken your guard ~/u.json hooks.PreToolUse[0].hooks[0] (mode shadow); ignored, yours runs as you declared it",
      );
      expect(weakerCopyWhy(ignored[0]!)).to.equal("ignored: would weaken your guard in ~/u.json (mode shadow)");
    });
  });
});
