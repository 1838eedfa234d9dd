import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { until, warningLines } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Plugins in Claude Code's layout: a folder with `.claude-plugin/plugin.json` (optional) and `hooks/hooks.json`.
 * Their hooks run with CLAUDE_PLUGIN_ROOT (and CLAUDE_PLUGIN_DATA) set, `${CLAUDE_PLUGIN_ROOT}` filled in.
 */
describe("settings: plugins", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /**
   * A guard plugin in the shape of Anthropic's hookify: `python3 ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py` denies
   * `rm -rf` in JSON and writes down the CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA it saw. A second, shell hook is
   * written the way some plugins quote it ('${CLAUDE_PLUGIN_ROOT}/...' in single quotes, which no shell expands).
   */
  function guardPlugin(folder: string, manifest: Json | null = { name: "guard-kit", version: "0.1.0" }): string {
    const root = join(sb.root, folder);
    if (manifest !== null) sb.file(join(root, ".claude-plugin", "plugin.json"), manifest);
    sb.file(join(root, "hooks", "hooks.json"), {
      description: "Guard kit: refuses recursive deletes",
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py", timeout: 10 },
              { type: "command", command: "'${CLAUDE_PLUGIN_ROOT}/hooks/audit.sh'" },
            ],
          },
        ],
      },
    });
    sb.file(
      join(root, "hooks", "pretooluse.py"),
      `import json, os, sys
payload = json.load(sys.stdin)
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(here, "seen-by-python"), "w") as f:
    f.write(os.environ.get("CLAUDE_PLUGIN_ROOT", "") + "\\n" + os.environ.get("CLAUDE_PLUGIN_DATA", ""))
if "rm -rf" in payload.get("tool_input", {}).get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                      "permissionDecisionReason": "guard-kit: recursive deletes are not allowed"}}))
`,
    );
    sb.file(join(root, "hooks", "audit.sh"), `#!/bin/sh\ncat > /dev/null\necho "$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PLUGIN_ROOT/seen-by-sh"\n`, 0o755);
    return root;
  }
  const rmPayload = () => payloadFor("PreToolUse", { tool_input: { command: "rm -rf build" } });

  it("--plugin DIR: its hooks run with CLAUDE_PLUGIN_ROOT set and ${CLAUDE_PLUGIN_ROOT} filled in, even in single quotes", async () => {
    const root = guardPlugin("plugins/guard-kit");
    const r = await sb.runEvent("PreToolUse", rmPayload(), ["--plugin", root]);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.include("guard-kit: recursive deletes are not allowed");
    expect(r.outcome).to.include({ decision: "deny", blocked: true });
    const hooks = r.outcome!.hooks as Json[];
    expect(hooks.map((h) => [h.name, h.command, h.level, h.outcome])).to.deep.equal([
      ["guard-kit: pretooluse.py", `python3 ${root}/hooks/pretooluse.py`, "plugin", "block"],
      ["guard-kit: audit.sh", `'${root}/hooks/audit.sh'`, "plugin", "success"],
    ]);
    const dataDir = join(sb.home, ".claude", "plugins", "data", "guard-kit-inline");
    expect(readFileSync(join(root, "seen-by-python"), "utf8")).to.equal(`${root}\n${dataDir}`);
    expect(readFileSync(join(root, "seen-by-sh"), "utf8")).to.equal(`${root}\n`);
    // A harmless command goes through.
    const ls = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--plugin", root]);
    expect(ls.code, ls.stderr).to.equal(0);
    expect(ls.outcome).to.include({ decision: "none" });
  });

  it("--plugin is repeatable, relative to the working directory, and adds to the settings files' hooks", async () => {
    guardPlugin("plugins/guard-kit");
    const other = join(sb.root, "plugins", "notes");
    sb.file(join(other, "hooks", "hooks.json"), { hooks: { PreToolUse: [group(undefined, "echo noted")] } });
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo from settings", name: "own" })] } });
    const r = await sb.run(["run", "PreToolUse", "--project-dir", sb.project, "--plugin", "plugins/guard-kit", "--plugin", "plugins/notes", "--no-log"], {
      input: JSON.stringify(payloadFor("PreToolUse")),
      cwd: sb.root,
    });
    expect(r.code, r.stderr).to.equal(0);
    const outcome = JSON.parse(r.stdout) as { hooks: Json[] };
    // Plugins come first (lowest priority), in the order given; the settings files' own hooks after them.
    expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["guard-kit: pretooluse.py", "guard-kit: audit.sh", "notes: echo noted", "own"]);
  });

  it("the library's plugins option, and a plugin folder whose path holds a space (quoted as Claude Code advises)", async () => {
    const root = join(sb.root, "my plugins", "quoted");
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { Stop: [group(undefined, '"${CLAUDE_PLUGIN_ROOT}"/hooks/stop.sh')] } });
    sb.file(join(root, "hooks", "stop.sh"), `#!/bin/sh\necho "keep going: $CLAUDE_PLUGIN_ROOT" >&2\nexit 2\n`, 0o755);
    const bus = sb.bus({ watch: false, plugins: [root] });
    const outcome = await bus.dispatch({ ...payloadFor("Stop"), hook_event_name: "Stop" });
    expect(outcome).to.include({ decision: "block", reason: `keep going: ${root}` });
    expect(bus.settings().document).to.deep.include({
      level: "plugin",
      file: join(root, "hooks", "hooks.json"),
      plugin: "quoted",
      hooks: { Stop: [group(undefined, '"${CLAUDE_PLUGIN_ROOT}"/hooks/stop.sh')] },
    });
  });

  it("${CLAUDE_PLUGIN_ROOT} is filled in as plain text: a folder whose name holds $& or $` runs the right script", async () => {
    const root = join(sb.root, "plugins", "kit$&$`x");
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { Stop: [group(undefined, "'${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh' '${CLAUDE_PLUGIN_DATA}'")] } });
    sb.file(join(root, "hooks", "stop.sh"), `#!/bin/sh\necho "keep going: $0 $1" >&2\nexit 2\n`, 0o755);
    const r = await sb.runEvent("Stop", payloadFor("Stop"), ["--plugin", root, "--no-log"]);
    const dataDir = join(sb.home, ".claude", "plugins", "data", "kit----x-inline");
    expect((r.outcome!.hooks as Json[])[0]!.command).to.equal(`'${root}/hooks/stop.sh' '${dataDir}'`);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.outcome).to.include({ decision: "block", reason: `keep going: ${root}/hooks/stop.sh ${dataDir}` });
  });

  it("qhooks.plugins in a settings file: relative to that file's folder, or ~/", async () => {
    guardPlugin("project/tools/guard-kit");
    const home = guardPlugin("home/.claude/my-plugins/home-kit", { name: "home-kit" });
    sb.projectSettings({ qhooks: { plugins: ["../tools/guard-kit"] } });
    sb.userSettings({ qhooks: { plugins: ["~/.claude/my-plugins/home-kit"] } });
    const r = await sb.runEvent("PreToolUse", rmPayload(), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(2);
    expect((r.outcome!.hooks as Json[]).map((h) => (h.name as string).split(":")[0])).to.deep.equal(["home-kit", "home-kit", "guard-kit", "guard-kit"]);
    expect(readFileSync(join(home, "seen-by-sh"), "utf8")).to.equal(`${home}\n`);
  });

  it("qhooks hooks shows which plugin each hook came from", async () => {
    const root = guardPlugin("plugins/guard-kit");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo own", name: "own" })] } });
    const r = await sb.run(["hooks", "--plugin", root, "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const listed = JSON.parse(r.stdout) as { hooks: Json[]; files: Json[]; warnings: string[] };
    expect(listed.warnings).to.deep.equal([]);
    expect(listed.hooks.map((h) => [h.level, h.plugin, h.file])).to.deep.equal([
      ["plugin", { name: "guard-kit", root }, join(root, "hooks", "hooks.json")],
      ["plugin", { name: "guard-kit", root }, join(root, "hooks", "hooks.json")],
      ["project", null, ".qoder/settings.json"],
    ]);
    expect(listed.files[0]).to.deep.include({ level: "plugin", path: join(root, "hooks", "hooks.json"), state: "loaded" });
    const text = await sb.run(["hooks", "--plugin", root]);
    expect(text.stdout).to.match(/plugin guard-kit/);
  });

  it("a plugin folder without hooks/hooks.json is one clear warning; a missing folder or a file too; the rest applies", async () => {
    const bare = join(sb.root, "plugins", "skills-only");
    mkdirSync(join(bare, "skills"), { recursive: true });
    const file = sb.file("plugins/not-a-folder", "x");
    const missing = join(sb.root, "plugins", "nowhere");
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, { command: "echo own", name: "own" })] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--plugin", bare, "--plugin", file, "--plugin", missing, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal([
      `plugin folder: plugin ${bare}: has no hooks/hooks.json; no hooks from it`,
      `plugin folder: plugin ${file}: is not a folder; no hooks from it`,
      `plugin folder: plugin ${missing}: does not exist; no hooks from it`,
    ]);
    expect((r.outcome!.hooks as Json[]).map((h) => h.name)).to.deep.equal(["own"]);
  });

  it("a plugin's bad entry is a warning naming its hooks file; its good entries still run", async () => {
    const root = join(sb.root, "plugins", "half-broken");
    const hooksFile = sb.file(join(root, "hooks", "hooks.json"), {
      hooks: {
        PreToolUse: [
          {
            hooks: [
              { type: "command", command: "echo fine" },
              { type: "command", timeout: 3 },
            ],
          },
        ],
      },
    });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--plugin", root, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal([
      `${hooksFile}: hooks.PreToolUse[0].hooks[1].command: expected a non-empty command string; this hook is skipped`,
    ]);
    expect((r.outcome!.hooks as Json[]).map((h) => h.name)).to.deep.equal(["half-broken: echo fine"]);
  });

  it("the manifest names the plugin and may add hook files (paths or inline); without a manifest the folder names it", async () => {
    const root = join(sb.root, "plugins", "folder-name");
    sb.file(join(root, ".claude-plugin", "plugin.json"), { name: "manifest-name", hooks: ["./extra/more-hooks.json"] });
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { SessionStart: [group(undefined, "echo default-file")] } });
    sb.file(join(root, "extra", "more-hooks.json"), { hooks: { SessionStart: [group(undefined, "echo extra-file")] } });
    const inline = join(sb.root, "plugins", "inline-kit");
    sb.file(join(inline, ".claude-plugin", "plugin.json"), { name: "inline-kit", hooks: { SessionStart: [group(undefined, "echo inline")] } });
    const plain = join(sb.root, "plugins", "no-manifest");
    sb.file(join(plain, "hooks", "hooks.json"), { hooks: { SessionStart: [group(undefined, "echo plain")] } });
    const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"), ["--plugin", root, "--plugin", inline, "--plugin", plain, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.outcome!.additionalContext).to.deep.equal(["default-file", "extra-file", "inline", "plain"]);
    expect((r.outcome!.hooks as Json[]).map((h) => h.name)).to.deep.equal([
      "manifest-name: echo default-file",
      "manifest-name: echo extra-file",
      "inline-kit: echo inline",
      "no-manifest: echo plain",
    ]);
  });

  it("a broken manifest is one warning; the plugin is named after its folder and its hooks/hooks.json still runs", async () => {
    const broken = join(sb.root, "plugins", "broken-json");
    const manifest = sb.file(join(broken, ".claude-plugin", "plugin.json"), '{ "name": "x", ');
    sb.file(join(broken, "hooks", "hooks.json"), { hooks: { SessionStart: [group(undefined, "echo one")] } });
    const odd = join(sb.root, "plugins", "odd-hooks");
    const oddManifest = sb.file(join(odd, ".claude-plugin", "plugin.json"), { name: "odd", hooks: 5 });
    sb.file(join(odd, "hooks", "hooks.json"), { hooks: { SessionStart: [group(undefined, "echo two")] } });
    const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"), ["--plugin", broken, "--plugin", odd, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    const warnings = warningLines(r.stderr);
    expect(warnings).to.have.length(2);
    expect(warnings[0]).to.match(
      new RegExp(`^${manifest.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON \\(line 1 column \\d+: .*\\); the plugin is named after its folder$`),
    );
    expect(warnings[1]).to.equal(`${oddManifest}: hooks: expected a hook file path, a list of paths, or the hooks inline; the manifest is ignored`);
    expect((r.outcome!.hooks as Json[]).map((h) => h.name)).to.deep.equal(["broken-json: echo one", "odd-hooks: echo two"]);
  });

  it("a manifest that is a FIFO is not opened (it would block): one warning, and the plugin's hooks still run", async () => {
    const root = join(sb.root, "plugins", "fifo");
    mkdirSync(join(root, ".claude-plugin"), { recursive: true });
    execFileSync("mkfifo", [join(root, ".claude-plugin", "plugin.json")]);
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { SessionStart: [group(undefined, "echo fifo-kit")] } });
    const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"), ["--plugin", root, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal([
      `${join(root, ".claude-plugin", "plugin.json")}: cannot be read (not a regular file); the plugin is named after its folder`,
    ]);
    expect(r.outcome!.additionalContext).to.deep.equal(["fifo-kit"]);
  });

  it("the same command in a settings file and in a plugin runs twice (the plugin's copy has its own variables)", async () => {
    const root = join(sb.root, "plugins", "echoer");
    const command = 'echo "root=${CLAUDE_PLUGIN_ROOT:-none}"';
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { UserPromptSubmit: [group(undefined, command)] } });
    sb.projectSettings({ hooks: { UserPromptSubmit: [group(undefined, command)] } });
    const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit"), ["--plugin", root, "--no-log"], { CLAUDE_PLUGIN_ROOT: undefined });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.outcome!.additionalContext).to.deep.equal([`root=${root}`, "root=none"]);
  });

  it("the library bus picks up a plugin's hooks/hooks.json written after it started, and a plugin added to the settings", async () => {
    const root = join(sb.root, "plugins", "late");
    mkdirSync(root, { recursive: true });
    sb.projectSettings({ qhooks: { plugins: [root] } });
    const bus = sb.bus({ watch: true });
    const dispatch = () => bus.dispatch({ ...payloadFor("Stop"), hook_event_name: "Stop" });
    expect((await dispatch()).hooks).to.deep.equal([]);
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { Stop: [group(undefined, "echo late")] } });
    await until(() => bus.settings().hooks.length === 1, "the late plugin's hooks");
    expect((await dispatch()).hooks.map((h) => h.name)).to.deep.equal(["late: echo late"]);

    const second = join(sb.root, "plugins", "second");
    sb.file(join(second, "hooks", "hooks.json"), { hooks: { Stop: [group(undefined, "echo second")] } });
    sb.projectSettings({ qhooks: { plugins: [root, second] } });
    await until(() => bus.settings().hooks.length === 2, "the plugin added to the settings");
    rmSync(join(root, "hooks"), { recursive: true });
    await until(() => bus.settings().hooks.length === 1, "the removed hooks file");
    expect(existsSync(join(second, "hooks", "hooks.json"))).to.equal(true);
  });

  it("bad qhooks.plugins entries are one warning each; the good ones load", async () => {
    guardPlugin("plugins/guard-kit");
    sb.projectSettings({ qhooks: { plugins: ["../../plugins/guard-kit", 7, ""] } });
    const r = await sb.runEvent("PreToolUse", rmPayload(), ["--no-log"]);
    expect(r.code).to.equal(2);
    expect(warningLines(r.stderr)).to.deep.equal([
      ".qoder/settings.json: qhooks.plugins[1]: expected a plugin folder path; ignored",
      ".qoder/settings.json: qhooks.plugins[2]: expected a non-empty string; ignored",
    ]);
  });
});
