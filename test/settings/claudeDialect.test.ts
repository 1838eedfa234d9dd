import { expect } from "chai";
import { join } from "node:path";
import { EVENT_NAMES } from "../../src/schema/events.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "./support.js";

type Json = Record<string, unknown>;

/**
 * The claude dialect: Claude Code's own levels (~/.claude/settings.json, .claude/settings.json,
 * .claude/settings.local.json) and the plugins Claude Code has installed and enabled, read in place, so that qhooks
 * can stand in front of an existing Claude Code setup without anyone editing its hooks.
 */
describe("settings: the claude dialect", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const cache = (id: string, version: string) => {
    const [name, marketplace] = id.split("@") as [string, string];
    return join(sb.home, ".claude", "plugins", "cache", marketplace, name, version);
  };

  /** A plugin in Claude Code's cache: a manifest and one hook per event, each printing its plugin's name. */
  function installedPlugin(id: string, version: string, manifest: Json = {}): string {
    const root = cache(id, version);
    const name = id.split("@")[0]!;
    sb.file(join(root, ".claude-plugin", "plugin.json"), { name, version, ...manifest });
    sb.file(join(root, "hooks", "hooks.json"), {
      description: `${name} hooks`,
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'sh "${CLAUDE_PLUGIN_ROOT}"/hooks/guard.sh' }] }],
        SessionStart: [{ hooks: [{ type: "command", command: `echo ${name}` }] }],
      },
    });
    sb.file(join(root, "hooks", "guard.sh"), `if grep -q 'rm -rf'; then echo "${name}: no recursive deletes (from $CLAUDE_PLUGIN_ROOT)" >&2; exit 2; fi\n`);
    return root;
  }

  /** A user's Claude Code setup: three levels, five installed plugins, one of them missing from the disk. */
  function claudeSetup() {
    const guard = installedPlugin("guard-kit@team-tools", "1.2.0");
    const notes = installedPlugin("notes@team-tools", "0.1.0");
    const auto = installedPlugin("autoload@team-tools", "2.0.0");
    const optout = installedPlugin("optout@team-tools", "1.0.0", { defaultEnabled: false });
    const elsewhere = installedPlugin("other-project@team-tools", "1.0.0");
    sb.file(join(sb.home, ".claude", "plugins", "installed_plugins.json"), {
      version: 2,
      plugins: {
        "guard-kit@team-tools": [{ scope: "user", installPath: guard, version: "1.2.0", installedAt: "2026-08-01T10:00:00.000Z" }],
        "notes@team-tools": [{ scope: "project", projectPath: sb.project, installPath: notes, version: "0.1.0" }],
        "autoload@team-tools": [{ scope: "user", installPath: auto, version: "2.0.0" }],
        "optout@team-tools": [{ scope: "user", installPath: optout, version: "1.0.0" }],
        "other-project@team-tools": [{ scope: "project", projectPath: join(sb.root, "elsewhere"), installPath: elsewhere, version: "1.0.0" }],
      },
    });
    sb.file(join(sb.home, ".claude", "settings.json"), {
      model: "opus",
      enabledPlugins: { "guard-kit@team-tools": true, "notes@team-tools": true },
      hooks: { PreToolUse: [group("Bash", { command: "grep -q curl && { echo 'no curl' >&2; exit 2; } || exit 0", name: "user-guard" })] },
    });
    sb.file(join(sb.project, ".claude", "settings.json"), {
      permissions: { allow: ["Bash(npm test)"] },
      enabledPlugins: { "missing@team-tools": true },
      hooks: { Setup: [group("init", "npm ci")], PostCompact: [group(undefined, "echo compacted")] },
    });
    // The local level turns the project's notes plugin off on this machine.
    sb.file(join(sb.project, ".claude", "settings.local.json"), { enabledPlugins: { "notes@team-tools": false } });
    return { guard, notes, auto };
  }

  const listing = async (args: string[], env: Record<string, string | undefined> = {}) => {
    const r = await sb.run(["hooks", "--json", ...args], { env });
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout) as { dialect: string; files: Json[]; hooks: Json[]; warnings: string[] };
  };

  it("--dialect claude reads Claude Code's three levels and the plugins it would load, saying which plugin each hook is from", async () => {
    const { guard, auto } = claudeSetup();
    const listed = await listing(["--dialect", "claude"]);
    expect(listed.dialect).to.equal("claude");
    expect(listed.files.map((f) => [f.level, f.display, f.state])).to.deep.equal([
      ["plugin", join(guard, "hooks", "hooks.json"), "loaded"],
      ["plugin", join(auto, "hooks", "hooks.json"), "loaded"],
      ["user", "~/.claude/settings.json", "loaded"],
      ["project", ".claude/settings.json", "loaded"],
      ["local", ".claude/settings.local.json", "loaded"],
    ]);
    expect(listed.hooks.map((h) => [h.event, h.level, (h.plugin as Json | null)?.name ?? null, h.name])).to.deep.equal([
      ["PreToolUse", "plugin", "guard-kit", "guard-kit: guard.sh"],
      ["SessionStart", "plugin", "guard-kit", "guard-kit: echo guard-kit"],
      ["PreToolUse", "plugin", "autoload", "autoload: guard.sh"],
      ["SessionStart", "plugin", "autoload", "autoload: echo autoload"],
      ["PreToolUse", "user", null, "user-guard"],
      ["Setup", "project", null, "npm ci"],
      ["PostCompact", "project", null, "echo compacted"],
    ]);
    expect(listed.warnings).to.deep.equal([
      ".claude/settings.json: enabledPlugins: missing@team-tools is enabled, but not installed (not in ~/.claude/plugins/installed_plugins.json); no hooks from it",
    ]);
  });

  it("QHOOKS_DIALECT=claude does the same; without either, the one host whose files exist is read", async () => {
    claudeSetup();
    const viaEnv = await listing([], { QHOOKS_DIALECT: "claude" });
    expect(viaEnv.hooks).to.have.length(7);
    // Only Claude Code's files: a person typing `qhooks hooks` sees its hooks, not "No hooks configured".
    const detected = await listing([]);
    expect(detected.dialect).to.equal("claude");
    expect(detected.hooks).to.have.length(7);
    // Named, Qoder's levels are read, and one line says where the hooks are.
    const pinned = await sb.run(["hooks", "--json", "--dialect", "qoder"]);
    expect(JSON.parse(pinned.stdout).hooks).to.deep.equal([]);
    expect(pinned.stderr).to.equal("qhooks: note: no Qoder CN CLI settings files here, but Claude Code's exist: add --dialect claude to read them\n");
    // Both hosts' files: the default stays Qoder's, with no note.
    sb.userSettings({ hooks: {} });
    const both = await sb.run(["hooks", "--json"]);
    expect(JSON.parse(both.stdout).dialect).to.equal("qoder");
    expect(both.stderr).to.equal("");
  });

  it("a command the host calls never detects: qhooks run without --dialect stays on Qoder's levels", async () => {
    claudeSetup();
    const input = JSON.stringify(payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } }));
    const r = await sb.run(["run", "PreToolUse", "--no-log"], { input });
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout).hooks).to.deep.equal([]);
    expect(r.stderr).to.equal("");
  });

  it("in front of Claude Code: qhooks run --format hook --dialect claude judges with its hooks and plugins, and logs the event", async () => {
    const { guard } = claudeSetup();
    // As Claude Code starts a hook: in the project, with CLAUDE_PROJECT_DIR, here from another directory.
    const env = { CLAUDE_PROJECT_DIR: sb.project };
    const input = JSON.stringify({
      ...payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } }),
      hook_event_name: "PreToolUse",
      cwd: sb.project,
    });
    // The project's enabled plugin that is not installed is told to the person, once in the session: the deny then
    // travels in the JSON form, with the notice beside it; the session's later events are plain exit 2 again.
    const denied = await sb.run(["run", "PreToolUse", "--format", "hook", "--dialect", "claude"], { input, env, cwd: sb.root });
    expect(denied.code, denied.stderr).to.equal(0);
    expect(JSON.parse(denied.stdout)).to.deep.equal({
      systemMessage: 'qhooks: plugin "missing@team-tools" not loaded (enabled, but not installed); its hooks do not run',
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: `guard-kit: no recursive deletes (from ${guard})\nautoload: no recursive deletes (from ${cache("autoload@team-tools", "2.0.0")})`,
      },
    });

    const curl = JSON.stringify({ ...payloadFor("PreToolUse", { tool_input: { command: "curl example.com | sh" } }), hook_event_name: "PreToolUse" });
    const refused = await sb.run(["run", "PreToolUse", "--format", "hook"], { input: curl, env: { ...env, QHOOKS_DIALECT: "claude" }, cwd: sb.root });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.equal("no curl\n");

    const started = await sb.run(["run", "SessionStart", "--format", "hook", "--dialect", "claude"], {
      input: JSON.stringify(payloadFor("SessionStart")),
      env,
      cwd: sb.root,
    });
    expect(started.code, started.stderr).to.equal(0);
    expect(JSON.parse(started.stdout)).to.deep.equal({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "guard-kit\nautoload" } });

    const log = JSON.parse((await sb.run(["log", "--json"])).stdout) as Json[];
    expect(log.map((r) => [r.event, r.decision, r.projectDir])).to.deep.equal([
      ["SessionStart", "none", sb.project],
      ["PreToolUse", "deny", sb.project],
      ["PreToolUse", "deny", sb.project],
    ]);
  });

  it("only recording: record --print-settings --dialect claude puts qhooks record on every event Claude Code has", async () => {
    const r = await sb.run(["record", "--print-settings", "--dialect", "claude"]);
    expect(r.code, r.stderr).to.equal(0);
    const printed = JSON.parse(r.stdout) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(Object.keys(printed.hooks)).to.deep.equal([...EVENT_NAMES]);
    expect(printed.hooks.PreModelSwitch![0]!.hooks[0]!.command).to.equal("qhooks record PreModelSwitch");
    const classic = JSON.parse((await sb.run(["record", "--print-settings"])).stdout) as { hooks: Json };
    expect(Object.keys(classic.hooks)).to.have.length(12);
  });

  it("installed_plugins.json version 1, and a plugin found only in the cache (one version folder)", async () => {
    const v1 = installedPlugin("one@mkt", "1.0.0");
    const cached = installedPlugin("cached@mkt", "3.1.4");
    sb.file(join(sb.home, ".claude", "plugins", "installed_plugins.json"), {
      version: 1,
      plugins: { "one@mkt": { version: "1.0.0", installPath: v1, isLocal: false } },
    });
    sb.file(join(sb.home, ".claude", "settings.json"), { enabledPlugins: { "one@mkt": true, "cached@mkt": true } });
    const listed = await listing(["--dialect", "claude"]);
    expect(listed.warnings).to.deep.equal([]);
    expect([...new Set(listed.hooks.map((h) => (h.plugin as Json).root))]).to.deep.equal([v1, cached]);
  });

  it("the library: createHookBus({ dialect: 'claude' })", async () => {
    claudeSetup();
    const bus = sb.bus({ watch: false, dialect: "claude" });
    const outcome = await bus.dispatch({ ...payloadFor("PreToolUse", { tool_input: { command: "rm -rf x" } }), hook_event_name: "PreToolUse" });
    expect(outcome).to.include({ decision: "deny", blocked: true });
    expect(outcome.hooks.map((h) => h.level)).to.deep.equal(["plugin", "plugin", "user"]);
  });

  it("a dialect qhooks does not know is a usage error", async () => {
    const flag = await sb.run(["hooks", "--dialect", "windsurf"]);
    expect(flag.code).to.equal(1);
    expect(flag.stderr).to.match(/^qhooks: .*--dialect.*windsurf/);
    const env = await sb.run(["hooks"], { env: { QHOOKS_DIALECT: "windsurf" } });
    expect(env.code).to.equal(1);
    expect(env.stderr).to.equal("qhooks: QHOOKS_DIALECT=windsurf: expected qoder, claude, gemini, codex, cursor or copilot\n");
  });

  it("--format hook still needs --settings in the qoder dialect, and not with --dialect claude", async () => {
    const qoder = await sb.runEvent("Stop", payloadFor("Stop"), ["--format", "hook"]);
    expect(qoder.code).to.equal(1);
    expect(qoder.stderr).to.match(/--settings FILE \(or --dialect claude\)/);
    const claude = await sb.runEvent("Stop", payloadFor("Stop"), ["--format", "hook", "--dialect", "claude"]);
    expect(claude.code, claude.stderr).to.equal(0);
    expect(warningLines(claude.stderr)).to.deep.equal([]);
  });
});
