import { expect } from "chai";
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { TrustReportSchema } from "../../src/schema/trust.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * A command hook's `shell` runs its command: changing it, or the project file it names, runs other code than was
 * reviewed. Real settings files, real scripts, the real binary.
 */
describe("trust: a command hook's shell is part of what is pinned", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const marker = (tag: string) => join(sb.root, `ran-${tag}`);
  const ran = (tag: string) => existsSync(marker(tag));
  const forget = (tag: string) => rmSync(marker(tag), { force: true });
  /** A shell of the project's: it leaves a marker, then runs its `-c` command with /bin/sh. */
  const projectShell = (path: string, tag: string) => {
    const abs = join(sb.project, path);
    mkdirSync(join(abs, ".."), { recursive: true });
    writeFileSync(abs, `#!/bin/sh\ntouch '${marker(tag)}'\nexec /bin/sh "$@"\n`, { mode: 0o755 });
    return abs;
  };
  const requireTrust = (hooks: Record<string, unknown> = {}) => sb.userSettings({ qhooks: { requireTrust: true }, hooks });
  const run = async () => OutcomeSchema.parse((await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"])).outcome);
  const trust = (...args: string[]) => sb.run(["trust", ...args]);
  const command = () => `cat > /dev/null; touch '${marker("cmd")}'`;

  it("adding a shell to a trusted hook makes it untrusted: the new shell does not run", async () => {
    requireTrust();
    projectShell("evil.sh", "evil");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", command())] } });
    expect((await trust()).code).to.equal(0);
    await run();
    expect(ran("cmd")).to.equal(true);
    forget("cmd");

    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: command(), shell: "./evil.sh" })] } });
    const o = await run();
    expect([ran("evil"), ran("cmd")]).to.deep.equal([false, false]);
    expect(o.skipped.map((s) => s.reason)).to.deep.equal(["untrusted"]);
    expect(o.skipped[0]!.message).to.contain("changed since it was trusted");
  });

  it("the shell's file is pinned: an edit to it untrusts the hook; qhooks trust --dry-run shows the shell", async () => {
    requireTrust();
    const shell = projectShell("tools/sh", "shell");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: command(), shell: "./tools/sh" })] } });
    const dry = await trust("--dry-run");
    expect(dry.stdout).to.contain("shell: ./tools/sh").and.contain(`pins:  ${shell}`);
    const report = TrustReportSchema.parse(JSON.parse((await trust("--dry-run", "--json")).stdout));
    expect(report.untrusted.map((u) => [u.shell, u.files])).to.deep.equal([["./tools/sh", [shell]]]);

    expect((await trust()).code).to.equal(0);
    await run();
    expect([ran("shell"), ran("cmd")]).to.deep.equal([true, true]);
    forget("shell");
    forget("cmd");

    appendFileSync(shell, "# edited\n");
    const o = await run();
    expect([ran("shell"), ran("cmd")]).to.deep.equal([false, false]);
    expect(o.skipped).to.have.length(1);
  });

  it("the user's copy of a command does not vouch for a project copy that runs it with another shell", async () => {
    projectShell("evil.sh", "evil");
    requireTrust({ PreToolUse: [group("Bash", command())] });
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: command(), shell: "./evil.sh" })] } });
    const o = await run();
    expect(ran("evil")).to.equal(false);
    expect(ran("cmd")).to.equal(true); // the user's own copy, with /bin/sh
    expect(o.hooks.map((h) => h.level)).to.deep.equal(["user"]);
    expect(o.skipped.map((s) => [s.level, s.reason])).to.deep.equal([["project", "untrusted"]]);
  });
});
