import { expect } from "chai";
import { chmodSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { geminiHost } from "../../src/hosts/gemini.js";
import { geminiAnswer, geminiHookOutput } from "../../src/hosts/geminiProtocol.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { outcomeOf } from "../support/outcomes.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "hosts", "gemini");
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), "utf8");

/** A hook script in the project's .gemini/hooks that prints `out` on stdout and exits with `code`. */
function script(sb: Sandbox, name: string, out: string, code = 0, err = ""): string {
  const path = join(sb.project, ".gemini", "hooks", name);
  sb.file(path, "");
  const text = `#!/bin/sh\ncat >/dev/null\nprintf '%s' '${out}'\n${err ? `printf '%s' '${err}' >&2\n` : ""}exit ${code}\n`;
  sb.file(path, text);
  chmodSync(path, 0o755);
  return path;
}

describe("Gemini CLI host", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const machineWide = () => ({
    GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "etc", "system-defaults.json"),
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "etc", "settings.json"),
  });
  const userFile = () => join(sb.home, ".gemini", "settings.json");
  const settings = (hostEvent: string, command: string, matcher?: string) =>
    sb.file(userFile(), { hooks: { [hostEvent]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] }] } });
  /** `qhooks run <host event> --format hook --dialect gemini` with a fixture payload: what Gemini CLI reads. */
  const answer = (hostEvent: string, format: "hook" | "json" = "hook") =>
    sb.run(["run", hostEvent, "--format", format, "--dialect", "gemini", "--no-log"], {
      input: fixture(`${hostEvent}.json`),
      env: { ...machineWide(), GEMINI_PROJECT_DIR: sb.project },
    });

  it("reads its own settings shape: timeouts in milliseconds, sequential and description accepted, model events warned about", () => {
    sb.file(userFile(), fixture("settings.json"));
    const snapshot = loadSettings(discoverSettings(sb.home, sb.project, "gemini", machineWide()));
    expect(snapshot.hooks.map((h) => [h.event, h.name, h.timeoutMs, h.timeoutSetting])).to.deep.equal([["PreToolUse", "guard", 5000, "settings"]]);
    expect(snapshot.warnings).to.deep.equal(["~/.gemini/settings.json: hooks.BeforeModel: Gemini CLI event with no qhooks equivalent; its hooks are skipped"]);
  });

  it("a timeout that reads like seconds, and Claude Code's event names, are one warning each", () => {
    sb.file(userFile(), {
      hooks: { AfterTool: [{ hooks: [{ type: "command", command: "true", timeout: 30 }] }], PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] },
    });
    const snapshot = loadSettings(discoverSettings(sb.home, sb.project, "gemini", machineWide()));
    expect(snapshot.hooks.map((h) => [h.event, h.timeoutMs, h.timeoutSetting])).to.deep.equal([["PostToolUse", 60_000, "host-default"]]);
    expect(snapshot.warnings).to.deep.equal([
      "~/.gemini/settings.json: hooks.AfterTool[0].hooks[0].timeout: 30 ms is less than a tenth of a second (Gemini CLI reads milliseconds: seconds?); Gemini CLI's default of 60 s applies",
      "~/.gemini/settings.json: hooks.PreToolUse: unknown event (Gemini CLI calls it BeforeTool); its hooks are skipped",
    ]);
  });

  it("the system settings file comes last; the user's hooksConfig.enabled: false switches every hook off", () => {
    sb.file(userFile(), { hooks: { AfterAgent: [{ hooks: [{ type: "command", command: "echo user" }] }] } });
    sb.file(machineWide().GEMINI_CLI_SYSTEM_SETTINGS_PATH, { hooks: { AfterAgent: [{ hooks: [{ type: "command", command: "echo system" }] }] } });
    const on = loadSettings(discoverSettings(sb.home, sb.project, "gemini", machineWide()));
    expect(on.hooks.map((h) => [h.level, h.command])).to.deep.equal([
      ["user", "echo user"],
      ["system", "echo system"],
    ]);
    sb.file(userFile(), { hooksConfig: { enabled: false }, hooks: { AfterAgent: [{ hooks: [{ type: "command", command: "echo user" }] }] } });
    const off = loadSettings(discoverSettings(sb.home, sb.project, "gemini", machineWide()));
    expect(off.hooks).to.deep.equal([]);
    expect(off.disabled.map((d) => d.by)).to.deep.equal(["~/.gemini/settings.json", "~/.gemini/settings.json"]);
  });

  it("hooksConfig.disabled: the user's names switch those hooks off; a project's switches off only the project's, never the user's guard", () => {
    const hook = (name: string, command: string) => ({ hooks: [{ type: "command", name, command }] });
    const projectFile = join(sb.project, ".gemini", "settings.json");
    sb.file(userFile(), { hooksConfig: { disabled: ["lint", "nothing-here"] }, hooks: { AfterTool: [hook("lint", "lint.sh"), hook("guard", "guard.sh")] } });
    sb.file(projectFile, { hooksConfig: { disabled: ["guard", "fmt"] }, hooks: { AfterTool: [hook("guard", "guard.sh --project"), hook("fmt", "fmt.sh")] } });
    const snapshot = loadSettings(discoverSettings(sb.home, sb.project, "gemini", machineWide()));
    expect(snapshot.hooks.map((h) => h.command)).to.deep.equal(["guard.sh"]);
    expect(snapshot.disabled.map((d) => [d.hook.command, d.switch, d.by])).to.deep.equal([
      ["lint.sh", "hooksConfig.disabled", "~/.gemini/settings.json"],
      ["guard.sh --project", "hooksConfig.disabled", ".gemini/settings.json"],
      ["fmt.sh", "hooksConfig.disabled", ".gemini/settings.json"],
    ]);
    expect(snapshot.warnings).to.deep.equal([
      '~/.gemini/settings.json: hooksConfig.disabled: "lint" is off (1)',
      '~/.gemini/settings.json: hooksConfig.disabled: no hook is named "nothing-here"; nothing switched off by it',
      '.gemini/settings.json: hooksConfig.disabled: "guard" is off (1) (yours still run: a lower-trust file switches off only the project\'s, local and plugin hooks)',
      '.gemini/settings.json: hooksConfig.disabled: "fmt" is off (1) (yours still run: a lower-trust file switches off only the project\'s, local and plugin hooks)',
    ]);
  });

  it("BeforeTool: a hook's decision deny blocks the tool, answered as exit 2 with the reason", async () => {
    settings("BeforeTool", script(sb, "guard.sh", '{"decision":"deny","reason":"rm -rf is not allowed here"}'), "run_shell_command");
    const r = await answer("BeforeTool");
    expect([r.code, r.stdout, r.stderr.trim()]).to.deep.equal([2, "", "rm -rf is not allowed here"]);
  });

  it("BeforeTool: a hook's tool_input is merged over the model's arguments, and answered so", async () => {
    settings("BeforeTool", script(sb, "rewrite.sh", '{"hookSpecificOutput":{"tool_input":{"command":"rm -rf ./build"}}}'));
    const r = await answer("BeforeTool");
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({
      hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: { command: "rm -rf ./build", description: "Clean the build folder" } },
    });
  });

  it("AfterTool: context a hook adds goes back under Gemini CLI's event name", async () => {
    settings("AfterTool", script(sb, "ctx.sh", '{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"cart.ts is generated"}}'), "read_file");
    const r = await answer("AfterTool");
    expect([r.code, JSON.parse(r.stdout)]).to.deep.equal([
      0,
      { hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: "cart.ts is generated" } },
    ]);
  });

  it("BeforeAgent: exit 2 blocks the prompt, with stderr as the reason", async () => {
    settings("BeforeAgent", script(sb, "prompt.sh", "", 2, "prompts must not name customers"));
    const r = await answer("BeforeAgent");
    expect([r.code, r.stderr.trim()]).to.deep.equal([2, "prompts must not name customers"]);
  });

  it("AfterAgent: a deny sends the agent back to work, with a system message for the person in JSON", async () => {
    settings("AfterAgent", script(sb, "stop.sh", '{"decision":"deny","reason":"run the tests first","systemMessage":"tests not run"}'));
    const r = await answer("AfterAgent");
    expect([r.code, JSON.parse(r.stdout)]).to.deep.equal([0, { systemMessage: "tests not run", decision: "deny", reason: "run the tests first" }]);
  });

  it("SessionStart: context for the session", async () => {
    settings("SessionStart", script(sb, "start.sh", '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}'), "startup");
    const r = await answer("SessionStart");
    expect(JSON.parse(r.stdout)).to.deep.equal({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "branch main" } });
  });

  it("SessionEnd: a system message is shown at shutdown", async () => {
    settings("SessionEnd", script(sb, "end.sh", '{"systemMessage":"session saved"}'), "exit");
    const r = await answer("SessionEnd");
    expect([r.code, JSON.parse(r.stdout)]).to.deep.equal([0, { systemMessage: "session saved" }]);
  });

  it("PreCompress: judged as PreCompact, its hooks run, nothing to answer", async () => {
    settings("PreCompress", script(sb, "compact.sh", "{}"), "auto");
    const r = await answer("PreCompress", "json");
    const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
    expect([outcome.event, outcome.hooks.map((h) => h.outcome)]).to.deep.equal(["PreCompact", ["success"]]);
    expect((await answer("PreCompress")).stdout).to.equal("");
  });

  it("Notification: a hook cannot block it; a deny is ignored with a warning, its message is relayed", async () => {
    settings("Notification", script(sb, "notify.sh", '{"decision":"deny","systemMessage":"paged the on-call"}'), "ToolPermission");
    const r = await answer("Notification");
    expect([r.code, JSON.parse(r.stdout)]).to.deep.equal([0, { systemMessage: "paged the on-call" }]);
    expect(r.stderr).to.include("decision (Notification cannot be blocked) ignored");
  });

  it("answers ask and allow before a tool in its own words, and reads them from its hooks", () => {
    const asked = geminiAnswer(outcomeOf("PreToolUse", { decision: "ask", reason: "a person should look" }));
    expect(JSON.parse(asked.stdout)).to.deep.equal({ decision: "ask", reason: "a person should look" });
    expect(geminiHookOutput("PreToolUse", { decision: "approve" }, {})).to.deep.equal({
      hookSpecificOutput: { permissionDecision: "allow", hookEventName: "PreToolUse" },
    });
    expect(geminiHookOutput("PostToolUse", { decision: "allow", reason: "fine" }, {})).to.deep.equal({ reason: "fine" });
    expect(geminiHookOutput("Stop", "not an object", {})).to.equal("not an object");
  });

  it("has no managed settings: install goes to the user's file", () => {
    expect(geminiHost.managedSettings({}, "linux")).to.equal(null);
  });
});
