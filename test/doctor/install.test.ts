import { expect } from "chai";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DoctorReportSchema } from "../../src/schema/doctor.js";
import { group, Sandbox } from "../support/sandbox.js";

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
