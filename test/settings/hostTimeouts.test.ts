import { expect } from "chai";
import { join } from "node:path";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { planSettings } from "../../src/settings/settingsPlan.js";
import { Sandbox } from "../support/sandbox.js";

/**
 * A hook without `timeout` gets its host's default for its type and event: under Claude Code, a 2-minute Stop hook
 * that works there must not be killed at 60 s by qhooks (and fail open).
 */
describe("settings: timeouts default to the host's", function () {
  this.timeout(20_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const hooks = {
    Stop: [{ hooks: [{ type: "command", command: "./long-check.sh" }] }],
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          { type: "command", command: "./set.sh", timeout: 5 },
          { type: "prompt", prompt: "is $ARGUMENTS safe?" },
          { type: "agent", prompt: "check $ARGUMENTS" },
          { type: "http", url: "http://127.0.0.1:9/hook" },
        ],
      },
    ],
    UserPromptSubmit: [{ hooks: [{ type: "command", command: "./prompt-check.sh" }] }],
  };
  const timeouts = (dialect: "claude" | "qoder") => {
    const plan = planSettings({ homeDir: sb.home, projectDir: sb.project, dialect, baseDir: sb.project });
    return loadSettings(plan.sources, plan.plugins).hooks.map((h) => [h.event, h.command.split(" ")[0], h.timeoutMs / 1000, h.timeoutSetting]);
  };

  it("claude: 600 s for command and http hooks, 30 s for prompt, 60 s for agent, 30 s on UserPromptSubmit; a set timeout stands", () => {
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks });
    expect(timeouts("claude")).to.deep.equal([
      ["Stop", "./long-check.sh", 600, "host-default"],
      ["PreToolUse", "./set.sh", 5, "settings"],
      ["PreToolUse", "prompt:", 30, "host-default"],
      ["PreToolUse", "agent:", 60, "host-default"],
      ["PreToolUse", "POST", 600, "host-default"],
      ["UserPromptSubmit", "./prompt-check.sh", 30, "host-default"],
    ]);
  });

  it("qoder: the one default of 60 s", () => {
    sb.userSettings({ hooks });
    expect(timeouts("qoder").map((t) => t[2])).to.deep.equal([60, 5, 60, 60, 60, 60]);
  });

  it("claude: --settings files and plugins get Claude Code's defaults too", () => {
    const file = sb.file("explicit.json", { hooks: { Stop: [{ hooks: [{ type: "command", command: "./x.sh" }] }] } });
    const plugin = join(sb.root, "plugin");
    sb.file(join(plugin, "hooks", "hooks.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "./p.sh" }] }] } });
    const plan = planSettings({ homeDir: sb.home, projectDir: sb.project, dialect: "claude", settingsFiles: [file], plugins: [plugin], baseDir: sb.root });
    expect(loadSettings(plan.sources, plan.plugins).hooks.map((h) => h.timeoutMs)).to.deep.equal([600_000, 600_000]);
  });

  it("qhooks hooks shows which timeouts are the host's default", async () => {
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks });
    const r = await sb.run(["hooks", "--dialect", "claude", "--event", "PreToolUse"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/\b5s(?! \(default\))/);
    expect(r.stdout).to.include("600s (default)");
    const json = await sb.run(["hooks", "--dialect", "claude", "--json"]);
    const rows = JSON.parse(json.stdout).hooks as { command: string; timeoutSetting: string }[];
    expect(rows.find((h) => h.command === "./set.sh")?.timeoutSetting).to.equal("settings");
    expect(rows.find((h) => h.command === "./long-check.sh")?.timeoutSetting).to.equal("host-default");
  });

  it("the log keeps the host with the configuration: its hash tells the same files under two hosts apart", async () => {
    const file = sb.file("guards.json", { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] } });
    const input = JSON.stringify({ session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    const hashes: Record<string, string> = {};
    for (const dialect of ["claude", "qoder"]) {
      const r = await sb.run(["run", "PreToolUse", "--dialect", dialect, "--settings", file], { input });
      expect(r.code, r.stderr).to.equal(0);
      const seq = JSON.parse(r.stdout).seq as number;
      const shown = await sb.run(["show", String(seq), "--json"]);
      const snapshot = JSON.parse(shown.stdout).snapshot as { dialect?: string; hash: string };
      // The default host is not written: its records stay as they always were.
      expect(snapshot.dialect).to.equal(dialect === "qoder" ? undefined : dialect);
      hashes[dialect] = snapshot.hash;
    }
    expect(hashes.claude).to.not.equal(hashes.qoder);
  });
});
