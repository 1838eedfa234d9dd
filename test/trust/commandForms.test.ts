import { expect } from "chai";
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";

/**
 * The script behind a wrapper, a redirection or inline code is pinned; a form whose script qhooks cannot know is
 * refused, with one line. Real settings files, real scripts, the real binary.
 */
describe("trust: the script behind wrappers, stdin and inline code is pinned", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const marker = (tag: string) => join(sb.root, `ran-${tag}`);
  const ran = (tag: string) => existsSync(marker(tag));
  const script = (path: string, tag: string) => {
    const abs = join(sb.project, path);
    mkdirSync(join(abs, ".."), { recursive: true });
    writeFileSync(abs, `#!/bin/sh\ntouch '${marker(tag)}'\n`, { mode: 0o755 });
    return abs;
  };
  const run = async () => {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    return { outcome: OutcomeSchema.parse(r.outcome), warnings: warningLines(r.stderr) };
  };
  const trust = () => sb.run(["trust"]);

  const forms: [string, string][] = [
    ["timeout --signal KILL 5 ./x.sh", "x.sh"],
    ["timeout --kill-after 2 5 ./x.sh", "x.sh"],
    ["env --unset FOO ./x.sh", "x.sh"],
    ["sh < hooks/x.sh", "hooks/x.sh"],
    ["bash --rcfile hooks/rc.sh hooks/x.sh", "hooks/x.sh"],
    ["bash --rcfile hooks/x.sh hooks/main.sh", "hooks/x.sh"],
    ["cat hooks/x.sh | sh", "hooks/x.sh"],
    ["sh -c 'cd hooks && ./x.sh'", "hooks/x.sh"],
  ];

  it("an edit to the script behind each recognised form untrusts its hook", async () => {
    sb.userSettings({ qhooks: { requireTrust: true } });
    // Each form names its own copy of the script, so that an edit to one untrusts that hook only.
    const scripts = forms.map(([, path], i) => script(path === "hooks/x.sh" ? `hooks/x${i}.sh` : `x${i}.sh`, `f${i}`));
    sb.projectSettings({
      hooks: { PreToolUse: [group("Bash", ...forms.map(([command], i) => `cat > /dev/null; ${command.replaceAll("x.sh", `x${i}.sh`)}`))] },
    });
    script("hooks/rc.sh", "rc");
    script("hooks/main.sh", "main");
    const t = await trust();
    expect(t.code, t.stdout + t.stderr).to.equal(0);
    for (const abs of scripts) expect(t.stdout).to.contain(`pins:  ${abs}`);

    let o = await run();
    expect(o.outcome.skipped).to.deep.equal([]);
    for (const abs of scripts) appendFileSync(abs, `touch '${abs}.edited-ran'\n`);
    o = await run();
    expect(o.outcome.skipped.map((s) => s.reason)).to.deep.equal(forms.map(() => "untrusted"));
    expect(scripts.filter((abs) => existsSync(`${abs}.edited-ran`))).to.deep.equal([]);
  });

  it("a form whose script only the shell knows is refused under requireTrust, with one line; qhooks trust says why", async () => {
    sb.userSettings({ qhooks: { requireTrust: true } });
    script("hooks/x.sh", "x");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", 'cat > /dev/null; sh "$(dirname "$CLAUDE_PROJECT_DIR/hooks/x.sh")/x.sh"')] } });
    const t = await trust();
    expect(t.code).to.equal(1);
    expect(t.stdout).to.contain("cannot be trusted: it runs a sh script whose path only the shell knows at run time");
    const o = await run();
    expect(ran("x")).to.equal(false);
    expect(o.outcome.skipped.map((s) => s.reason)).to.deep.equal(["untrusted"]);
    expect(o.warnings).to.have.length(1);
    expect(o.warnings[0]).to.contain("did not run: cannot be trusted: it runs a sh script whose path only the shell knows at run time");

    // With trust off, it runs as before.
    sb.userSettings({});
    await run();
    expect(ran("x")).to.equal(true);
  });
});
