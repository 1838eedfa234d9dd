import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { CLI, Sandbox } from "../support/sandbox.js";

/** `qhooks install --status` over folders it cannot look into: one line each, and every other install still listed. */
describe("install --status: an unreadable install folder is one line, not the end of the listing", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => {
    chmodSync(sb.root, 0o700);
    return sb.cleanup();
  });

  it("a managed folder that is a file, and a damaged record: one line each, then the rest", async () => {
    const notAFolder = sb.file("managed-file", "x");
    const r = await sb.run(["install", "--status"], { env: { QHOOKS_CLAUDE_MANAGED_DIR: notAFolder } });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`Claude Code, managed: cannot tell: ${notAFolder} is not a folder\nClaude Code, user: not installed\n`);
    expect(r.stdout).to.include("Copilot CLI, user: not installed");

    const managed = join(sb.root, "managed");
    const record = sb.file(join(managed, "qhooks-install-claude.json"), "{ damaged");
    const damaged = await sb.run(["install", "--status", "claude"], { env: { QHOOKS_CLAUDE_MANAGED_DIR: managed } });
    expect(damaged.code, damaged.stderr).to.equal(0);
    expect(damaged.stdout).to.equal(
      `Claude Code, managed: cannot tell: ${record} is not a qhooks install record qhooks can read (remove it to forget that install)\nClaude Code, user: not installed\n`,
    );
  });

  it("a managed folder this user may not read (chmod 000): one line naming it, then the rest", async function () {
    const managed = join(sb.root, "managed");
    mkdirSync(managed);
    chmodSync(managed, 0o000);
    const env = sb.env({ QHOOKS_CLAUDE_MANAGED_DIR: managed });
    let result: { status: number | null; stdout: string; stderr: string };
    if (process.getuid?.() === 0) {
      // Root reads every folder: the CLI runs as nobody instead (setpriv, util-linux), over a sandbox it may enter.
      chmodSync(sb.root, 0o755);
      chmodSync(sb.home, 0o755);
      chmodSync(sb.project, 0o755);
      const asNobody = (args: string[]) =>
        spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, CLI, ...args], { cwd: sb.project, env, encoding: "utf8" });
      // No setpriv, or a checkout nobody may read: nothing to learn here.
      if (asNobody(["--version"]).status !== 0) this.skip();
      result = asNobody(["install", "--status", "claude"]);
    } else {
      result = spawnSync(process.execPath, [CLI, "install", "--status", "claude"], { cwd: sb.project, env, encoding: "utf8" });
    }
    chmodSync(managed, 0o755);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(`Claude Code, managed: cannot tell: ${managed} cannot be read (EACCES)\nClaude Code, user: not installed\n`);
  });
});
