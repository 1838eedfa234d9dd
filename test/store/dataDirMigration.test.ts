import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { legacyDataDir, localDataDir } from "../../src/core/dataDir.js";
import { settleDataDir, settleDataDirOnce } from "../../src/store/dataDirMigration.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson } from "./storeHelpers.js";

/** qhooks' own folder is ~/.qhooks whatever the host; an older ~/.qoder-cn/qhooks is moved there, never forked. */
describe("qhooks' own data folder (~/.qhooks) and the move from ~/.qoder-cn/qhooks", () => {
  let sb: Sandbox;
  const unset = { QHOOKS_DB: undefined };
  beforeEach(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "exit 0")] } });
  });
  afterEach(() => sb.cleanup());

  it("names ~/.qhooks, and the old folder under ~/.qoder-cn", () => {
    expect(localDataDir("/h")).to.equal("/h/.qhooks");
    expect(legacyDataDir("/h")).to.equal("/h/.qoder-cn/qhooks");
  });

  it("fresh HOME: nothing to move; a first event goes to ~/.qhooks and no ~/.qoder-cn is made", async () => {
    expect(settleDataDir(sb.home)).to.deep.equal({ kind: "fresh" });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "fresh" }), [], unset);
    expect(r.code, r.stderr).to.equal(0);
    expect(existsSync(join(sb.home, ".qhooks", "events.db"))).to.equal(true);
    expect(existsSync(join(sb.home, ".qoder-cn", "qhooks"))).to.equal(false);
    expect(settleDataDir(sb.home)).to.deep.equal({ kind: "current" });
  });

  it("old folder only: the first command moves it whole, log and trust store, and reads the old log", async () => {
    const old = legacyDataDir(sb.home);
    const first = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "old" }), [], unset);
    expect(first.code, first.stderr).to.equal(0);
    // Put the log where an older qhooks kept it, with a trust store beside it.
    mkdirSync(join(sb.home, ".qoder-cn"), { recursive: true });
    renameSync(localDataDir(sb.home), old);
    writeFileSync(join(old, "trust.json"), JSON.stringify({ version: 1, trusted: [] }));
    const records = await logJson(sb, [], unset);
    expect(records.map((x) => x.sessionId)).to.deep.equal(["old"]);
    expect(existsSync(old)).to.equal(false);
    expect(JSON.parse(readFileSync(join(sb.home, ".qhooks", "trust.json"), "utf8"))).to.deep.equal({ version: 1, trusted: [] });
  });

  it("both folders: ~/.qhooks is used, the old one is left untouched, and one line says so", async () => {
    const old = legacyDataDir(sb.home);
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "events.db"), "an old log");
    mkdirSync(localDataDir(sb.home), { recursive: true });
    const settled = settleDataDir(sb.home);
    expect(settled.kind).to.equal("both");
    const r = await sb.run(["hooks"], { env: unset });
    const lines = r.stderr.split("\n").filter((l) => l.includes(".qoder-cn"));
    expect(lines, r.stderr).to.have.length(1);
    expect(lines[0]).to.match(/^qhooks: warning: .*\.qoder-cn\/qhooks still holds events\.db .*uses .*\.qhooks only/);
    expect(readFileSync(join(old, "events.db"), "utf8")).to.equal("an old log");
  });

  it("both folders: one `qhooks run` says so once, though the CLI and the hook bus each settle the folder", async () => {
    const old = legacyDataDir(sb.home);
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "trust.json"), "{}");
    mkdirSync(localDataDir(sb.home), { recursive: true });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), [], unset);
    const lines = r.stderr.split("\n").filter((l) => l.includes("still holds"));
    expect(lines, r.stderr).to.have.length(1);
  });

  it("both folders: settleDataDirOnce returns the warning the first time in a process, then null", () => {
    const old = legacyDataDir(sb.home);
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "events.db"), "an old log");
    mkdirSync(localDataDir(sb.home), { recursive: true });
    expect(settleDataDirOnce(sb.home)).to.match(/still holds events\.db/);
    expect(settleDataDirOnce(sb.home)).to.equal(null);
    // The folder is still settled each time: the result itself does not change.
    expect(settleDataDir(sb.home).kind).to.equal("both");
  });

  it("both folders, the old one without a log or trust store: nothing to say", () => {
    mkdirSync(join(legacyDataDir(sb.home), "once"), { recursive: true });
    mkdirSync(localDataDir(sb.home), { recursive: true });
    expect(settleDataDir(sb.home)).to.deep.equal({ kind: "current" });
  });

  it("an old folder that cannot be moved is left where it is, with one line", () => {
    const old = legacyDataDir(sb.home);
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "events.db"), "an old log");
    // ~/.qhooks is a dangling link: the rename fails (ENOTDIR), nothing is lost.
    symlinkSync(join(sb.root, "nowhere"), localDataDir(sb.home));
    const settled = settleDataDir(sb.home);
    expect(settled.kind).to.equal("stuck");
    expect("warning" in settled && settled.warning).to.match(/^could not move .*\.qoder-cn\/qhooks to .*\.qhooks \(ENOTDIR\)/);
    expect(readFileSync(join(old, "events.db"), "utf8")).to.equal("an old log");
  });
});
