import { expect } from "chai";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { verifiedRun } from "../../src/trust/verifiedRun.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * Hash what runs: a trusted script swapped between trust's check and the shell's start must not run; the verified
 * copy keeps the script's `$0` (and so `dirname "$0"`). Real settings, scripts and processes.
 */
describe("trust: a trusted hook runs the bytes that were checked", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const marker = (tag: string) => join(sb.root, `ran-${tag}`);
  const waitFor = async (path: string) => {
    for (let i = 0; i < 400 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 25));
    expect(existsSync(path), path).to.equal(true);
  };
  const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith("qhooks-run-"));

  it("a script swapped after the check runs its reviewed version, with $0 and its own folder as written", async () => {
    sb.userSettings({ qhooks: { requireTrust: true } });
    const hooks = join(sb.project, "hooks");
    mkdirSync(hooks, { recursive: true });
    // A sibling the scripts find through dirname "$0".
    writeFileSync(join(hooks, "lib.sh"), `LIB=found\n`);
    const good = (tag: string) => `#!/bin/sh\n. "$(dirname "$0")/lib.sh"\nprintf '%s %s %s' "$0" "$LIB" "$*" > '${marker(tag)}'\n`;
    writeFileSync(join(hooks, "x.sh"), good("x"), { mode: 0o755 });
    writeFileSync(join(hooks, "y.sh"), good("y"), { mode: 0o644 });
    const evil = `#!/bin/sh\ntouch '${marker("evil")}'\n`;
    // The command waits, after trust's check, until the test has swapped both scripts.
    const wait = `cat > /dev/null; touch '${marker("waiting")}'; while [ ! -e '${marker("swapped")}' ]; do sleep 0.05; done`;
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `${wait}; ./hooks/x.sh a b && bash "$CLAUDE_PROJECT_DIR"/hooks/y.sh c`)] } });
    expect((await sb.run(["trust"])).code).to.equal(0);

    const before = leftovers();
    const running = sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    await waitFor(marker("waiting"));
    for (const name of ["x.sh", "y.sh"]) {
      writeFileSync(join(hooks, `${name}.new`), evil, { mode: 0o755 });
      renameSync(join(hooks, `${name}.new`), join(hooks, name));
    }
    writeFileSync(marker("swapped"), "");
    const r = await running;
    const outcome = OutcomeSchema.parse(r.outcome);
    expect(
      outcome.hooks.map((h) => h.exitCode),
      r.stderr,
    ).to.deep.equal([0]);
    expect(existsSync(marker("evil"))).to.equal(false);
    expect(readFileSync(marker("x"), "utf8")).to.equal("./hooks/x.sh found a b");
    expect(readFileSync(marker("y"), "utf8")).to.equal(`${join(sb.project, "hooks", "y.sh")} found c`);
    // The private copies are unlinked before the hook starts.
    expect(leftovers()).to.deep.equal(before);

    // The swapped scripts are not trusted at the next call.
    const next = OutcomeSchema.parse((await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"])).outcome);
    expect(next.skipped.map((s) => s.reason)).to.deep.equal(["untrusted"]);
  });

  it("verifiedRun refuses a script whose bytes differ from the hash trusted, and rewrites only shell scripts", () => {
    const dir = join(sb.root, "v");
    mkdirSync(dir);
    const sh = join(dir, "a.sh");
    const py = join(dir, "b.py");
    writeFileSync(sh, "#!/usr/bin/env bash\necho a\n", { mode: 0o755 });
    writeFileSync(py, "#!/usr/bin/env python3\nprint(1)\n");
    const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
    const command = `./v/a.sh 1; ./v/b.py`;
    const sites = [
      { path: sh, kind: "program" as const, start: 0, end: 8, sha256: sha(sh) },
      { path: py, kind: "program" as const, start: 12, end: 20, sha256: sha(py) },
    ];
    const ok = verifiedRun(command, sites, "/bin/sh");
    expect(ok.ok).to.equal(true);
    if (ok.ok) {
      expect(ok.command).to.equal(`/usr/bin/env bash -c '. /dev/fd/3' ./v/a.sh 1; ./v/b.py`);
      expect(ok.fds).to.have.length(1);
      ok.release();
    }
    writeFileSync(py, "#!/usr/bin/env python3\nprint(2)\n");
    const refused = verifiedRun(command, sites, "/bin/sh");
    expect(refused).to.deep.equal({ ok: false, message: `not run: ${py} changed after trust checked it (a file it runs must be the one trusted)` });
  });
});
