import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { copilotVsCodePayload } from "../../src/hosts/copilotVsCodePayload.js";
import { COPILOT_EVENT_NAMES } from "../../src/hosts/copilotNames.js";
import { copilotClaudeMatcher } from "../../src/hosts/copilotClaudeMatcher.js";
import { copilotHookEntry } from "../../src/hosts/copilotProtocol.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { Sandbox } from "../support/sandbox.js";

interface Listed {
  readonly dialect: string;
  readonly hooks: { event: string; command: string; file: string; path: string; matcher: string | null; level: string; plugin: { name: string } | null }[];
  readonly warnings: string[];
}

/** Copilot CLI's inline hooks (its JSONC settings.json files, Claude Code's files it reads) and its PascalCase names. */
describe("Copilot CLI settings files and PascalCase events", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const list = async (): Promise<Listed> => {
    const r = await sb.run(["hooks", "--dialect", "copilot", "--json"], { cwd: sb.project });
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout) as Listed;
  };

  it("reads every level Copilot CLI loads, policy first, the user's hooks files before its settings.json", () => {
    expect(discoverSettings(sb.home, sb.project, "copilot").map((l) => [l.level, l.display, l.comments === true])).to.deep.equal([
      ["system-defaults", "/etc/github-copilot/policy.d/policy.json", false],
      ["user", "~/.copilot/hooks/hooks.json", false],
      ["user", "~/.copilot/settings.json", true],
      ["project", ".github/hooks/hooks.json", false],
      ["project", ".github/copilot/settings.json", true],
      ["project", ".claude/settings.json", false],
      ["local", ".github/copilot/settings.local.json", true],
      ["local", ".claude/settings.local.json", false],
    ]);
  });

  it("inline hooks of settings.json with comments and trailing commas are listed, in Copilot CLI's order", async () => {
    sb.file(
      join(sb.home, ".copilot", "settings.json"),
      `{\n  // my settings\n  "model": "x",\n  "hooks": {\n    "preToolUse": [\n      { "type": "command", "bash": "user-inline.sh", }, /* trailing */\n    ],\n  },\n}\n`,
    );
    sb.file(join(sb.home, ".copilot", "hooks", "a.json"), { version: 1, hooks: { preToolUse: [{ type: "command", bash: "user-file.sh" }] } });
    sb.file(join(sb.project, ".github", "copilot", "settings.json"), `{ "hooks": { "agentStop": [ { "bash": "repo.sh" } ] } // committed\n}`);
    sb.file(
      join(sb.project, ".github", "copilot", "settings.local.json"),
      `/* mine */ { "hooks": { "sessionEnd": [ { "bash": "local.sh", "timeoutSec": 4 } ] } }`,
    );
    const listed = await list();
    expect(listed.hooks.map((h) => [h.event, h.command, h.file])).to.deep.equal([
      ["PreToolUse", "user-file.sh", "~/.copilot/hooks/a.json"],
      ["PreToolUse", "user-inline.sh", "~/.copilot/settings.json"],
      ["Stop", "repo.sh", ".github/copilot/settings.json"],
      ["SessionEnd", "local.sh", ".github/copilot/settings.local.json"],
    ]);
    expect(listed.warnings).to.deep.equal([]);
  });

  it("a settings.json that is not JSONC is one warning naming the file and where; the other files still load", async () => {
    sb.file(join(sb.home, ".copilot", "settings.json"), `{ "hooks": { "preToolUse": [ { "bash": "x" } ] }\n  "oops" }`);
    sb.file(join(sb.project, ".github", "hooks", "g.json"), { version: 1, hooks: { agentStop: [{ bash: "stop.sh" }] } });
    const listed = await list();
    expect(listed.hooks.map((h) => h.command)).to.deep.equal(["stop.sh"]);
    expect(listed.warnings).to.have.length(1);
    expect(listed.warnings[0]).to.match(/^~\/\.copilot\/settings\.json: not valid JSON with comments \(line 2 column \d+: \w+\); this file is skipped$/);
  });

  it("Claude Code's .claude/settings.json in the repository loads under Copilot CLI: PascalCase events, groups, Claude matchers", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "claude-guard.sh", timeout: 7 }] }],
        Stop: [{ hooks: [{ type: "command", command: "claude-stop.sh" }] }],
        SubagentStart: [{ hooks: [{ type: "command", command: "not-a-copilot-name.sh" }] }],
      },
    });
    const listed = await list();
    // Each hook at its place in the group (the group's matcher is rewritten, the group is still a group).
    expect(listed.hooks.map((h) => [h.event, h.command, h.file, h.path, h.matcher])).to.deep.equal([
      ["PreToolUse", "claude-guard.sh", ".claude/settings.json", "hooks.PreToolUse[0].hooks[0]", "bash|powershell|Bash"],
      ["Stop", "claude-stop.sh", ".claude/settings.json", "hooks.Stop[0].hooks[0]", null],
    ]);
    const table = await sb.run(["hooks", "--dialect", "copilot"], { cwd: sb.project });
    expect(table.stdout).to.include("Loaded 2 of 3 hooks configured on disk.");
    // Claude Code's files are read here: no note sends the reader to --dialect claude.
    expect(table.stderr).to.not.include("add --dialect claude");
    expect(listed.warnings).to.deep.equal([
      ".claude/settings.json: hooks.SubagentStart: unknown event (Copilot CLI calls it subagentStart); its hooks are skipped",
    ]);
  });

  it("a .claude folder alone still says Claude Code, not Copilot CLI, to a command with no --dialect", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: {} });
    const r = await sb.run(["hooks", "--json"], { cwd: sb.project });
    expect((JSON.parse(r.stdout) as Listed).dialect, r.stderr).to.equal("claude");
  });

  it("a PascalCase PreToolUse guard with a Claude matcher judges Copilot CLI's bash call; a Read matcher does not fire", async () => {
    sb.file(join(sb.project, ".github", "hooks", "g.json"), {
      version: 1,
      hooks: {
        PreToolUse: [
          { type: "command", matcher: "Bash", bash: `echo '{"permissionDecision":"deny","permissionDecisionReason":"no shell"}'` },
          { type: "command", matcher: "Read", bash: "echo reads" },
        ],
      },
    });
    const input = JSON.stringify({ sessionId: "s1", timestamp: 1, cwd: sb.project, toolName: "bash", toolArgs: '{"command":"ls"}' });
    const r = await sb.run(["run", "preToolUse", "--format", "json", "--dialect", "copilot", "--no-log"], { input, cwd: sb.project });
    const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
    expect([outcome.blocked, outcome.reason, outcome.hooks.length], r.stderr).to.deep.equal([true, "no shell", 1]);
  });

  it("PascalCase names are read, never written; ErrorOccurred is Copilot CLI's with no qhooks equivalent", () => {
    expect(COPILOT_EVENT_NAMES.toQhooks.get("Stop")).to.equal("Stop");
    expect(COPILOT_EVENT_NAMES.toHost.get("Stop")).to.equal("agentStop");
    expect(COPILOT_EVENT_NAMES.aliases.has("PreToolUse")).to.equal(true);
    expect(COPILOT_EVENT_NAMES.unmapped.has("ErrorOccurred")).to.equal(true);
  });

  it("copilotClaudeMatcher: names by Claude Code's or Copilot CLI's name; a regex on the Claude Code names; * is every tool", () => {
    expect(copilotClaudeMatcher("*")).to.equal(undefined);
    expect(copilotClaudeMatcher("")).to.equal(undefined);
    expect(copilotClaudeMatcher("Edit|Write")).to.equal("edit|str_replace_editor|apply_patch|Edit|create|Write");
    expect(copilotClaudeMatcher("Task")).to.equal("task|Task");
    expect(copilotClaudeMatcher("my_tool")).to.equal("my_tool");
    expect(copilotClaudeMatcher("Web.*")).to.equal("^(?:web_fetch|web_search|(?:Web.*))$");
    expect(copilotClaudeMatcher("(")).to.equal("(");
  });

  it("copilotHookEntry: a group under PascalCase PreToolUse gets its matcher read as Claude Code's; under camelCase it passes", () => {
    const warn = () => undefined;
    expect(copilotHookEntry("PreToolUse", { matcher: "*", hooks: [{ type: "command", command: "x" }] }, warn)).to.deep.equal({
      hooks: [{ type: "command", command: "x" }],
    });
    expect(copilotHookEntry("PermissionRequest", { matcher: "Read", hooks: [] }, warn)).to.deep.equal({ matcher: "view|Read", hooks: [] });
    // Claude Code's formatters on PostToolUse: fired on Copilot CLI's names and on Claude Code's.
    expect(copilotHookEntry("PostToolUse", { matcher: "Edit|Write", hooks: [] }, warn)).to.deep.equal({
      matcher: "edit|str_replace_editor|apply_patch|Edit|create|Write",
      hooks: [],
    });
    const group = { matcher: "Bash", hooks: [] };
    expect(copilotHookEntry("preToolUse", group, warn)).to.equal(group);
    expect(copilotHookEntry("Stop", group, warn)).to.equal(group);
  });

  it("installed plugins' hooks load after the settings, in Copilot CLI's layouts; a plugin with no hooks says nothing; $COPILOT_HOME moves them", async () => {
    const plugins = join(sb.home, ".copilot", "installed-plugins");
    sb.file(join(plugins, "acme", "guards", "plugin.json"), { name: "guards" });
    sb.file(join(plugins, "acme", "guards", "hooks.json"), { version: 1, hooks: { preToolUse: [{ type: "command", bash: "plug.sh" }] } });
    // Installed directly, in Claude Code's plugin layout (Copilot CLI reads its manifest and hooks/hooks.json too).
    sb.file(join(plugins, "_direct", "src-1", ".claude-plugin", "plugin.json"), { name: "claudeish" });
    sb.file(join(plugins, "_direct", "src-1", "hooks", "hooks.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "cl.sh" }] }] } });
    sb.file(join(plugins, "acme", "skills-only", "plugin.json"), { name: "skills-only" });
    sb.file(join(sb.project, ".github", "hooks", "g.json"), { version: 1, hooks: { preToolUse: [{ type: "command", bash: "repo.sh" }] } });
    const listed = await list();
    // Plugins first (`_direct` sorts before `acme`), as the lowest level, then the settings' own hooks.
    expect(listed.hooks.map((h) => [h.event, h.command, h.level, h.plugin?.name ?? null])).to.deep.equal([
      ["Stop", "cl.sh", "plugin", "claudeish"],
      ["PreToolUse", "plug.sh", "plugin", "guards"],
      ["PreToolUse", "repo.sh", "project", null],
    ]);
    expect(listed.warnings).to.deep.equal([]);
    // --settings replaces the host's files, its installed plugins with them.
    const only = sb.file("only.json", { hooks: {} });
    const r = await sb.run(["hooks", "--dialect", "copilot", "--settings", only, "--json"], { cwd: sb.project });
    expect((JSON.parse(r.stdout) as Listed).hooks).to.deep.equal([]);
    const moved = join(sb.root, "copilot-home");
    sb.file(join(moved, "installed-plugins", "m", "p", "hooks.json"), { version: 1, hooks: { sessionEnd: [{ bash: "moved.sh" }] } });
    const m = await sb.run(["hooks", "--dialect", "copilot", "--json"], { cwd: sb.project, env: { COPILOT_HOME: moved } });
    expect((JSON.parse(m.stdout) as Listed).hooks.map((h) => h.command)).to.deep.equal(["moved.sh", "repo.sh"]);
  });

  it("a hook under a PascalCase name gets Copilot CLI's VS Code-compatible payload; one under camelCase the payload as sent", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat > pascal.json" }] }] },
    });
    sb.file(join(sb.project, ".github", "hooks", "g.json"), { version: 1, hooks: { preToolUse: [{ type: "command", bash: "cat > camel.json" }] } });
    const sent = { sessionId: "s9", timestamp: 1767225600000, cwd: sb.project, toolName: "bash", toolArgs: '{"command":"rm -rf /"}' };
    const r = await sb.run(["run", "preToolUse", "--format", "json", "--dialect", "copilot", "--no-log"], { input: JSON.stringify(sent), cwd: sb.project });
    expect(
      OutcomeSchema.parse(JSON.parse(r.stdout)).hooks.map((h) => h.outcome),
      r.stderr,
    ).to.deep.equal(["success", "success"]);
    expect(JSON.parse(readFileSync(join(sb.project, "pascal.json"), "utf8"))).to.deep.equal({
      hook_event_name: "PreToolUse",
      session_id: "s9",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: sb.project,
      tool_name: "Bash",
      tool_input: { command: "rm -rf /" },
    });
    expect(JSON.parse(readFileSync(join(sb.project, "camel.json"), "utf8"))).to.deep.include(sent);
  });

  it("copilotVsCodePayload: a stop, a tool result and a subagent's answer in VS Code's words; text that is not an object passes", () => {
    const stop = { sessionId: "s", timestamp: 0, cwd: "/p", transcriptPath: "/t", stopReason: "end_turn", stop_hook_active: true };
    expect(JSON.parse(copilotVsCodePayload(JSON.stringify(stop), "Stop"))).to.deep.equal({
      hook_event_name: "Stop",
      session_id: "s",
      timestamp: "1970-01-01T00:00:00.000Z",
      cwd: "/p",
      transcript_path: "/t",
      stop_reason: "end_turn",
      stop_hook_active: true,
    });
    const post = { toolName: "task", toolArgs: {}, toolResult: { resultType: "success", textResultForLlm: "ok" } };
    expect(JSON.parse(copilotVsCodePayload(JSON.stringify(post), "PostToolUse"))).to.include({ tool_name: "Agent" });
    expect(JSON.parse(copilotVsCodePayload(JSON.stringify(post), "PostToolUse")).tool_result).to.deep.equal({
      result_type: "success",
      text_result_for_llm: "ok",
    });
    expect(JSON.parse(copilotVsCodePayload(JSON.stringify({ response: "done", agentType: "explore" }), "SubagentStop"))).to.include({
      last_assistant_message: "done",
      agent_type: "explore",
    });
    expect(copilotVsCodePayload("[1]", "Stop")).to.equal("[1]");
  });
});
