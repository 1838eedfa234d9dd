import { expect } from "chai";
import { COMMANDS as REGISTRY } from "../../src/cli/registry/index.js";
import { nonEmptyLines } from "../store/storeHelpers.js";
import { Sandbox } from "../support/sandbox.js";
import { join } from "node:path";

/** The listed commands, from the registry the CLI is built from (a subcommand is listed under its parent). */
const LISTED = REGISTRY.filter((c) => !c.hidden);
const COMMANDS = LISTED.filter((c) => c.path.length === 1).map((c) => c.path[0]);

/** A usage error: exit 1, nothing on stdout, one `qhooks: ` line that is no internal error. */
function usageLine(r: { code: number | null; stdout: string; stderr: string }, what: string): string {
  expect(r.code, `${what}: ${r.stderr}`).to.equal(1);
  expect(r.stdout, what).to.equal("");
  const lines = nonEmptyLines(r.stderr);
  expect(lines, `${what}: ${r.stderr}`).to.have.length(1);
  expect(lines[0], what)
    .to.match(/^qhooks: /)
    .and.not.include("internal error")
    .and.not.include("(outputHelp)");
  return lines[0]!;
}

describe("cli: help and usage errors", () => {
  let sb: Sandbox;
  before(() => (sb = new Sandbox()));
  after(() => sb.cleanup());

  it("the hidden command stays out of every help, and the registry names each command once", async () => {
    const paths = REGISTRY.map((c) => c.path.join(" "));
    expect(new Set(paths).size).to.equal(paths.length);
    const r = await sb.run([]);
    for (const hidden of REGISTRY.filter((c) => c.hidden)) expect(r.stdout).not.to.include(hidden.path[0]);
  });

  it("bare qhooks prints the help on stdout, exit 0, as git and gh do", async () => {
    const r = await sb.run([]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal("");
    expect(r.stdout).to.match(/^Usage: qhooks \[options\] \[command\]/);
    for (const command of COMMANDS) expect(r.stdout).to.match(new RegExp(`^  ${command}\\b`, "m"));
    const help = await sb.run(["help"]);
    expect(help.stdout).to.equal(r.stdout);
  });

  it("qhooks help COMMAND shows that command's help; an unknown one says which exist", async () => {
    const log = await sb.run(["help", "log"]);
    expect(log.code).to.equal(0);
    expect(log.stdout).to.match(/^Usage: qhooks log/);
    const add = await sb.run(["help", "hooks", "add"]);
    expect(add.stdout).to.match(/^Usage: qhooks hooks add/);
    const line = usageLine(await sb.run(["help", "nosuch"]), "help nosuch");
    expect(line).to.include('unknown command "nosuch"');
    for (const command of COMMANDS) expect(line).to.include(command);
    expect(usageLine(await sb.run(["help", "lgo"]), "help lgo")).to.include("did you mean log?");
    expect(usageLine(await sb.run(["nosuch"]), "nosuch")).to.include('unknown command "nosuch"');
  });

  it("every command's help shows the options that apply to it from qhooks itself (--db, --project-dir)", async () => {
    for (const { path, description } of LISTED) {
      const r = await sb.run([...path, "--help"]);
      const command = path.join(" ");
      expect(r.code, command).to.equal(0);
      expect(r.stdout, command)
        .to.match(new RegExp(`^Usage: qhooks ${command} `))
        .and.include(description.slice(0, 40));
      expect(r.stdout, command).to.include("Global Options:").and.include("--db <path>").and.include("--project-dir <dir>");
    }
    const add = await sb.run(["hooks", "add", "--help"]);
    const global = add.stdout.slice(add.stdout.indexOf("Global Options:"));
    expect(global).to.include("--db").and.not.include("--strict");
  });

  it("--project-dir's help names each host's own variable, Claude Code's among them; --dialect's names the detection", async () => {
    const help = (await sb.run(["--help"])).stdout.replace(/\s+/g, " ");
    for (const v of ["$QODERCN_PROJECT_DIR (qoder)", "$CLAUDE_PROJECT_DIR (claude)", "$GEMINI_PROJECT_DIR (gemini)", "$CURSOR_PROJECT_DIR (cursor)"])
      expect(help).to.include(v);
    expect(help).to.include("the one host whose settings files exist here");
  });

  it("the root help's getting started names the files of the dialect in use here, and run's example names that dialect", async () => {
    const getting = async (args: string[] = [], env: Record<string, string> = {}) => {
      const r = await sb.run([...args, "--help"], { env });
      expect(r.code, r.stderr).to.equal(0);
      return r.stdout.slice(r.stdout.indexOf("Getting started"));
    };
    const qoder = await getting();
    expect(qoder).to.match(/^Getting started \(Qoder CN CLI's files: the default;/);
    expect(qoder).to.include("add a hook to ~/.qoder-cn/settings.json").and.include("| qhooks run PreToolUse\n");
    // Claude Code's files alone: detected, and nothing of Qoder's is named.
    const claudeOnly = new Sandbox();
    try {
      claudeOnly.file(join(claudeOnly.home, ".claude", "settings.json"), { hooks: {} });
      const r = await claudeOnly.run(["--help"]);
      const claude = r.stdout.slice(r.stdout.indexOf("Getting started"));
      expect(claude).to.match(/^Getting started \(Claude Code's files: the only host whose settings files exist here;/);
      expect(claude)
        .to.include("add a hook to ~/.claude/settings.json")
        .and.include("| qhooks run PreToolUse --dialect claude\n")
        .and.include(
          "Settings (claude): ~/.claude/settings.json, <project>/.claude/settings.json, <project>/.claude/settings.local.json and the plugins Claude Code has enabled",
        )
        .and.include("qhooks' own files (log, trust, config), for every host: ~/.qhooks/");
      expect(claude).to.not.include("qoder");
    } finally {
      await claudeOnly.cleanup();
    }
    // Named: the flag, or $QHOOKS_DIALECT.
    expect(await getting(["--dialect", "gemini"]))
      .to.include("Gemini CLI's files: named by --dialect")
      .and.include("~/.gemini/settings.json");
    expect(await getting([], { QHOOKS_DIALECT: "cursor" }))
      .to.include("named by $QHOOKS_DIALECT")
      .and.include("~/.cursor/hooks.json");
  });

  it("no command's help names Qoder's files alone as where settings are", async () => {
    for (const { path } of LISTED) {
      const r = await sb.run([...path, "--help"]);
      const own = r.stdout.slice(0, r.stdout.indexOf("Global Options:")).replace(/\s+/g, " ");
      // Each mention of Qoder's folders comes with Claude Code's, as one host's among others.
      for (const at of own.matchAll(/\.qoder/g)) {
        const around = own.slice(Math.max(0, at.index - 160), at.index + 160);
        expect(around, `${path.join(" ")}: ${around}`).to.include(".claude");
      }
    }
  });

  it("a bad filter reads like every other error, naming the flag and never an internal path", async () => {
    const cases: [string[], string][] = [
      [["log", "--event", "PreTool"], 'qhooks: --event: unknown event "PreTool"; did you mean PreToolUse?'],
      [["log", "--event", "pretooluse"], 'qhooks: --event: unknown event "pretooluse"; did you mean PreToolUse?'],
      [["replay", "--event", "PreTool", "--match-only"], 'qhooks: --event: unknown event "PreTool"; did you mean PreToolUse?'],
      [["hooks", "--event", "Stpo"], 'qhooks: --event: unknown event "Stpo"; did you mean Stop?'],
      [["log", "--limit", "ten"], "qhooks: --limit: expected a whole number of at least 1, or all"],
      [["log", "-n", "0"], "qhooks: --limit: expected a whole number of at least 1, or all"],
      [["replay", "--session", "s", "--concurrency", "0"], "qhooks: --concurrency: expected a whole number of at least 1"],
    ];
    for (const [args, expected] of cases) {
      const line = usageLine(await sb.run(args), args.join(" "));
      expect(line, args.join(" ")).to.equal(expected);
      expect(line).not.to.match(/filter\.|\bsession\[/);
    }
    const decision = usageLine(await sb.run(["log", "--decision", "maybe"]), "--decision maybe");
    expect(decision).to.match(/^qhooks: --decision: /);
  });
});
