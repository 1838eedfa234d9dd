import { expect } from "chai";
import { chmodSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { discoverSettings, sharedHooksSource } from "../../src/settings/settingsSources.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

const gemini = (name: string): string => readFileSync(join(REPO_ROOT, "test", "fixtures", "hosts", "gemini", name), "utf8");

/** ~/.qhooks/hooks.json: one guard, written once in qhooks' own shape, run for every host's events. */
describe("the user's shared hooks file (~/.qhooks/hooks.json)", () => {
  let sb: Sandbox;
  let guard: string;
  beforeEach(() => {
    sb = new Sandbox();
    guard = join(sb.home, ".qhooks", "guards", "no-rm-rf.sh");
    sb.file(guard, `#!/bin/sh\nif grep -q 'rm -rf'; then echo 'rm -rf is not allowed' >&2; exit 2; fi\nexit 0\n`);
    chmodSync(guard, 0o755);
    // Each host names its shell tool its own way: the matcher names both.
    sb.file(sharedHooksSource(sb.home).path, {
      hooks: { PreToolUse: [{ matcher: "Bash|run_shell_command", hooks: [{ type: "command", command: guard, timeout: 10 }] }] },
    });
  });
  afterEach(() => sb.cleanup());

  it("is no level at all while it does not exist (the logged configuration stays as it was)", () => {
    rmSync(sharedHooksSource(sb.home).path);
    expect(discoverSettings(sb.home, sb.project, "claude").map((s) => s.display)).to.not.include("~/.qhooks/hooks.json");
  });

  it("is read first, at the user level, before every host's own files", () => {
    for (const host of ["qoder", "claude", "gemini", "codex", "cursor"] as const) {
      const sources = discoverSettings(sb.home, sb.project, host);
      expect(sources[0], host).to.deep.equal({ level: "user", path: join(sb.home, ".qhooks", "hooks.json"), display: "~/.qhooks/hooks.json" });
      expect(sources.length, host).to.be.greaterThan(1);
    }
    const snapshot = loadSettings(discoverSettings(sb.home, sb.project, "gemini"));
    expect(snapshot.hooks.map((h) => [h.event, h.level, h.file])).to.deep.equal([["PreToolUse", "user", "~/.qhooks/hooks.json"]]);
  });

  it("blocks a Claude Code PreToolUse Bash event, in Claude Code's answer", async () => {
    const payload = {
      session_id: "c1",
      transcript_path: "/tmp/t.jsonl",
      cwd: sb.project,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf build" },
    };
    const r = await sb.run(["run", "PreToolUse", "--format", "hook", "--dialect", "claude", "--no-log"], {
      input: JSON.stringify(payload),
      env: { CLAUDE_PROJECT_DIR: sb.project },
    });
    expect([r.code, r.stdout, r.stderr.trim()]).to.deep.equal([2, "", "rm -rf is not allowed"]);
  });

  it("blocks a Gemini CLI BeforeTool event with the same guard, in Gemini CLI's answer", async () => {
    const r = await sb.run(["run", "BeforeTool", "--format", "hook", "--dialect", "gemini", "--no-log"], {
      input: gemini("BeforeTool.json"),
      env: {
        GEMINI_PROJECT_DIR: sb.project,
        GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "none1.json"),
        GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "none2.json"),
      },
    });
    expect([r.code, r.stdout, r.stderr.trim()]).to.deep.equal([2, "", "rm -rf is not allowed"]);
  });

  it("a project cannot weaken it: a copy with a shorter timeout is ignored", () => {
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash|run_shell_command", hooks: [{ type: "command", command: guard, timeout: 1 }] }] },
    });
    const snapshot = loadSettings(discoverSettings(sb.home, sb.project, "claude"));
    expect(snapshot.hooks.map((h) => [h.level, h.timeoutMs])).to.deep.equal([["user", 10_000]]);
    expect(snapshot.warnings.join("\n")).to.match(/would weaken your guard ~\/\.qhooks\/hooks\.json/);
  });

  it("qhooks hooks lists it, under each host", async () => {
    for (const host of ["claude", "gemini"]) {
      const r = await sb.run(["hooks", "--dialect", host], {
        env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "n1"), GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "n2") },
      });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout, host).to.include("~/.qhooks/hooks.json");
      expect(r.stdout, host).to.include("no-rm-rf.sh");
    }
  });
});
