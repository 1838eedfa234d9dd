import { expect } from "chai";
import { StatsSchema } from "../../src/schema/logRecord.js";
import { UsageLedgerSchema, UsageOutputSchema, type HookUsage, type UsageLedger } from "../../src/schema/usage.js";
import { loggedHookNames } from "../../src/explain/loggedHookNames.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

const BLOCK_RM = `input=$(cat)
case "$input" in *"rm -rf"*) echo "Dangerous command blocked" >&2; exit 2;; esac
exit 0`;
const RM = payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } });
const LS = payloadFor("PreToolUse", { tool_input: { command: "ls" } });

/** `qhooks hooks --usage` and `qhooks stats --hooks` over a real log made by real hook runs. */
describe("the usage ledger", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const configure = () =>
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group("Bash", { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" }),
          group("Bash ", { command: "cat >/dev/null", name: "typo-matcher" }),
          group("Write|Edit", { command: "cat >/dev/null", name: "format" }),
          group("Bash", { type: "command", name: "no-command" }),
        ],
        Stop: [group(undefined, { command: "cat >/dev/null", name: "stop-check" })],
      },
    });
  const ledger = async (args: string[] = []): Promise<UsageLedger> => {
    const r = await sb.run(["hooks", "--usage", "--json", ...args]);
    expect(r.code, r.stderr).to.equal(0);
    return UsageLedgerSchema.parse(JSON.parse(r.stdout));
  };
  const row = (l: UsageLedger, name: string): HookUsage => l.hooks.find((h) => h.name === name)!;

  it("lists every configured hook: loaded or why not, runs, blocks, times, last run, and the ones that never fired", async () => {
    configure();
    await sb.runEvent("PreToolUse", RM);
    await sb.runEvent("PreToolUse", LS);
    await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read", tool_input: { file_path: "/a" } }));
    const l = await ledger();
    expect(l.hooks.map((h) => h.name)).to.deep.equal(["block-rm", "typo-matcher", "format", "no-command", "stop-check"]);

    expect(row(l, "block-rm")).to.deep.include({
      loaded: true,
      runs: 2,
      blocks: 1,
      errors: 0,
      timeouts: 0,
      events: 3,
      matched: 2,
      neverFired: false,
      mode: "enforce",
    });
    expect(row(l, "block-rm").p50Ms).to.be.a("number");
    expect(row(l, "block-rm").maxMs! >= row(l, "block-rm").p95Ms!).to.equal(true);
    expect(row(l, "block-rm").lastRun).to.be.a("string");
    expect(row(l, "block-rm").source).to.deep.equal({ level: "project", file: ".qoder/settings.json", plugin: null, path: "hooks.PreToolUse[0].hooks[0]" });
    // "Bash " is a list of names with a trailing space trimmed: it matches. "Write|Edit" matched none of the 3 events.
    expect(row(l, "typo-matcher")).to.deep.include({ matched: 2, neverFired: false });
    expect(row(l, "format")).to.deep.include({ loaded: true, runs: 0, events: 3, matched: 0, neverFired: true, lastRun: null });
    expect(row(l, "no-command")).to.deep.include({ loaded: false, neverFired: false });
    expect(row(l, "no-command").notLoaded).to.match(/hooks\.PreToolUse\[3\]\.hooks\[0\]\.command/);
    // No Stop event in the window: nothing to say whether it fires.
    expect(row(l, "stop-check")).to.deep.include({ events: 0, matched: 0, neverFired: false });

    // A window with nothing in it.
    const later = await ledger(["--since", "2999-01-01"]);
    expect(row(later, "block-rm")).to.deep.include({ runs: 0, events: 0, lastRun: null, p50Ms: null });

    const text = await sb.run(["hooks", "--usage", "--format", "table"], { env: { COLUMNS: "200" } });
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.include("Hook usage, all of the log");
    expect(text.stdout).to.match(/Never fired \(1\):.*\n {2}format \(PreToolUse, matcher "Write\|Edit"\): 0 of 3 PreToolUse events matched/);
    expect(text.stdout).to.match(/Not loaded \(1\):\n {2}\.qoder\/settings\.json: hooks\.PreToolUse\[3\]/);
    expect(text.stdout).to.match(/block-rm +project +yes +2\/3 +2 +1/);
  });

  it("--since without --usage is a usage error", async () => {
    const r = await sb.run(["hooks", "--since", "1d"]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include("--since and --until go with --usage");
  });

  it("qhooks stats --hooks: p50, p95, p99 and max per hook", async () => {
    configure();
    for (const p of [RM, LS, LS]) await sb.runEvent("PreToolUse", p);
    const r = await sb.run(["stats", "--hooks", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const hooks = StatsSchema.shape.hooks.parse(JSON.parse(r.stdout));
    const rm = hooks.find((h) => h.name === "block-rm")!;
    expect(rm.runs).to.equal(3);
    expect(rm.p50Ms! <= rm.p95Ms! && rm.p95Ms! <= rm.p99Ms! && rm.p99Ms! <= rm.maxMs!).to.equal(true);
    const table = await sb.run(["stats", "--hooks", "--format", "table"], { env: { COLUMNS: "200" } });
    expect(table.stdout).to.match(/HOOK +LEVEL +RUNS +BLOCKS +ERRORS +BAD OUTPUT +TIMEOUTS +P50 MS +P95 MS +P99 MS +MAX MS +LAST RUN/);
    expect(table.stdout).not.to.include("DECISION");
  });

  it("hooks --usage: each hook's time per turn and context injected, folded from the log (prompt to next prompt)", async () => {
    sb.userSettings({
      hooks: {
        UserPromptSubmit: [group(undefined, { command: "cat >/dev/null; echo twelve-chars", name: "ctx" })],
        Stop: [group(undefined, { command: "cat >/dev/null", name: "stop-check" })],
      },
    });
    for (const session of ["a", "a", "b"]) {
      await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { session_id: session }));
      await sb.runEvent("Stop", payloadFor("Stop", { session_id: session }));
    }
    const r = await sb.run(["hooks", "--usage", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const budget = (
      JSON.parse(r.stdout) as { budget: { name: string; turns: number; msPerTurn: { max: number }; contextChars: { total: number; maxPerTurn: number } }[] }
    ).budget;
    const ctx = budget.find((b) => b.name === "ctx")!;
    expect(ctx.turns).to.equal(3);
    expect(ctx.contextChars).to.deep.equal({ total: 36, maxPerTurn: 12 });
    expect(budget.find((b) => b.name === "stop-check")!.contextChars.total).to.equal(0);
    const table = await sb.run(["hooks", "--usage", "--format", "table"], { env: { COLUMNS: "250" } });
    expect(table.stdout).to.match(/MS\/TURN +CTX\/TURN/);
    expect(table.stdout).to.match(/ctx .* 12 /);
  });

  it("hooks --usage: one name at two levels is two budgets, each on its own row", async () => {
    sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, { command: "cat >/dev/null; echo user-ctx", name: "lint" })] } });
    sb.projectSettings({ hooks: { UserPromptSubmit: [group(undefined, { command: "cat >/dev/null; echo the-projects-ctx", name: "lint" })] } });
    await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit"));
    const r = await sb.run(["hooks", "--usage", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const { budget } = UsageOutputSchema.parse(JSON.parse(r.stdout));
    expect(budget.map((b) => [b.name, b.level, b.contextChars.maxPerTurn])).to.deep.equal([
      ["lint", "project", 16],
      ["lint", "user", 8],
    ]);
    const table = await sb.run(["hooks", "--usage", "--format", "tsv"]);
    const rows = table.stdout.split("\n").filter((l) => l.includes("\tlint\t"));
    const header = table.stdout.split("\n")[0]!.split("\t");
    const ctx = (level: string) => rows.find((l) => l.split("\t")[header.indexOf("LEVEL")] === level)!.split("\t")[header.indexOf("CTX/TURN")];
    expect([ctx("user"), ctx("project")]).to.deep.equal(["8", "16"]);
  });

  it("hooks --usage: a hook renamed since keeps its runs logged under the old name, one row", async () => {
    const command = "cat >/dev/null; echo ctx";
    sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, { command, name: "old-lint" })] } });
    await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { session_id: "a" }));
    sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, { command, name: "lint" })] } });
    await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { session_id: "b" }));
    const r = await sb.run(["hooks", "--usage", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const output = UsageOutputSchema.parse(JSON.parse(r.stdout));
    expect(output.hooks.map((h) => [h.name, h.runs])).to.deep.equal([["lint", 2]]);
    expect(output.budget.map((b) => [b.name, b.turns])).to.deep.equal([["lint", 2]]);
  });

  describe("loggedHookNames", () => {
    const hook = (name: string, level: string, command: string | null) => ({ name, level, command });
    it("maps old default names (aliases) and names logged before a rename (same level and command) to the name now", () => {
      const configured = [hook("lint", "user", "lint.sh"), hook("check.sh", "project", "./check.sh")];
      const logged = [hook("old-lint", "user", "lint.sh"), hook("lint", "user", "lint.sh"), hook("./check.sh", "project", "./check.sh")];
      const names = loggedHookNames(configured, logged, new Map([["./check.sh", "check.sh"]]));
      expect([...names]).to.deep.equal([
        ["./check.sh", "check.sh"],
        ["old-lint", "lint"],
      ]);
    });
    it("leaves alone a name in use now, a run of another level, a removed hook, and a command two names share", () => {
      const configured = [hook("a", "user", "x"), hook("b", "user", "y"), hook("c", "user", "y")];
      const logged = [hook("a", "project", "y"), hook("old", "project", "x"), hook("gone", "user", "z"), hook("old2", "user", "y"), hook("n", "user", null)];
      expect([...loggedHookNames(configured, logged)]).to.deep.equal([]);
    });
  });
});
