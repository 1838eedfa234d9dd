import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/sandbox.js";

describe("cli: qhooks hooks add for hosts with one hook per entry (Cursor, Copilot CLI)", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

  it("Cursor: writes its own shape (version 1, entries under its event name, no groups), and qhooks reads it back as Cursor's", async () => {
    const file = join(sb.home, ".cursor", "hooks.json");
    let r = await sb.run(["hooks", "add", "PreToolUse", "--command", "echo any", "--host", "cursor"]);
    expect(r.code, r.stderr).to.equal(0);
    r = await sb.run(["hooks", "add", "PreToolUse", "--matcher", "Shell", "--timeout", "5", "--command", "echo shell", "--host", "cursor"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(json(file)).to.deep.equal({
      version: 1,
      hooks: { preToolUse: [{ command: "echo any" }, { command: "echo shell", timeout: 5, matcher: "Shell" }] },
    });
    // Added twice: nothing changes.
    const before = readFileSync(file, "utf8");
    r = await sb.run(["hooks", "add", "PreToolUse", "--command", "echo any", "--host", "cursor"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Already in .*hooks\.preToolUse\[0\]/);
    expect(readFileSync(file, "utf8")).to.equal(before);

    const listed = await sb.run(["hooks", "--host", "cursor"]);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(/PreToolUse +user +\* +echo any .*hooks\.preToolUse\[0\]/);
    expect(listed.stdout).to.match(/PreToolUse +user +Shell +echo shell +5s .*hooks\.preToolUse\[1\]/);
    expect(listed.stdout).to.include("Loaded 2 of 2 hooks");
  });

  it("Copilot CLI: writes its own shape (bash, timeoutSec), lists it; a matcher where it reads one, else refused in one line", async () => {
    const file = join(sb.home, ".copilot", "hooks", "hooks.json");
    const r = await sb.run(["hooks", "add", "PreToolUse", "--timeout", "7", "--command", "echo c", "--host", "copilot"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(json(file)).to.deep.equal({ version: 1, hooks: { preToolUse: [{ type: "command", bash: "echo c", timeoutSec: 7 }] } });
    const listed = await sb.run(["hooks", "--host", "copilot"]);
    expect(listed.stdout).to.match(/PreToolUse +user +\* +echo c +7s .*hooks\.preToolUse\[0\]/);

    const before = readFileSync(file, "utf8");
    const refused = await sb.run(["hooks", "add", "Stop", "--matcher", "Bash", "--command", "echo d", "--host", "copilot"]);
    expect(refused.code).to.not.equal(0);
    expect(
      refused.stderr
        .trim()
        .split("\n")
        .filter((l) => l.includes("matcher")),
    ).to.have.length(1);
    expect(refused.stderr).to.match(/Copilot CLI has no matchers on agentStop/);
    expect(refused.stderr).to.not.match(/\n\s+at /);
    expect(readFileSync(file, "utf8")).to.equal(before);
    // Before a tool Copilot CLI reads one, on its own tool names.
    const matched = await sb.run(["hooks", "add", "PreToolUse", "--matcher", "bash", "--command", "echo d", "--host", "copilot"]);
    expect(matched.code, matched.stderr).to.equal(0);
    expect(json(file).hooks.preToolUse[1]).to.deep.equal({ type: "command", bash: "echo d", matcher: "bash" });
  });

  it("refuses what the host's entries cannot say, and a level the host lacks, writing nothing", async () => {
    const shadow = await sb.run(["hooks", "add", "Stop", "--shadow", "--command", "echo s", "--host", "cursor"]);
    expect(shadow.code).to.not.equal(0);
    expect(shadow.stderr).to.match(/no name or mode/);
    const local = await sb.run(["hooks", "add", "Stop", "--level", "local", "--command", "echo s", "--host", "cursor"]);
    expect(local.code).to.not.equal(0);
    expect(local.stderr).to.match(/Cursor has no local level/);
    expect(existsSync(join(sb.home, ".cursor", "hooks.json"))).to.equal(false);
    // Copilot CLI's local files are its JSONC settings and Claude Code's: none is a hooks file qhooks adds to.
    const copilotLocal = await sb.run(["hooks", "add", "Stop", "--level", "local", "--command", "echo s", "--host", "copilot"], { cwd: sb.project });
    expect(copilotLocal.code).to.not.equal(0);
    expect(copilotLocal.stderr).to.match(/Copilot CLI has no local level qhooks adds hooks to/);
    expect(existsSync(join(sb.project, ".github", "copilot", "settings.local.json"))).to.equal(false);
  });
});
