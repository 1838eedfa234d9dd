import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/sandbox.js";

interface Listed {
  readonly hooks: { event: string; level: string; file: string; command: string; timeoutSeconds: number }[];
}

describe("host files: the host's own event names and units, hand-removed entries, and the folders the environment moves", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("hooks add --host gemini writes Gemini CLI's event name and milliseconds; run reads it back as that host's", async () => {
    const file = join(sb.home, ".gemini", "settings.json");
    const guard = sb.script("deny.sh", 'echo "no shell here" >&2; exit 2');
    const added = await sb.run(["hooks", "add", "PreToolUse", "--matcher", "run_shell_command", "--timeout", "5", "--command", guard, "--host", "gemini"]);
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout).to.include("hooks.BeforeTool[0].hooks[0]");
    expect(JSON.parse(readFileSync(file, "utf8"))).to.deep.equal({
      hooks: { BeforeTool: [{ matcher: "run_shell_command", hooks: [{ type: "command", command: guard, timeout: 5000 }] }] },
    });
    const listed = JSON.parse((await sb.run(["hooks", "--host", "gemini", "--json"])).stdout) as Listed;
    expect(listed.hooks.map((h) => [h.event, h.timeoutSeconds])).to.deep.equal([["PreToolUse", 5]]);
    const payload = { session_id: "g1", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "ls" } };
    const judged = await sb.run(["run", "BeforeTool", "--format", "hook", "--host", "gemini"], { input: JSON.stringify(payload) });
    expect([judged.code, judged.stdout, judged.stderr]).to.deep.equal([2, "", "no shell here\n"]);
  });

  it("hooks add --host gemini of an event Gemini CLI lacks is one line, and nothing is written", async () => {
    const r = await sb.run(["hooks", "add", "PermissionRequest", "--command", "true", "--host", "gemini"]);
    expect([r.code, r.stdout]).to.deep.equal([1, ""]);
    expect(r.stderr).to.equal("qhooks: Gemini CLI has no PermissionRequest event: nothing was added\n");
    expect(existsSync(join(sb.home, ".gemini"))).to.equal(false);
  });

  for (const host of ["codex", "copilot"] as const) {
    it(`uninstall ${host} after the user took qhooks' entries out by hand leaves the file untouched, in one line`, async () => {
      const installed = await sb.run(["install", host]);
      expect(installed.code, installed.stderr).to.equal(0);
      const file = host === "codex" ? join(sb.home, ".codex", "hooks.json") : join(sb.home, ".copilot", "hooks", "hooks.json");
      // What is left after a person deleted every entry qhooks wrote, in their own spacing: an empty hooks object.
      const mine = host === "codex" ? '{ "hooks": {} }\n' : '{\n    "version": 1,\n    "hooks": {}\n}\n';
      sb.file(file, mine);
      const r = await sb.run(["uninstall", host]);
      expect(r.code, r.stderr).to.equal(0);
      // One line about the file; the other takes back the dialect the install remembered.
      const [about, ...rest] = r.stdout.trim().split("\n");
      expect(rest).to.deep.equal([`Forgot the dialect ${host} install remembered (${join(sb.home, ".qhooks", "config.json")})`]);
      expect(about).to.match(/qhooks' entries are no longer there \(removed by hand\?\); left the file untouched/);
      expect(readFileSync(file, "utf8")).to.equal(mine);
      // The install is forgotten: a second uninstall has nothing to do, and install may start again.
      expect((await sb.run(["uninstall", host])).stdout).to.match(/is not installed for .*; nothing to do/);
      expect((await sb.run(["install", host])).code).to.equal(0);
    });
  }

  it("$COPILOT_HOME moves Copilot CLI's user folder for install, hooks, hooks add and uninstall", async () => {
    const home = join(sb.root, "copilot-home");
    const env = { COPILOT_HOME: home };
    const installed = await sb.run(["install", "copilot"], { env });
    expect(installed.code, installed.stderr).to.equal(0);
    expect(installed.stdout).to.include(`${home}/hooks/hooks.json`);
    expect(existsSync(join(home, "hooks", "hooks.json"))).to.equal(true);
    expect(existsSync(join(sb.home, ".copilot"))).to.equal(false);
    const added = await sb.run(["hooks", "add", "Stop", "--command", "echo done", "--host", "copilot"], { env });
    expect(added.code, added.stderr).to.equal(0);
    const listed = JSON.parse((await sb.run(["hooks", "--host", "copilot", "--json"], { env })).stdout) as Listed;
    expect(listed.hooks.filter((h) => h.command === "echo done").map((h) => [h.event, h.level, h.file])).to.deep.equal([
      ["Stop", "user", `${home}/hooks/hooks.json`],
    ]);
    // Without the variable the same listing reads ~/.copilot, which holds nothing.
    const plain = JSON.parse((await sb.run(["hooks", "--host", "copilot", "--json"])).stdout) as Listed;
    expect(plain.hooks).to.deep.equal([]);
    const removed = await sb.run(["uninstall", "copilot"], { env });
    expect(removed.stdout).to.include("changed since install: removed only qhooks'");
    expect(JSON.parse(readFileSync(join(home, "hooks", "hooks.json"), "utf8"))).to.deep.equal({
      version: 1,
      hooks: { agentStop: [{ type: "command", bash: "echo done" }] },
    });
  });

  it("$CODEX_HOME moves Codex's user file for hooks add and hooks", async () => {
    const home = join(sb.root, "codex-home");
    const added = await sb.run(["hooks", "add", "Stop", "--command", "echo done", "--host", "codex"], { env: { CODEX_HOME: home } });
    expect(added.code, added.stderr).to.equal(0);
    expect(JSON.parse(readFileSync(join(home, "hooks.json"), "utf8"))).to.deep.equal({
      hooks: { Stop: [{ hooks: [{ type: "command", command: "echo done" }] }] },
    });
    const listed = JSON.parse((await sb.run(["hooks", "--host", "codex", "--json"], { env: { CODEX_HOME: home } })).stdout) as Listed;
    expect(listed.hooks.map((h) => [h.event, h.file])).to.deep.equal([["Stop", join(home, "hooks.json")]]);
  });
});
