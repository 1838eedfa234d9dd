import { expect } from "chai";
import { join } from "node:path";
import { checkOutcome } from "../../src/hooktest/checkOutcome.js";
import { hooksNamed, longHookName, otherHookNames, scriptName, shortHookName, uniqueHookNames } from "../../src/settings/hookNames.js";
import { logSeqs, seedLog } from "../store/storeHelpers.js";
import { hookResultOf, outcomeOf } from "../support/outcomes.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/**
 * Default hook names: a command's script file name (a plugin's after the plugin's name), unique within one loaded
 * configuration, and the old default (the whole command) still selects the hook wherever a user names one.
 */
describe("settings: short default hook names", function () {
  this.timeout(30_000);

  describe("the rule", () => {
    it("takes the script a command runs, through interpreters, wrappers and variable assignments", () => {
      expect(scriptName("/home/me/.claude/hooks/check.sh --strict")).to.equal("check.sh");
      expect(scriptName("bash ~/hooks/x.sh")).to.equal("x.sh");
      expect(scriptName('node "$CLAUDE_PROJECT_DIR/tools/guard.mjs"')).to.equal("guard.mjs");
      expect(scriptName("FOO=1 BAR=x.sh python3 hooks/lint.py --fix")).to.equal("lint.py");
      expect(scriptName("uv run --with requests ~/hooks/audit.py")).to.equal("audit.py");
      expect(scriptName("~/bin/guard --strict")).to.equal("guard");
    });

    it("keeps an inline command (no script, no path) as written", () => {
      expect(scriptName("echo ok")).to.equal(null);
      // A path read by the program is not what runs: the command stays whole.
      expect(scriptName("cat '/tmp/out/h40.stdout'; exit 0 # h40")).to.equal(null);
      expect(scriptName("~/hooks/check.sh && echo done")).to.equal("check.sh");
      expect(shortHookName("jq -r .tool_name", null)).to.equal("jq -r .tool_name");
    });

    it("qualifies a plugin's hook by the plugin; the long name is the old default", () => {
      expect(shortHookName("${CLAUDE_PLUGIN_ROOT}/hooks/check.sh", "kit")).to.equal("kit: check.sh");
      expect(longHookName("${CLAUDE_PLUGIN_ROOT}/hooks/check.sh", "kit")).to.equal("kit: ${CLAUDE_PLUGIN_ROOT}/hooks/check.sh");
    });

    it("two hooks that would share a short name keep their long names; the same command twice keeps its short name", () => {
      const { hooks, aliases } = uniqueHookNames([
        { name: "check.sh", longName: "/a/check.sh" },
        { name: "check.sh", longName: "/b/check.sh" },
        { name: "lint.sh", longName: "/a/lint.sh" },
        { name: "lint.sh", longName: "/a/lint.sh" },
        { name: "named", longName: "named" },
      ]);
      expect(hooks.map((h) => h.name)).to.deep.equal(["/a/check.sh", "/b/check.sh", "lint.sh", "lint.sh", "named"]);
      expect([...aliases]).to.deep.equal([["/a/lint.sh", "lint.sh"]]);
    });

    it("hooksNamed: a short name two hooks gave up names both of them; any other name, the one hook it names now", () => {
      const { aliases, shared } = uniqueHookNames([
        { name: "check.sh", longName: "/a/check.sh" },
        { name: "check.sh", longName: "/b/check.sh" },
        { name: "check.sh", longName: "check.sh" },
        { name: "lint.sh", longName: "/a/lint.sh" },
      ]);
      expect(hooksNamed(aliases, shared, "check.sh")).to.deep.equal(["/a/check.sh", "/b/check.sh", "check.sh"]);
      expect(hooksNamed(aliases, shared, "/a/lint.sh")).to.deep.equal(["lint.sh"]);
      expect(hooksNamed(aliases, shared, "lint.sh")).to.deep.equal(["lint.sh"]);
      expect(hooksNamed(aliases, shared, "/a/check.sh")).to.deep.equal(["/a/check.sh"]);
    });

    it("otherHookNames: a name now gives its long names, a long name gives the name now; a name without a rename, none", () => {
      const aliases = new Map([
        ["kit: ${CLAUDE_PLUGIN_ROOT}/hooks/check.sh", "kit: check.sh"],
        ["/a/lint.sh --fix", "lint.sh"],
        ["sh /a/lint.sh", "lint.sh"],
      ]);
      expect(otherHookNames(aliases, "kit: check.sh")).to.deep.equal(["kit: ${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"]);
      expect(otherHookNames(aliases, "kit: ${CLAUDE_PLUGIN_ROOT}/hooks/check.sh")).to.deep.equal(["kit: check.sh"]);
      expect(otherHookNames(aliases, "lint.sh")).to.deep.equal(["/a/lint.sh --fix", "sh /a/lint.sh"]);
      expect(otherHookNames(aliases, "/a/lint.sh --fix")).to.deep.equal(["lint.sh"]);
      expect(otherHookNames(aliases, "named")).to.deep.equal([]);
      expect(otherHookNames(new Map(), "kit: check.sh")).to.deep.equal([]);
    });

    it("a hook's own name wins a clash: the defaulted one gives way", () => {
      const { hooks } = uniqueHookNames([
        { name: "check.sh", longName: "check.sh" },
        { name: "check.sh", longName: "/a/check.sh" },
      ]);
      expect(hooks.map((h) => h.name)).to.deep.equal(["check.sh", "/a/check.sh"]);
    });
  });

  it("a hook test case naming a hook by its whole command (written before short names) still finds it", () => {
    const outcome = outcomeOf("PreToolUse", { hooks: [hookResultOf({ name: "guard.sh", command: "/a/guard.sh --strict" })] });
    expect(checkOutcome({ decision: "none", ran: ["/a/guard.sh --strict", "guard.sh"] }, outcome)).to.deep.equal([]);
    expect(checkOutcome({ decision: "none", notRan: ["/a/guard.sh --strict"] }, outcome).map((p) => p.kind)).to.deep.equal(["not-ran"]);
    expect(checkOutcome({ decision: "none", ran: ["/b/guard.sh"] }, outcome).map((p) => p.kind)).to.deep.equal(["ran"]);
  });

  describe("in a loaded configuration", () => {
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());

    const hook = (command: string) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] });
    const ran = (outcome: Record<string, unknown> | null) => ((outcome?.hooks ?? []) as { name: string }[]).map((h) => h.name).sort();

    it("a hook is named by its script in the outcome; two levels' check.sh keep their whole commands", async () => {
      const guard = sb.script("guard.sh", "exit 0");
      sb.userSettings({ hooks: hook(`sh ${guard} --strict`) });
      let r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(ran(r.outcome)).to.deep.equal(["guard.sh"]);

      const other = sb.file(join("other", "guard.sh"), "#!/bin/sh\nexit 0\n", 0o755);
      sb.projectSettings({ hooks: hook(other) });
      r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
      expect(ran(r.outcome)).to.deep.equal([other, `sh ${guard} --strict`].sort());
    });

    it("qhooks.disabled and qhooks.replay.skip written with the whole command select the hook by its short name", async () => {
      const guard = sb.script("guard.sh", "echo no >&2; exit 2");
      sb.userSettings({ hooks: hook(guard), qhooks: { disabled: [guard], replay: { skip: [guard] } } });
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.include('qhooks.disabled: "guard.sh" is off (1)');
      expect(r.stderr).not.to.include("no hook is named");
      const json = JSON.parse((await sb.run(["hooks", "--json"])).stdout) as { warnings: string[] };
      expect(json.warnings.join("\n")).not.to.include("no hook is named");
    });

    it("history under the old name and the new one: log --hook finds both, stats counts them as one hook", async () => {
      const guard = sb.script("guard.sh", "exit 0");
      sb.userSettings({ hooks: hook(guard) });
      const at = (minutes: number) => new Date(Date.now() - 60_000 * (10 - minutes));
      // The first run was logged before short names: under the whole command.
      const seqs = await seedLog(sb.db, [
        { ts: at(0), event: "PreToolUse", sessionId: "s1", matchValue: "Bash", decision: "none", hooks: [{ name: guard, command: guard, durationMs: 7 }] },
        { ts: at(1), event: "PreToolUse", sessionId: "s1", matchValue: "Bash", decision: "none", hooks: [{ name: "guard.sh", command: guard, durationMs: 3 }] },
      ]);
      expect(await logSeqs(sb, ["--hook", guard])).to.deep.equal([seqs[1], seqs[0]]);
      expect(await logSeqs(sb, ["--hook", "guard.sh"])).to.deep.equal([seqs[1], seqs[0]]);
      const stats = await sb.run(["stats", "--hooks", "--json"]);
      expect(stats.code, stats.stderr).to.equal(0);
      const hooks = JSON.parse(stats.stdout) as { name: string; runs: number; maxMs: number }[];
      expect(hooks.map((h) => [h.name, h.runs, h.maxMs])).to.deep.equal([["guard.sh", 2, 7]]);
    });
  });
});
