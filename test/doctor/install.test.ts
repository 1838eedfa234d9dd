import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DoctorReportSchema } from "../../src/schema/doctor.js";
import { CLI, group, Sandbox } from "../support/sandbox.js";

describe("doctor: qhooks installed in front of Claude Code (managed)", () => {
  let sb: Sandbox;
  let env: Record<string, string>;
  beforeEach(() => {
    sb = new Sandbox();
    const managed = join(sb.root, "managed");
    mkdirSync(managed);
    env = { QHOOKS_CLAUDE_MANAGED_DIR: managed };
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks: { Stop: [group(undefined, { command: "true", timeout: 5 })] } });
  });
  afterEach(() => sb.cleanup());

  const rules = async () => {
    const r = await sb.run(["doctor", "--dialect", "claude", "--format", "json"], { env });
    return DoctorReportSchema.parse(JSON.parse(r.stdout)).findings.map((f) => f.rule);
  };
  /** The install's record, edited as an older install or a moved checkout would have left it. */
  const editRecord = (edit: (record: { entries: { event: string }[]; cli: string }) => void) => {
    const path = join(env.QHOOKS_CLAUDE_MANAGED_DIR!, "qhooks-install-claude.json");
    const record = JSON.parse(readFileSync(path, "utf8"));
    edit(record);
    writeFileSync(path, JSON.stringify(record));
  };

  it("a fresh install covers every event and its CLI exists: no finding; without an install, none either", async () => {
    expect(await rules()).to.deep.equal([]);
    const installed = await sb.run(["install", "claude"], { env });
    expect(installed.code, installed.stderr).to.equal(0);
    expect(await rules()).to.deep.equal([]);
  });

  it("install-event-missing: a hook on an event the install has no entry for", async () => {
    expect((await sb.run(["install", "claude"], { env })).code).to.equal(0);
    editRecord((r) => void (r.entries = r.entries.filter((e) => e.event !== "Stop")));
    expect(await rules()).to.deep.equal(["install-event-missing"]);
  });

  it("guard-timeout: a guard given more time than the entry in front of it; none before the install (Claude Code honours it) or after installing again", async () => {
    const settings = (timeout: number) =>
      sb.file(join(sb.home, ".claude", "settings.json"), {
        hooks: { Stop: [group(undefined, { command: "true", timeout: 5 })], PreToolUse: [group("Bash", { command: "true", timeout })] },
      });
    settings(5);
    expect((await sb.run(["install", "claude"], { env })).code).to.equal(0);
    const entry = async () => {
      const r = await sb.run(["doctor", "--dialect", "claude", "--format", "json"], { env });
      return DoctorReportSchema.parse(JSON.parse(r.stdout)).findings.filter((f) => f.rule === "guard-timeout");
    };
    expect(await entry()).to.deep.equal([]);
    // Added after the install: 900 s, where the install gave every entry 600 s (Claude Code's longest default).
    settings(900);
    const found = await entry();
    expect(found.map((f) => [f.path, f.level])).to.deep.equal([["hooks.PreToolUse[0].hooks[0].timeout", "warn"]]);
    expect(found[0]!.message).to.match(
      /^PreToolUse guard's timeout of 900 s does not fit in the 600 s Claude Code gives qhooks' PreToolUse entry \(.*50-qhooks\.json\): Claude Code stops qhooks first, and no decision of this guard reaches it$/,
    );
    expect(found[0]!.fix).to.equal("give it a timeout of at most 599 s, or run qhooks install claude again: the entries then get the longest hook's time");
    // 599 s fits: what qhooks needs of its own besides is a second.
    settings(599);
    expect(await entry()).to.deep.equal([]);
    settings(900);
    const again = await sb.run(["install", "claude"], { env });
    expect(again.code, again.stderr).to.equal(0);
    expect(await entry()).to.deep.equal([]);
  });

  it("install-cli-missing: the script the entries start is gone", async () => {
    expect((await sb.run(["install", "claude"], { env })).code).to.equal(0);
    editRecord((r) => void (r.cli = join(sb.root, "gone", "qhooks.cjs")));
    expect(await rules()).to.deep.equal(["install-cli-missing"]);
  });
});

