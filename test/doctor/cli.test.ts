import { expect } from "chai";
import { join } from "node:path";
import { DoctorReportSchema } from "../../src/schema/doctor.js";
import { group, Sandbox } from "../support/sandbox.js";

describe("cli: qhooks doctor", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const broken = () => {
    sb.file(join(sb.project, "scripts", "guard.sh"), "#!/bin/sh\nexit 0\n", 0o755);
    sb.file(join(sb.project, "scripts", "stop.sh"), "exit 0\n", 0o755);
    return sb.projectSettings({
      hooks: {
        PreToolUse: [group("bash", "./scripts/guard.sh"), group("Bash", { command: "./scripts/gone.sh", timeout: 5 })],
        Stop: [group(undefined, { command: "./scripts/stop.sh", timeout: 120 })],
      },
    });
  };

  it("pretty: one finding per problem with file:line, rule, path and fix; exit 1 on an error", async () => {
    broken();
    const r = await sb.run(["doctor"]);
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stdout).to.include(".qoder/settings.json:5: error matcher-case: hooks.PreToolUse[0].matcher: ");
    expect(r.stdout).to.match(
      /\.qoder\/settings\.json:\d+: error command-missing: hooks\.PreToolUse\[1\]\.hooks\[0\]\.command: program .*gone\.sh does not exist/,
    );
    expect(r.stdout).to.include("  fix: ");
    expect(r.stdout).to.match(/qhooks doctor: 3 hooks checked: 2 errors, 1 warning, 0 info\n$/);
  });

  it("json: the report matches its schema; --fail-on warn fails on warnings alone, the default does not", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { Stop: [group(undefined, { command: "true" })] } });
    const r = await sb.run(["doctor", "--dialect", "claude", "--format", "json"]);
    expect(r.code, r.stderr).to.equal(0);
    const report = DoctorReportSchema.parse(JSON.parse(r.stdout));
    expect(report.findings.map((f) => [f.rule, f.level, f.settingsLevel, f.line, f.path])).to.deep.equal([
      ["guard-timeout", "warn", "project", 6, "hooks.Stop[0].hooks[0]"],
    ]);
    expect(report.rules).to.include("guard-timeout");
    expect((await sb.run(["doctor", "--dialect", "claude", "--fail-on", "warn"])).code).to.equal(1);
  });

  it("no hooks, or only good ones: no findings, exit 0", async () => {
    expect((await sb.run(["doctor"])).stdout).to.equal("qhooks doctor: 0 hooks checked, no findings\n");
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null", timeout: 5 })] } });
    const r = await sb.run(["doctor", "--fail-on", "warn"]);
    expect(r.code, r.stdout).to.equal(0);
  });

  it("github: workflow annotations with the file's path and line, properties and data escaped", async () => {
    broken();
    sb.file(join(sb.project, "scripts", "a%b,c.sh"), "#!/bin/sh\n", 0o644);
    sb.localSettings({ hooks: { Stop: [group(undefined, { command: "'./scripts/a%b,c.sh'", timeout: 5 })] } });
    const r = await sb.run(["doctor", "--format", "github"]);
    expect(r.code).to.equal(1);
    const lines = r.stdout.trim().split("\n");
    expect(
      lines.every((l) => /^::(error|warning|notice) file=[^:]+,line=\d+,title=qhooks [a-z0-9-]+::/.test(l)),
      r.stdout,
    ).to.equal(true);
    expect(r.stdout).to.include(`::error file=${join(sb.project, ".qoder", "settings.json")},line=5,title=qhooks matcher-case::hooks.PreToolUse[0].matcher:`);
    expect(r.stdout).to.include("a%25b,c.sh is not executable");
    expect(r.stderr).to.match(/qhooks doctor: 4 hooks checked/);
  });

  it("--dialect claude reads Claude Code's files, with its 600 s default for a guard without timeout", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", "true")] } });
    const r = await sb.run(["doctor", "--dialect", "claude", "--format", "json"]);
    const report = DoctorReportSchema.parse(JSON.parse(r.stdout));
    expect(report.dialect).to.equal("claude");
    expect(report.findings.map((f) => f.rule)).to.deep.equal(["guard-timeout"]);
    expect(report.findings[0]!.message).to.include("600 s");
  });

  it("10,000 hooks finish in seconds, one finding per real problem", async function () {
    this.timeout(60_000);
    sb.file(join(sb.project, "scripts", "ok.sh"), "#!/bin/sh\nexit 0\n", 0o755);
    const groups = Array.from({ length: 10_000 }, (_, i) =>
      group(i % 1000 === 0 ? "bash" : "Bash", { command: i % 500 === 0 ? `./scripts/missing-${i}.sh` : `./scripts/ok.sh --n ${i}`, timeout: 5 }),
    );
    // Compact, as a generated file would be: pretty-printed, 10,000 hooks pass the 1 MiB a settings file may hold.
    sb.projectSettings(JSON.stringify({ hooks: { PreToolUse: groups } }));
    const r = await sb.run(["doctor", "--format", "json"]);
    const report = DoctorReportSchema.parse(JSON.parse(r.stdout));
    expect(report.hooks).to.equal(10_000);
    expect(report.counts).to.deep.equal({ error: 30, warn: 0, info: 0 });
    expect(r.ms).to.be.lessThan(10_000);
  });
});
