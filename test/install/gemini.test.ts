import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";
import { sh } from "../support/shell.js";

/** Every file under `dir` with its bytes, for "nothing was written". */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, "base64"));
    }
  };
  walk(dir);
  return files;
}

describe("install: the qhooks recorder in front of Gemini CLI, and out again", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const env = () => ({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "etc", "d.json"), GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "etc", "s.json") });
  const run = (args: string[]) => sb.run(args, { env: env() });
  const userFile = () => join(sb.home, ".gemini", "settings.json");
  // The user's file as a person writes it: their spacing, other settings, a hook of their own in milliseconds.
  const userText = `{
  "general": {"vimMode": true},
  "hooksConfig": {"enabled": true},
  "hooks": {
    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "true", "timeout": 900000}]}]
  }
}
`;

  it("--dry-run writes nothing; install adds a recorder per event under Gemini CLI's names, in milliseconds; an event is logged; uninstall restores every byte", async () => {
    sb.file(userFile(), userText);
    const before = tree(sb.root);
    const dry = await run(["install", "gemini", "--dry-run"]);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include('"AfterAgent"').and.include("dry run: nothing was written");
    expect(tree(sb.root)).to.deep.equal(before);

    const installed = await run(["install", "gemini"]);
    expect(installed.code, installed.stderr).to.equal(0);
    expect(installed.stdout).to.include("Gemini CLI still runs your system-defaults, user, project, system hooks itself");
    const text = readFileSync(userFile(), "utf8");
    expect(text.startsWith('{\n  "general": {"vimMode": true},\n  "hooksConfig": {"enabled": true},')).to.equal(true);
    const hooks = (JSON.parse(text) as { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> }).hooks;
    expect(Object.keys(hooks)).to.deep.equal([
      "BeforeTool",
      "AfterTool",
      "BeforeAgent",
      "AfterAgent",
      "SessionStart",
      "SessionEnd",
      "PreCompress",
      "Notification",
    ]);
    const recorder = hooks.BeforeTool![1]!.hooks[0]!;
    expect(recorder.command).to.match(/qhooks\.cjs record BeforeTool --dialect gemini$/);
    expect(recorder.timeout).to.equal(60_000);

    // The user's hook and qhooks' recorder, as Gemini CLI loads them: the user's first, its timeout read in milliseconds.
    const listed = JSON.parse((await run(["hooks", "--dialect", "gemini", "--json"])).stdout) as {
      hooks: { event: string; command: string; timeoutSeconds: number }[];
    };
    expect(listed.hooks.filter((h) => h.event === "PreToolUse").map((h) => [h.command === "true", h.timeoutSeconds])).to.deep.equal([
      [true, 900],
      [false, 60],
    ]);

    const payload = readFileSync(join(REPO_ROOT, "test", "fixtures", "hosts", "gemini", "BeforeTool.json"), "utf8");
    const recorded = await sh(recorder.command, payload, sb.project, sb.env({ PATH: "/usr/bin:/bin", ...env() }));
    expect(recorded.code, recorded.stderr).to.equal(0);
    const log = (await run(["log", "--json"])).stdout;
    expect(log).to.include('"event": "PreToolUse"').and.include('"decision": "recorded"');

    const removed = await run(["uninstall", "gemini"]);
    expect(removed.stdout).to.include("byte for byte");
    expect(readFileSync(userFile(), "utf8")).to.equal(userText);
    expect((await run(["install", "--status"])).stdout).to.include("Gemini CLI, user: not installed");
  });

  it("Gemini CLI has no managed settings: --scope managed is one clear line", async () => {
    const r = await run(["install", "gemini", "--scope", "managed"]);
    expect([r.code, r.stderr]).to.deep.equal([1, "qhooks: Gemini CLI has no managed settings; use --scope user\n"]);
  });
});