describe("doctor: qhooks' entries whose CLI is gone", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const userFile = () => join(sb.home, ".claude", "settings.json");
  const report = async () => {
    const r = await sb.run(["doctor", "--dialect", "claude", "--format", "json"]);
    return DoctorReportSchema.parse(JSON.parse(r.stdout)).findings;
  };
  /** A qhooks installed in a folder of its own (as npm's global prefix holds it), which then goes away. */
  function oldCli(): string {
    const dir = join(sb.root, "old-prefix", "bin");
    mkdirSync(dir, { recursive: true });
    for (const name of ["qhooks.cjs", "cli.cjs", "forward.cjs"]) copyFileSync(join(CLI, "..", name), join(dir, name));
    return join(dir, "qhooks.cjs");
  }

  it("a user install whose qhooks was removed: one install-cli-missing finding for the file, not one per event; install again clears it", async () => {
    sb.file(userFile(), { hooks: { Stop: [group(undefined, { command: "true", timeout: 5 })] } });
    const cli = oldCli();
    const installed = spawnSync(process.execPath, [cli, "install", "claude", "--scope", "user"], { cwd: sb.project, env: sb.env(), encoding: "utf8" });
    expect(installed.status, installed.stderr).to.equal(0);
    expect(await report()).to.deep.equal([]);

    rmSync(join(sb.root, "old-prefix"), { recursive: true });
    const findings = await report();
    expect(findings.map((f) => [f.rule, f.settingsLevel, f.file])).to.deep.equal([["install-cli-missing", "user", "~/.claude/settings.json"]]);
    expect(findings[0]!.message).to.equal(`${cli}, which all 33 of qhooks' entries here start, is gone: each fails to start at every event`);
    expect(findings[0]!.fix).to.equal("run qhooks install claude again from the qhooks you use now, or qhooks uninstall claude");

    // The fix it names works: the qhooks in use now rewrites the entries of the unchanged install.
    const again = await sb.run(["install", "claude", "--scope", "user"]);
    expect(again.code, again.stderr).to.equal(0);
    expect(await report()).to.deep.equal([]);
  });

  it("a managed folder that cannot be read: one warning for it, and the user install is still checked", async () => {
    const notAFolder = sb.file("managed-file", "x");
    const gone = join(sb.root, "gone", "qhooks.cjs");
    sb.file(userFile(), { hooks: { Stop: [group(undefined, { command: `node ${gone} record Stop --dialect claude`, timeout: 60 })] } });
    const r = await sb.run(["doctor", "--dialect", "claude", "--format", "json"], { env: { QHOOKS_CLAUDE_MANAGED_DIR: notAFolder } });
    const findings = DoctorReportSchema.parse(JSON.parse(r.stdout)).findings;
    expect(findings.map((f) => [f.rule, f.level, f.settingsLevel])).to.deep.equal([
      ["install-cli-missing", "warn", "managed"],
      ["install-cli-missing", "error", "user"],
    ]);
    expect(findings[0]!.message).to.match(/^qhooks' managed install could not be checked: cannot read .*ENOTDIR$/);
  });

  it("entries written by hand (no install record) are one finding per file too; another hook's missing script is still command-missing", async () => {
    const gone = join(sb.root, "gone", "qhooks.cjs");
    const entry = (event: string) => group(undefined, { command: `node ${gone} record ${event} --dialect claude`, timeout: 60 });
    sb.file(userFile(), {
      hooks: { PreToolUse: [entry("PreToolUse")], Stop: [entry("Stop"), group(undefined, { command: join(sb.root, "missing-guard.sh"), timeout: 5 })] },
    });
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PostToolUse: [entry("PostToolUse")] } });
    const findings = await report();
    expect(findings.map((f) => [f.rule, f.file])).to.deep.equal([
      ["install-cli-missing", "~/.claude/settings.json"],
      ["command-missing", "~/.claude/settings.json"],
      ["install-cli-missing", ".claude/settings.json"],
    ]);
    expect(findings[0]!.message).to.equal(`${gone}, which all 2 of qhooks' entries here start, is gone: each fails to start at every event`);
    expect(findings[0]!.fix).to.match(/^point the entries at the qhooks you use now/);
    expect(findings[1]!.message).to.include("missing-guard.sh does not exist");
    expect(findings[2]!.message).to.equal(`${gone}, which qhooks' entry here starts, is gone: it fails to start at every event`);
  });
});
