import { expect } from "chai";
import { join } from "node:path";
import { logSeqs, nonEmptyLines, seedLog, type SeedEvent } from "../store/storeHelpers.js";
import { Sandbox } from "../support/sandbox.js";

const CHECK = "/home/me/.claude/hooks/check.sh --strict";
const PLUGIN_ONE = "one: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh";
const PLUGIN_TWO = "two: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh";

function history(): SeedEvent[] {
  const at = (minutes: number) => new Date(Date.parse("2026-01-13T01:00:00.000Z") + minutes * 60_000);
  return [
    {
      ts: at(0),
      event: "PreToolUse",
      sessionId: "s1",
      matchValue: "Bash",
      decision: "none",
      hooks: [{ name: CHECK }, { name: PLUGIN_ONE, command: "/p/one/scripts/check.sh" }, { name: "lint", command: "/x/lint.sh" }],
    },
    {
      ts: at(1),
      event: "PreToolUse",
      sessionId: "s1",
      matchValue: "Bash",
      decision: "deny",
      hooks: [{ name: PLUGIN_TWO, command: "/p/two/scripts/check.sh", outcome: "block", decision: "deny" }],
    },
  ];
}

describe("cli: log's table names hooks by their script, the log keeps their whole names", () => {
  let sb: Sandbox;
  let seqs: number[];
  before(async () => {
    sb = new Sandbox();
    seqs = await seedLog(sb.db, history());
  });
  after(() => sb.cleanup());

  it("the table shows check.sh, one: check.sh, two: check.sh and a given name as it is", async () => {
    const r = await sb.run(["log", "--format", "table"], { env: { COLUMNS: "220" } });
    expect(r.code, r.stderr).to.equal(0);
    const rows = nonEmptyLines(r.stdout);
    const row = (seq: number) => rows.find((l) => l.split(/ {2,}/)[1] === String(seq))!;
    expect(row(seqs[0]!)).to.include("check.sh, one: check.sh, lint");
    expect(row(seqs[0]!)).not.to.include("/home/me");
    expect(row(seqs[1]!)).to.include("two: check.sh:block");
  });

  it("tab-separated output, JSON and --hook keep the whole names", async () => {
    const tsv = await sb.run(["log"]);
    expect(tsv.stdout).to.include(`${CHECK}, ${PLUGIN_ONE}, lint`);
    const json = await sb.run(["log", "--json"]);
    expect((JSON.parse(json.stdout) as { hooks: { name: string }[] }[]).flatMap((r) => r.hooks.map((h) => h.name))).to.include(CHECK);
    expect(await logSeqs(sb, ["--hook", CHECK])).to.deep.equal([seqs[0]]);
    expect(await logSeqs(sb, ["--hook", "two: "])).to.deep.equal([seqs[1]]);
    expect(await logSeqs(sb, ["--hook", "check.sh"])).to.deep.equal([seqs[1], seqs[0]]);
  });
});

/**
 * `--hook NAME` with a configuration that renamed the hook: a plugin's hook stored under its old whole name
 * (`kit: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh`) before, and under its short name (`kit: check.sh`) now. Either name
 * finds both, in log, report, export and replay's selection; the configuration is Claude Code's, found without flags.
 */
describe("cli: --hook finds a hook's runs under its older names", () => {
  const OLD = "kit: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh";
  let sb: Sandbox;
  let seqs: number[];
  before(async () => {
    sb = new Sandbox();
    const root = join(sb.home, ".claude", "plugins", "cache", "tools", "kit", "1.0.0");
    sb.file(join(root, ".claude-plugin", "plugin.json"), { name: "kit", version: "1.0.0" });
    sb.file(join(root, "hooks", "hooks.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh" }] }] },
    });
    sb.file(join(sb.home, ".claude", "plugins", "installed_plugins.json"), {
      version: 2,
      plugins: { "kit@tools": [{ scope: "user", installPath: root, version: "1.0.0" }] },
    });
    sb.file(join(sb.home, ".claude", "settings.json"), { enabledPlugins: { "kit@tools": true } });
    const at = (minutes: number) => new Date(Date.parse("2026-02-01T01:00:00.000Z") + minutes * 60_000);
    const ran = (minutes: number, name: string): SeedEvent => ({
      ts: at(minutes),
      event: "PreToolUse",
      sessionId: "s1",
      matchValue: "Bash",
      decision: "none",
      hooks: [{ name, command: join(root, "scripts", "check.sh") }],
    });
    seqs = await seedLog(sb.db, [ran(0, OLD), ran(1, "kit: check.sh"), ran(2, "other: check.sh")]);
  });
  after(() => sb.cleanup());

  it("the hook's name now and its old name each find both runs; another plugin's check.sh is not one of them", async () => {
    const hooks = await sb.run(["hooks", "--json"]);
    expect(hooks.stdout, hooks.stderr).to.include('"kit: check.sh"');
    expect(await logSeqs(sb, ["--hook", "kit: check.sh"])).to.deep.equal([seqs[1], seqs[0]]);
    expect(await logSeqs(sb, ["--hook", OLD])).to.deep.equal([seqs[1], seqs[0]]);
    // Without a configuration that names it, the stored texts alone.
    expect(await logSeqs(sb, ["--hook", "kit: check.sh", "--dialect", "qoder"])).to.deep.equal([seqs[1]]);
  });

  it("replay selects the same events", async () => {
    const replay = await sb.run(["replay", "--hook", "kit: check.sh", "--match-only", "--yes"]);
    expect(replay.code, replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/Replaying 2 events/);
  });
});
