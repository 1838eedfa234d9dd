import { expect } from "chai";
import { join } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { GUARDED_VARIABLES, guardEnvironment, projectEnvOverrides, projectEnvText, readEnvBlocks } from "../../src/settings/projectEnv.js";

/**
 * A project's settings `env` block reaches qhooks through the host: the QHOOKS_* variables that weaken guards are
 * ignored when a project's file sets them and the user's own does not set the same.
 */
describe("settings: qhooks variables a project's env block sets", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const guard = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo no >&2; exit 2", name: "guard" }] }] };
  const claudeFile = (level: "user" | "project", doc: Record<string, unknown>) =>
    sb.file(level === "user" ? join(sb.home, ".claude", "settings.json") : join(sb.project, ".claude", "settings.json"), doc);

  it("QHOOKS_DISABLE=1 from the project's env block is ignored with a warning kept in the log: the user's guard blocks", async () => {
    sb.userSettings({ hooks: guard });
    claudeFile("project", { env: { QHOOKS_DISABLE: "1" } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), [], { QHOOKS_DISABLE: "1" });
    expect(r.code, r.stderr).to.equal(2);
    const line = ".claude/settings.json: env.QHOOKS_DISABLE: ignored: a project's settings cannot set QHOOKS_DISABLE for qhooks";
    expect(r.stderr).to.include(line);
    const shown = await sb.run(["show", String(r.outcome?.seq), "--json"]);
    expect(shown.stdout).to.include("env.QHOOKS_DISABLE: ignored");
  });

  it("the same variable set by the user's own env block (or not by the project) is honoured", async () => {
    sb.userSettings({ hooks: guard });
    claudeFile("project", { env: { QHOOKS_DISABLE: "1" } });
    claudeFile("user", { env: { QHOOKS_DISABLE: "1" } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), [], { QHOOKS_DISABLE: "1" });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.not.include("env.QHOOKS_DISABLE: ignored");
  });

  it("other commands say the warning too (qhooks hooks)", async () => {
    sb.projectSettings({ env: { QHOOKS_DB: join(sb.project, "elsewhere.db") } });
    const r = await sb.run(["hooks"], { env: { QHOOKS_DB: join(sb.project, "elsewhere.db") } });
    expect(r.stderr).to.include(".qoder/settings.json: env.QHOOKS_DB: ignored");
  });

  it("projectEnvOverrides: only guarded variables whose value a project set and the user did not", () => {
    const blocks = [
      { file: ".qoder/settings.json", own: false, env: { QHOOKS_DB: "/tmp/x", QHOOKS_STOP_BLOCK_CAP: "0", PATH: "/evil" } },
      { file: "~/.qoder-cn/settings.json", own: true, env: { QHOOKS_STOP_BLOCK_CAP: "0" } },
    ];
    const env = { QHOOKS_DB: "/tmp/x", QHOOKS_STOP_BLOCK_CAP: "0", PATH: "/evil", QHOOKS_DIALECT: "claude" };
    const found = projectEnvOverrides(env, blocks);
    expect(found).to.deep.equal([{ kind: "project-env", variable: "QHOOKS_DB", file: ".qoder/settings.json" }]);
    expect(projectEnvText(found[0]!)).to.match(/^\.qoder\/settings\.json: env\.QHOOKS_DB: ignored: /);
    // A different value than the project's did not come from it.
    expect(projectEnvOverrides({ QHOOKS_DB: "/tmp/y" }, blocks)).to.deep.equal([]);
    expect(GUARDED_VARIABLES).to.include("QHOOKS_DISABLE");
  });

  it("readEnvBlocks and guardEnvironment: every host's levels; a broken file has none; nothing read when no variable is set", () => {
    sb.projectSettings({ env: { QHOOKS_TEST: "1" } });
    sb.file(join(sb.project, ".claude", "settings.local.json"), "{ not json");
    const blocks = readEnvBlocks(sb.home, sb.project);
    expect(blocks).to.deep.equal([{ file: ".qoder/settings.json", own: false, env: { QHOOKS_TEST: "1" } }]);
    const guarded = guardEnvironment({ QHOOKS_TEST: "1", HOME: sb.home }, sb.home, sb.project);
    expect(guarded.env).to.deep.equal({ HOME: sb.home });
    expect(guarded.ignored.map((o) => o.variable)).to.deep.equal(["QHOOKS_TEST"]);
    const untouched = { HOME: sb.home };
    expect(guardEnvironment(untouched, sb.home, sb.project).env).to.equal(untouched);
  });
});
