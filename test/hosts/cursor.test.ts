import { expect } from "chai";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CURSOR_EVENT_NAMES } from "../../src/hosts/cursorNames.js";
import { cursorPayload } from "../../src/hosts/cursorPayload.js";
import { cursorAnswer, cursorDocumentWarnings, cursorHookEntry, cursorHookOutput } from "../../src/hosts/cursorProtocol.js";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { outcomeOf } from "../support/outcomes.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "hosts", "cursor");
const fixture = (event: string): string => readFileSync(join(FIXTURES, `${event}.json`), "utf8");

/** Each fixture's event, the qhooks event it is, and the tool qhooks matches it as (none for the others). */
const KINDS: ReadonlyArray<readonly [string, string, string | null]> = [
  ["beforeShellExecution", "PreToolUse", "Shell"],
  ["afterShellExecution", "PostToolUse", "Shell"],
  ["beforeMCPExecution", "PreToolUse", "mcp__run_query"],
  ["afterMCPExecution", "PostToolUse", "mcp__run_query"],
  ["beforeReadFile", "PreToolUse", "Read"],
  ["afterFileEdit", "PostToolUse", "Write"],
  ["preToolUse", "PreToolUse", "Write"],
  ["beforeSubmitPrompt", "UserPromptSubmit", null],
  ["stop", "Stop", null],
  ["sessionStart", "SessionStart", null],
  ["postToolUse", "PostToolUse", "Shell"],
  ["postToolUseFailure", "PostToolUseFailure", "Shell"],
  ["sessionEnd", "SessionEnd", null],
  ["subagentStart", "SubagentStart", null],
  ["subagentStop", "SubagentStop", null],
  ["preCompact", "PreCompact", null],
];

