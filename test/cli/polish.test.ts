import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { colourWanted } from "../../src/display/colour.js";
import { displayWidth } from "../../src/display/displayWidth.js";
import { renderTable, type Column } from "../../src/display/table.js";
import { COMMANDS } from "../../src/cli/registry/index.js";
import { StatsSchema } from "../../src/schema/logRecord.js";
import { UsageOutputSchema } from "../../src/schema/usage.js";
import { CLI, Sandbox, group } from "../support/sandbox.js";

const ESC = "\u001b[";
const REGISTRY_HIDDEN = COMMANDS.filter((c) => c.hidden).map((c) => c.path.join(" "));
const SGR = /\u001b\[[0-9;]*m/g;

/** Issue 23 item 7: colour, the help, one error prefix, hook tests' warnings, and one way to count hook runs. */
describe("cli: colour on a terminal, and only there", () => {
  let sb: Sandbox;
  let denied: string;
  before(async () => {
    sb = new Sandbox();
    sb.projectSettings({
      hooks: {
        PreToolUse: [group("Bash", { command: "echo no >&2; exit 2", name: "guard" }, { command: "exit 1", name: "broken" })],
        UserPromptSubmit: [group(undefined, { command: 'echo \'{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit"}}\'', name: "fine" })],
      },
    });
    expect((await sb.runEvent("PreToolUse", { session_id: "s1", tool_name: "Bash", tool_input: { command: "rm -rf /" } })).code).to.equal(2);
    expect((await sb.runEvent("UserPromptSubmit", { session_id: "s1", prompt: "hi" })).code).to.equal(0);
    const logged = JSON.parse((await sb.run(["log", "--json", "--blocked"])).stdout) as { seq: number }[];
    denied = String(logged[0]!.seq);
  });
  after(() => sb.cleanup());

  it("--color=always: DENY red, the failed hook's list red, other decisions plain; the columns still line up", async () => {
    const r = await sb.run(["log", "--format", "table", "--color=always"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`${ESC}31mDENY${ESC}39m`);
    expect(r.stdout).to.include(`${ESC}31mguard:block, broken:error${ESC}39m`);
    expect(r.stdout).not.to.match(/\u001b\[\d+mnone/);
    // Without the sequences, the table is byte for byte the one --color=never prints: widths ignore them.
    const plain = await sb.run(["log", "--format", "table", "--color", "never"]);
    expect(r.stdout.replace(SGR, "")).to.equal(plain.stdout);
    expect(plain.stdout).not.to.include(ESC);
  });

  it("piped (the tests' own case), a table has no colour unless asked for, and NO_COLOR does not outvote --color=always", async () => {
    for (const args of [
      ["log", "--format", "table"],
      ["stats", "--format", "table"],
      ["sessions", "--format", "table"],
      ["hooks"],
      ["hooks", "--usage"],
      ["show", denied],
      ["explain", denied],
    ]) {
      const r = await sb.run(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).to.equal(0);
      expect(r.stdout, args.join(" ")).not.to.include(ESC);
    }
    const forced = await sb.run(["show", denied, "--color=always"], { env: { NO_COLOR: "1" } });
    expect(forced.stdout).to.include(`${ESC}31mDENY${ESC}39m`).and.include(`${ESC}31merror${ESC}39m`);
    const explained = await sb.run(["explain", denied, "--color=always"]);
    expect(explained.stdout).to.include(`decision: ${ESC}31mDENY${ESC}39m`);
    const stats = await sb.run(["stats", "--hooks", "--format", "table", "--color=always"]);
    expect(stats.stdout).to.match(/broken +project +1 +0 +\u001b\[31m1\u001b\[39m/);
    const bad = await sb.run(["log", "--color=sometimes"]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/^qhooks: .*--color.*sometimes/);
  });

  it("on a real terminal (a pty): colour by default, none with NO_COLOR or --color=never", function () {
    this.timeout(30_000);
    const tty = (extra: string) =>
      execFileSync("script", ["-qec", `${extra} "${process.execPath}" "${CLI}" log --limit 5`, "/dev/null"], {
        env: { ...sb.env(), COLUMNS: "160", TERM: "xterm" },
        cwd: sb.project,
        encoding: "utf8",
      });
    expect(tty("")).to.include(`${ESC}31mDENY${ESC}39m`);
    expect(tty("NO_COLOR=1")).not.to.include(`${ESC}31m`);
    expect(tty("NO_COLOR=")).to.include(`${ESC}31mDENY`); // empty is unset, as no-color.org says
  });

  it("colourWanted: the flag wins, then NO_COLOR (non-empty) and TERM=dumb, then whether it is a terminal", () => {
    expect(colourWanted("always", { NO_COLOR: "1" }, false)).to.equal(true);
    expect(colourWanted("never", {}, true)).to.equal(false);
    expect(colourWanted("auto", {}, true)).to.equal(true);
    expect(colourWanted("auto", {}, false)).to.equal(false);
    expect(colourWanted("auto", { NO_COLOR: "0" }, true)).to.equal(false);
    expect(colourWanted("auto", { NO_COLOR: "" }, true)).to.equal(true);
    expect(colourWanted("auto", { TERM: "dumb" }, true)).to.equal(false);
  });

  it("renderTable: a styled CJK cell is padded by what shows, not by its escape sequences", () => {
    const columns: Column<{ d: string }>[] = [
      { header: "DECISION", cell: (r) => r.d, style: (r) => (r.d === "拒绝" ? "red" : null), keep: 2 },
      { header: "N", cell: () => "1", keep: 1, align: "right" },
    ];
    const text = renderTable(columns, [{ d: "拒绝" }, { d: "none" }, { d: "allow" }], { isTTY: true, columns: 80, utf8: true, colour: true });
    const lines = text.split("\n").map((l) => l.replace(SGR, ""));
    expect(new Set(lines.map(displayWidth)).size).to.equal(1);
    expect(text).to.include(`${ESC}31m拒绝${ESC}39m`);
  });
});

describe("cli: help, error lines and warnings said once", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("qhooks --help lists the global options once, --color among them", async () => {
    const r = await sb.run(["--help"]);
    expect(r.stdout).not.to.include("Global Options:");
    for (const flag of ["--db <path>", "--project-dir <dir>", "--dialect <name>", "--color <when>"]) {
      expect(r.stdout.split(flag).length - 1, flag).to.equal(1);
    }
    // A command's help still shows them, under their own heading.
    expect((await sb.run(["log", "--help"])).stdout)
      .to.include("Global Options:")
      .and.include("--color <when>");
  });

  it("no help, hint or command list names an internal command; it still runs when qhooks calls it", async () => {
    for (const args of [["help", "nope"], ["nope"], ["help", "__async-hook"], ["__async-hoo"]]) {
      const r = await sb.run(args);
      expect(r.code, args.join(" ")).to.equal(1);
      // What follows the name typed: the hint or the list of commands.
      const said = r.stderr.slice(r.stderr.indexOf(";"));
      for (const hidden of REGISTRY_HIDDEN) expect(said, args.join(" ")).not.to.include(hidden);
    }
    expect((await sb.run(["help", "nope"])).stderr).to.match(/the commands are help, run, [a-z]/);
    const direct = await sb.run(["__async-hook"]);
    expect(direct.stderr).to.include("missing required argument");
  });

  it("an error line has one qhooks: prefix (prune and erase said it twice)", async () => {
    await sb.runEvent("UserPromptSubmit", { session_id: "s1", prompt: "x" });
    for (const args of [["prune"], ["erase"], ["erase", "--seq", "1", "--session", "s1"]]) {
      const r = await sb.run(args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stderr, args.join(" ")).to.match(/^qhooks: (prune|erase) needs /);
      expect(r.stderr.match(/qhooks:/g), args.join(" ")).to.have.length(1);
    }
  });

  it("qhooks test: a blocking Stop case gives no Stop-loop guard warning; a Stop hook that ignores stop_hook_active is named", async () => {
    sb.projectSettings({ hooks: { Stop: [group(undefined, { command: "echo 'tests fail' >&2; exit 2", name: "tests-before-stop" })] } });
    const line = (active: boolean) =>
      JSON.stringify({
        name: `stop ${active}`,
        event: "Stop",
        expect: { decision: "block" },
        payload: { session_id: "s", hook_event_name: "Stop", stop_hook_active: active },
      });
    sb.file(`${sb.project}/.qoder/hook-tests.jsonl`, `${line(false)}\n`);
    const quiet = await sb.run(["test"]);
    expect(quiet.code, quiet.stdout + quiet.stderr).to.equal(0);
    expect(quiet.stderr).to.equal("");
    sb.file(`${sb.project}/.qoder/hook-tests.jsonl`, `${line(false)}\n${line(true)}\n`);
    const loop = await sb.run(["test"]);
    expect(loop.code, loop.stdout + loop.stderr).to.equal(0);
    expect(loop.stderr.trim().split("\n")).to.deep.equal([
      "qhooks: warning: a Stop hook blocks although stop_hook_active is true: live, it would keep the agent going until the Stop-loop guard lets it stop (qhooks.stopBlockCap)",
    ]);
  });
});

describe("cli: stats --hooks and hooks --usage count hook runs the same way", () => {
  it("the same RUNS, BLOCKS, ERRORS, BAD OUTPUT and TIMEOUTS for each hook, and both helps say what FIRED and ERRORS count", async function () {
    this.timeout(60_000);
    const sb = new Sandbox();
    try {
      sb.projectSettings({
        hooks: {
          PreToolUse: [
            group(
              "Bash",
              { command: "exit 2", name: "blocker" },
              { command: "exit 1", name: "failing" },
              { command: "echo '{not json'", name: "garbled" },
              { command: "sleep 5", name: "slow", timeout: 0.2 },
            ),
          ],
        },
      });
      for (let i = 0; i < 2; i++) await sb.runEvent("PreToolUse", { session_id: "s", tool_name: "Bash", tool_input: { command: "ls" } });
      const counts = (tsv: string, first: string) => {
        const [header, ...rows] = tsv
          .trim()
          .split("\n")
          .map((l) => l.split("\t"));
        const at = (name: string) => header!.indexOf(name);
        return Object.fromEntries(rows.map((r) => [r[at(first)], ["RUNS", "BLOCKS", "ERRORS", "BAD OUTPUT", "TIMEOUTS"].map((c) => r[at(c)]).join(" ")]));
      };
      const stats = counts((await sb.run(["stats", "--hooks", "--format", "tsv"])).stdout, "HOOK");
      const usage = counts((await sb.run(["hooks", "--usage", "--format", "tsv"])).stdout, "HOOK");
      expect(stats).to.deep.equal({
        blocker: "2 2 0 0 0",
        failing: "2 0 2 0 0",
        garbled: "2 0 0 2 0",
        slow: "2 0 0 0 2",
      });
      expect(usage).to.deep.equal(stats);
      const help = (await sb.run(["hooks", "--help"])).stdout;
      expect(help)
        .to.match(/FIRED +the live events of the hook's event/)
        .and.include("BAD OUTPUT");
      expect((await sb.run(["stats", "--help"])).stdout).to.include("qhooks hooks --usage counts the same");
    } finally {
      await sb.cleanup();
    }
  });

  it("a user's and a project's hook of one name are two hooks: each its own runs in stats --hooks, hooks --usage and the budget", async function () {
    this.timeout(60_000);
    const sb = new Sandbox();
    try {
      // The user's check.sh blocks, the project's allows: the same name at two levels.
      sb.userSettings({ hooks: { PreToolUse: [group("Bash", { command: "exit 2", name: "check.sh" })] } });
      sb.projectSettings({
        hooks: { PreToolUse: [group("Bash", { command: "true", name: "check.sh" }), group("Read", { command: "true", name: "check.sh" })] },
      });
      for (let i = 0; i < 2; i++) await sb.runEvent("PreToolUse", { session_id: "s", tool_name: "Bash", tool_input: { command: "ls" } });
      await sb.runEvent("PreToolUse", { session_id: "s", tool_name: "Read", tool_input: { file_path: "/a" } });
      const stats = StatsSchema.parse(JSON.parse((await sb.run(["stats", "--json"])).stdout));
      expect(stats.hooks.map((h) => [h.name, h.level, h.runs, h.blocks])).to.deep.equal([
        ["check.sh", "project", 3, 0],
        ["check.sh", "user", 2, 2],
      ]);
      const table = (await sb.run(["stats", "--hooks", "--format", "tsv"])).stdout;
      expect(table.split("\n")[0]!.split("\t").slice(0, 3)).to.deep.equal(["HOOK", "LEVEL", "RUNS"]);
      const usage = UsageOutputSchema.parse(JSON.parse((await sb.run(["hooks", "--usage", "--json"])).stdout));
      // Two project entries share the name and the level: one hook as the log tells them, each row its total.
      expect(usage.hooks.map((h) => [h.source.level, h.name, h.runs, h.blocks])).to.deep.equal([
        ["user", "check.sh", 2, 2],
        ["project", "check.sh", 3, 0],
        ["project", "check.sh", 3, 0],
      ]);
      expect(usage.budget.map((b) => [b.level, b.name, b.turns])).to.deep.equal([
        ["project", "check.sh", 1],
        ["user", "check.sh", 1],
      ]);
    } finally {
      await sb.cleanup();
    }
  });
});
