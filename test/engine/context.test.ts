import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineContext } from "../../src/engine/context.js";
import { nullEventLog } from "../../src/store/eventLog.js";

/** The composition root: one place turns an engine's options into its settings plan, limits, trust and pipeline. */
describe("engine: the composition root (engineContext)", () => {
  let dir: string;
  let home: string;
  let project: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "qhooks-context-"));
    home = join(dir, "home");
    project = join(dir, "project");
    mkdirSync(join(home, ".qoder-cn"), { recursive: true });
    mkdirSync(join(project, ".qoder"), { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const hooks = (command: string) => JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command }] }] } });

  it("discovers the three levels without settings files, and reads them fresh at each load()", () => {
    writeFileSync(join(home, ".qoder-cn", "settings.json"), hooks("echo user"));
    writeFileSync(join(project, ".qoder", "settings.json"), hooks("echo project"));
    const engine = engineContext({ homeDir: home, projectDir: project, env: {}, baseDir: dir, settingsFiles: [] });
    expect(engine.sources.map((s) => s.level)).to.deep.equal(["user", "project", "local"]);
    const first = engine.load();
    expect(first.hooks.map((h) => h.command)).to.deep.equal(["echo user", "echo project"]);
    writeFileSync(join(project, ".qoder", "settings.json"), hooks("echo changed"));
    const second = engine.load();
    expect(second.hash).not.to.equal(first.hash);
    expect(second.hooks.map((h) => h.command)).to.deep.equal(["echo user", "echo changed"]);
  });

  it("settings files and plugins are read from baseDir, and named in the command that trusts them", () => {
    writeFileSync(join(dir, "guards.json"), hooks("echo guard"));
    const engine = engineContext({
      homeDir: home,
      projectDir: project,
      env: {},
      dialect: "claude",
      baseDir: dir,
      settingsFiles: ["guards.json"],
      plugins: ["kit"],
    });
    expect(engine.sources.map((s) => s.path)).to.deep.equal([join(dir, "guards.json")]);
    expect(engine.plugins.folders).to.deep.equal([join(dir, "kit")]);
    expect(engine.trustCommand).to.equal(
      `qhooks trust --project-dir ${project} --dialect claude --settings ${join(dir, "guards.json")} --plugin ${join(dir, "kit")}`,
    );
  });

  it("the pipeline of every stream gets the engine's limits and its one trust policy", () => {
    const env = { QHOOKS_MAX_OUTPUT: "123", QHOOKS_MAX_EVENT_OUTPUT: "456", QHOOKS_STOP_BLOCK_CAP: "3" };
    const engine = engineContext({ homeDir: home, projectDir: project, env, baseDir: dir });
    const snapshot = engine.load();
    const live = engine.pipeline({ log: nullEventLog, source: "dispatch", snapshot: () => snapshot });
    const replay = engine.pipeline({ log: nullEventLog, source: "replay", replay: true, snapshot: () => snapshot, callChain: ["x"] });
    expect(live).to.include({
      projectDir: project,
      homeDir: home,
      baseEnv: env,
      maxOutputBytes: 123,
      maxEventOutputBytes: 456,
      stopBlockCap: 3,
      replay: false,
      source: "dispatch",
    });
    expect(live.callChain).to.deep.equal([]);
    expect(replay).to.include({ replay: true, source: "replay" });
    expect(replay.callChain).to.deep.equal(["x"]);
    expect(live.trust).to.equal(engine.trust).and.to.equal(replay.trust);
  });

  it("a limit the environment gets wrong is a warning, and its default applies", () => {
    const engine = engineContext({ homeDir: home, projectDir: project, env: { QHOOKS_MAX_OUTPUT: "lots" }, baseDir: dir });
    expect(engine.limits.warnings).to.deep.equal(["QHOOKS_MAX_OUTPUT=lots is not a whole number >= 0; using 1048576"]);
    expect(engine.limits.maxOutputBytes).to.equal(1048576);
  });
});