describe("Cursor host", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const projectFile = () => join(sb.project, ".cursor", "hooks.json");
  const run = (event: string, format: "json" | "hook", input = fixture(event)) =>
    sb.run(["run", event, "--format", format, "--dialect", "cursor", "--no-log"], { input, cwd: sb.project });

  it("has a fixture for each event kind tested here, each a Cursor event qhooks maps", () => {
    const files = readdirSync(FIXTURES).map((f) => f.replace(/\.json$/, ""));
    expect(files.sort()).to.deep.equal(KINDS.map(([name]) => name).sort());
    for (const [name, event] of KINDS) expect(CURSOR_EVENT_NAMES.toQhooks.get(name), name).to.equal(event);
  });

  for (const [name, event, tool] of KINDS) {
    it(`${name}: judged as ${event} by the project's .cursor/hooks.json${tool ? `, as a ${tool} call` : ""}; the hook gets Cursor's payload`, async () => {
      sb.file(projectFile(), { version: 1, hooks: { [name]: [{ command: "cat > got.json; echo '{}'" }] } });
      const r = await run(name, "json");
      const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
      expect([outcome.event, outcome.hooks.map((h) => h.outcome)], r.stderr).to.deep.equal([event, ["success"]]);
      expect(r.stderr).to.equal("");
      const got = JSON.parse(readFileSync(join(sb.project, "got.json"), "utf8")) as Record<string, unknown>;
      expect(got.hook_event_name).to.equal(name);
      // The hook gets Cursor's own fields: a tool input only where Cursor sent one (its tool events, MCP calls).
      const sent = JSON.parse(fixture(name)) as Record<string, unknown>;
      expect(got.tool_input).to.deep.equal(sent.tool_input);
      if (tool) expect(cursorPayload(JSON.parse(fixture(name)) as Record<string, unknown>).tool_name).to.equal(tool);
    });
  }

  it("beforeShellExecution end to end: a blocking guard denies in Cursor's protocol, the other tools' guards stay quiet", async () => {
    sb.file(projectFile(), {
      version: 1,
      hooks: {
        beforeShellExecution: [
          {
            command: `grep -q -- '--force' && { echo '{"permission":"deny","agentMessage":"no force pushes","userMessage":"blocked a force push"}'; exit 0; }; echo '{}'`,
          },
        ],
        beforeReadFile: [{ command: "echo read >&2; exit 2" }],
      },
    });
    const r = await run("beforeShellExecution", "hook");
    expect([r.code, r.stderr]).to.deep.equal([0, ""]);
    expect(JSON.parse(r.stdout)).to.deep.equal({ permission: "deny", userMessage: "no force pushes", agentMessage: "no force pushes" });
  });

  it("beforeSubmitPrompt: a hook's continue:false blocks the prompt; stop: followup_message keeps the agent going", async () => {
    sb.file(projectFile(), {
      version: 1,
      hooks: {
        beforeSubmitPrompt: [{ command: `cat >/dev/null; echo '{"continue":false,"userMessage":"not on staging"}'` }],
        stop: [{ command: `cat >/dev/null; echo '{"followup_message":"run the tests"}'` }],
      },
    });
    const prompt = await run("beforeSubmitPrompt", "hook");
    expect(JSON.parse(prompt.stdout), prompt.stderr).to.deep.equal({ continue: false, userMessage: "not on staging" });
    const stop = await run("stop", "hook");
    expect(JSON.parse(stop.stdout), stop.stderr).to.deep.equal({ followup_message: "run the tests" });
  });

  it("a version it does not know is one warning and the hooks load; an event with no qhooks equivalent one warning naming file and event", async () => {
    sb.file(join(sb.home, ".cursor", "hooks.json"), {
      version: 2,
      hooks: { stop: [{ command: "echo user" }], afterAgentThought: [{ command: "echo thought" }] },
    });
    const r = await sb.run(["hooks", "--dialect", "cursor", "--json"], { cwd: sb.project });
    const listed = JSON.parse(r.stdout) as { hooks: { command: string; event: string; timeoutSeconds: number }[]; warnings: string[] };
    expect(listed.hooks.map((h) => [h.event, h.command, h.timeoutSeconds])).to.deep.equal([["Stop", "echo user", 60]]);
    expect(listed.warnings).to.deep.equal([
      "~/.cursor/hooks.json: version: 2 is not a hooks.json version qhooks knows (1); its hooks are read as version 1's",
      "~/.cursor/hooks.json: hooks.afterAgentThought: Cursor event with no qhooks equivalent; its hooks are skipped",
    ]);
  });

  it("record and explain --payload read a Cursor payload too: its conversation is the session, its command the Shell call", async () => {
    sb.file(projectFile(), { version: 1, hooks: { beforeShellExecution: [{ command: "exit 0" }] } });
    const rec = await sb.run(["record", "beforeShellExecution", "--dialect", "cursor"], { input: fixture("beforeShellExecution"), cwd: sb.project });
    expect([rec.code, rec.stderr]).to.deep.equal([0, ""]);
    const payload = join(sb.root, "payload.json");
    sb.file(payload, JSON.parse(fixture("beforeShellExecution")));
    const x = await sb.run(["explain", "PreToolUse", "--payload", payload, "--dialect", "cursor", "--json"], { cwd: sb.project });
    const explained = JSON.parse(x.stdout) as { event: string; matchValue: string };
    expect([explained.event, explained.matchValue], x.stderr).to.deep.equal(["PreToolUse", "Shell"]);
  });

  it("qhooks install cursor: the recorder as one entry per event in ~/.cursor/hooks.json, a Cursor payload recorded; uninstall restores every byte", async function () {
    this.timeout(30_000);
    const userFile = join(sb.home, ".cursor", "hooks.json");
    const userText = '{\n  "version": 1,\n  "hooks": { "stop": [ { "command": "./audit.sh", "timeout": 5 } ] }\n}\n';
    sb.file(userFile, userText);
    const dry = await sb.run(["install", "cursor", "--dry-run"], { cwd: sb.project });
    expect(dry.code, dry.stderr).to.equal(0);
    expect(readFileSync(userFile, "utf8")).to.equal(userText);
    const installed = await sb.run(["install", "cursor"], { cwd: sb.project });
    expect(installed.code, installed.stderr).to.equal(0);
    const hooks = (JSON.parse(readFileSync(userFile, "utf8")) as { hooks: Record<string, { command: string; timeout: number }[]> }).hooks;
    expect(hooks.stop!.map((e) => e.command.endsWith("record stop --dialect cursor"))).to.deep.equal([false, true]);
    const recorder = hooks.beforeSubmitPrompt![0]!;
    expect(Object.keys(recorder)).to.deep.equal(["command", "timeout"]);
    const listed = JSON.parse((await sb.run(["hooks", "--dialect", "cursor", "--json"], { cwd: sb.project })).stdout) as { warnings: string[] };
    expect(listed.warnings).to.deep.equal([]);
    const rec = await sb.run(["record", "beforeSubmitPrompt", "--dialect", "cursor"], { input: fixture("beforeSubmitPrompt"), cwd: sb.project });
    expect([rec.code, rec.stdout, rec.stderr]).to.deep.equal([0, "", ""]);
    const log = JSON.parse((await sb.run(["log", "--json"], { cwd: sb.project })).stdout) as { event: string; sessionId: string }[];
    expect(log.map((r) => [r.event, r.sessionId])).to.deep.equal([["UserPromptSubmit", "c-7f3a"]]);
    const removed = await sb.run(["uninstall", "cursor"], { cwd: sb.project });
    expect(removed.stdout).to.include("byte for byte");
    expect(readFileSync(userFile, "utf8")).to.equal(userText);
  });

  it("qhooks install cursor on a HOME without ~/.cursor creates hooks.json with version 1; uninstall removes it", async function () {
    this.timeout(30_000);
    const installed = await sb.run(["install", "cursor"], { cwd: sb.project });
    expect(installed.code, installed.stderr).to.equal(0);
    expect((JSON.parse(readFileSync(join(sb.home, ".cursor", "hooks.json"), "utf8")) as { version: number }).version).to.equal(1);
    await sb.run(["uninstall", "cursor"], { cwd: sb.project });
    expect(existsSync(join(sb.home, ".cursor"))).to.equal(false);
  });

  it("cursorHookEntry: an entry is a group of one hook; a narrowed event matches its tool; failClosed is onFailure block", () => {
    const warned: string[] = [];
    const warn = (key: string, message: string) => warned.push(`${key}: ${message}`);
    expect(cursorHookEntry("beforeShellExecution", { command: "g.sh", timeout: 5, failClosed: true, matcher: "git" }, warn)).to.deep.equal({
      matcher: "Shell",
      hooks: [{ type: "command", command: "g.sh", timeout: 5, onFailure: "block" }],
    });
    expect(warned).to.deep.equal(["matcher: not read on beforeShellExecution: its hooks run for every shell command"]);
    expect(cursorHookEntry("preToolUse", { command: "w.sh", matcher: "Write", colour: "red" }, warn)).to.deep.equal({
      matcher: "Write",
      hooks: [{ type: "command", command: "w.sh" }],
    });
    expect(warned.at(-1)).to.equal("colour: unknown key, ignored");
    const group = { matcher: "Shell", hooks: [{ type: "command", command: "x" }] };
    expect(cursorHookEntry("preToolUse", group, warn)).to.equal(group);
  });

  it("cursorDocumentWarnings: only a version other than 1", () => {
    expect(cursorDocumentWarnings({ version: 1 })).to.deep.equal([]);
    expect(cursorDocumentWarnings({})).to.deep.equal([]);
    expect(cursorDocumentWarnings({ version: "2" }).map((w) => w.key)).to.deep.equal(["version"]);
  });

  it("cursorAnswer: allow and ask carry their reason; a stop is continue:false; nothing to say is empty", () => {
    expect(JSON.parse(cursorAnswer(outcomeOf("PreToolUse", { decision: "ask", reason: "prod host" })).stdout)).to.deep.equal({
      permission: "ask",
      userMessage: "prod host",
      agentMessage: "prod host",
    });
    expect(JSON.parse(cursorAnswer(outcomeOf("PostToolUse", { continue: false, stopReason: "quota" })).stdout)).to.deep.equal({
      continue: false,
      userMessage: "quota",
    });
    expect(cursorAnswer(outcomeOf("SessionStart"))).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("cursorHookOutput: permission is the PreToolUse decision; other output passes", () => {
    expect(cursorHookOutput("PreToolUse", { permission: "ask", userMessage: "sure?" })).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "sure?" },
    });
    expect(cursorHookOutput("PostToolUse", { systemMessage: "ok" })).to.deep.equal({ systemMessage: "ok" });
    expect(cursorHookOutput("Stop", "text")).to.equal("text");
  });

  it("cursorPayload: conversation_id is the session and the first workspace root the cwd; a Claude-shaped payload passes", () => {
    const read = cursorPayload(JSON.parse(fixture("beforeReadFile")) as Record<string, unknown>);
    expect([read.session_id, read.tool_name, read.tool_input]).to.deep.equal(["c-7f3a", "Read", { file_path: "/home/dev/shop/.env.production" }]);
    const prompt = cursorPayload(JSON.parse(fixture("beforeSubmitPrompt")) as Record<string, unknown>);
    expect(prompt.cwd).to.equal("/home/dev/shop");
    const claude = { session_id: "s", hook_event_name: "preToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/x" };
    expect(cursorPayload(claude)).to.deep.equal(claude);
  });

  it("postToolUse: Cursor's tool_output is the tool's response qhooks matches and logs", () => {
    const read = cursorPayload(JSON.parse(fixture("postToolUse")) as Record<string, unknown>);
    expect([read.tool_name, read.tool_response]).to.deep.equal(["Shell", "12 passing"]);
  });

  it("reads the enterprise hooks.json first (the machine's, /etc/cursor on Linux), then the user's, then the project's", () => {
    expect(discoverSettings(sb.home, sb.project, "cursor").map((l) => [l.level, l.display])).to.deep.equal([
      ["system-defaults", process.platform === "darwin" ? "/Library/Application Support/Cursor/hooks.json" : "/etc/cursor/hooks.json"],
      ["user", "~/.cursor/hooks.json"],
      ["project", ".cursor/hooks.json"],
    ]);
  });
});
