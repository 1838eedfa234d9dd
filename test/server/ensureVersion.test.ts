import { expect } from "chai";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

/**
 * `serve --ensure` against a running server of another qhooks version: a copy of this build whose package.json says
 * another version, started as the user's server, then the real CLI's --ensure.
 */
describe("qhooks serve --ensure and the running server's version", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    await sb.run(["serve", "--stop"]);
    await sb.cleanup();
  });

  /** This build as qhooks `version`: its bin folder, a package.json, the dependencies. */
  function buildAs(version: string): string {
    const root = join(sb.root, `qhooks-${version}`);
    mkdirSync(join(root, "dist"), { recursive: true });
    cpSync(join(REPO_ROOT, "dist", "bin"), join(root, "dist", "bin"), { recursive: true, filter: (f) => !f.endsWith(".cache") });
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "qhooks", version }));
    symlinkSync(join(REPO_ROOT, "node_modules"), join(root, "node_modules"));
    return join(root, "dist", "bin", "qhooks.cjs");
  }

  function ensureWith(cli: string): Promise<{ code: number | null; stdout: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, "serve", "--ensure", "--json"], { cwd: sb.project, env: sb.env(), stdio: ["ignore", "pipe", "ignore"] });
      let stdout = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout }));
    });
  }

  it("restarts a server of an older version on the same port, and says so (the order itself: test/text/semver.test.ts)", async () => {
    const old = await ensureWith(buildAs("0.9.0"));
    expect(old.code).to.equal(0);
    const before = JSON.parse(old.stdout) as { pid: number; url: string; version: string };
    expect(before.version).to.equal("0.9.0");

    const again = await sb.run(["serve", "--ensure"]);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(/^qhooks serve: restarted on http:\/\/127\.0\.0\.1:\d+ \(pid \d+\): it ran qhooks 0\.9\.0, this is /);
    const status = JSON.parse((await sb.run(["serve", "--status", "--json"])).stdout) as { pid: number; url: string; version: string };
    expect(status.pid).to.not.equal(before.pid);
    expect(status.url, "where installed entries call").to.equal(before.url);
    expect(status.version).to.not.equal("0.9.0");
    rmSync(join(sb.root, "qhooks-0.9.0"), { recursive: true });
  });

  it("leaves a server of a newer version running, with a note", async () => {
    const newer = JSON.parse((await ensureWith(buildAs("10.10.0"))).stdout) as { pid: number };
    const again = await sb.run(["serve", "--ensure", "--json"]);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.include({ pid: newer.pid, started: false, replaced: null, version: "10.10.0" });
    expect(again.stderr).to.match(/note: the server runs qhooks 10\.10\.0, this is .*; left running/);
  });
});
