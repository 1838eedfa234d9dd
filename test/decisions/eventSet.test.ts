import { expect } from "chai";
import { EVENT_NAMES } from "../../src/schema/events.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { busWith, hookCommand, jsonHook, only, type Json } from "./helpers.js";

/**
 * The events of current Claude Code beyond the classic twelve: a real configuration registers all of them, each is
 * matched on its documented field, and each blocks what Claude Code lets it block.
 */
describe("decisions: the current Claude Code event set", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /** A project `.claude/settings.json` as people write them today: Setup, model switches, files, tasks, worktrees. */
  const realClaudeSettings = (): Json => ({
    $schema: "https://json.schemastore.org/claude-code-settings.json",
    permissions: { allow: ["Bash(npm run lint)", "Bash(npm run test:*)"], deny: ["Read(./.env)"] },
    env: { NODE_ENV: "development" },
    enabledPlugins: { "hookify@claude-code-plugins": true },
    hooks: {
      Setup: [{ matcher: "init", hooks: [{ type: "command", command: "npm ci --silent", timeout: 300 }] }],
      SessionStart: [{ matcher: "startup|resume|clear|compact", hooks: [{ type: "command", command: "cat .claude/context.md" }] }],
      InstructionsLoaded: [{ matcher: "session_start", hooks: [{ type: "command", command: "echo loaded >> .claude/instructions.log" }] }],
      UserPromptExpansion: [{ matcher: "deploy", hooks: [{ type: "command", command: "test -f .approved || { echo 'needs approval' >&2; exit 2; }" }] }],
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }] }],
      PermissionDenied: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo denied >> .claude/denied.log" }] }],
      PostToolBatch: [{ hooks: [{ type: "command", command: "echo batch" }] }],
      TaskCreated: [{ hooks: [{ type: "command", command: "jq -e '.task_subject | test(\"^\\\\[T-\")' >/dev/null || exit 2" }] }],
      TaskCompleted: [{ hooks: [{ type: "command", command: "npm test --silent || exit 2" }] }],
      StopFailure: [{ matcher: "rate_limit|overloaded", hooks: [{ type: "command", command: "notify-send 'API error'" }] }],
      TeammateIdle: [{ hooks: [{ type: "command", command: "test -f dist/output.js || exit 2" }] }],
      ConfigChange: [{ matcher: "project_settings", hooks: [{ type: "command", command: "echo changed >> .claude/config.log" }] }],
      CwdChanged: [{ hooks: [{ type: "command", command: 'direnv export bash >> "$CLAUDE_ENV_FILE"' }] }],
      DirectoryAdded: [{ matcher: "slash_command", hooks: [{ type: "command", command: 'npm ci --prefix "$(jq -r .directory)"' }] }],
      FileChanged: [{ matcher: ".envrc|.env", hooks: [{ type: "command", command: 'direnv export bash >> "$CLAUDE_ENV_FILE"' }] }],
      WorktreeCreate: [{ hooks: [{ type: "command", command: "bash -c 'echo \"$HOME/wt/$(jq -r .name)\"'" }] }],
      WorktreeRemove: [{ hooks: [{ type: "command", command: "jq -r .worktree_path | xargs rm -rf" }] }],
      PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: 'cp "$(jq -r .transcript_path)" .claude/backup.jsonl' }] }],
      PostCompact: [{ matcher: "manual|auto", hooks: [{ type: "command", command: "jq -r .compact_summary >> .claude/summaries.md" }] }],
      PreModelSwitch: [{ matcher: "claude-opus-4-6", hooks: [{ type: "command", command: "echo 'Opus 4.6 is retired here' >&2; exit 2" }] }],
      PostModelSwitch: [{ hooks: [{ type: "command", command: 'echo "now on $(jq -r .to_model)"' }] }],
      MessageDisplay: [{ hooks: [{ type: "command", command: "cat >/dev/null" }] }],
      Elicitation: [{ matcher: "my-mcp-server", hooks: [{ type: "command", command: "echo '{}'" }] }],
      ElicitationResult: [{ matcher: "my-mcp-server", hooks: [{ type: "command", command: "true" }] }],
      Stop: [{ hooks: [{ type: "command", command: "npm run lint --silent" }] }],
      SessionEnd: [{ hooks: [{ type: "command", command: "echo bye >> .claude/sessions.log" }] }],
    },
  });

  it("a real .claude/settings.json that configures Setup registers every one of its events, with no warning", async () => {
    const settings = realClaudeSettings();
    const file = sb.file(".claude/settings.json", settings);
    const r = await sb.run(["hooks", "--settings", file, "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const listed = JSON.parse(r.stdout) as { hooks: Json[]; warnings: string[] };
    expect(listed.warnings).to.deep.equal([]);
    expect(listed.hooks.map((h) => h.event)).to.deep.equal(Object.keys(settings.hooks as Json));
  });

  it("an event qhooks does not know stays a warning for that entry; the others apply", async () => {
    const settings = realClaudeSettings();
    (settings.hooks as Json).PreModelSwtich = [group(undefined, "true")];
    const file = sb.file("settings.json", settings);
    const r = await sb.run(["hooks", "--settings", file, "--json"]);
    const listed = JSON.parse(r.stdout) as { hooks: Json[]; warnings: string[] };
    expect(listed.warnings).to.deep.equal([`${file}: hooks.PreModelSwtich: unknown event (did you mean PreModelSwitch?); its hooks are skipped`]);
    expect(listed.hooks).to.have.length(Object.keys(settings.hooks as Json).length - 1);
  });

  it("every event is accepted by qhooks run with the payload Claude Code documents for it", async () => {
    const results = await Promise.all(
      EVENT_NAMES.map(async (event) => ({ event, r: await sb.runEvent(event, { ...payloadFor(event), hook_event_name: event }, ["--no-log"]) })),
    );
    for (const { event, r } of results) {
      expect(r.code, `${event}: ${r.stderr}`).to.equal(0);
      expect(r.outcome, event).to.include({ event, decision: "none" });
    }
  });

  describe("match fields", () => {
    /** Runs `event` with `payload` against groups keyed by matcher; returns the matchers whose hook ran. */
    async function matched(event: string, payload: Json, matchers: string[]): Promise<string[]> {
      const groups = matchers.map((m) => group(m, { command: `echo ${JSON.stringify(m)} # ${m}`, name: m }));
      sb.userSettings({ hooks: { [event]: groups } });
      const outcome = await sb.bus({ watch: false }).dispatch({ ...payloadFor(event), ...payload, hook_event_name: event });
      return outcome.hooks.map((h) => h.name);
    }

    const cases: ReadonlyArray<readonly [event: string, payload: Json, hit: string, miss: string]> = [
      ["Setup", { trigger: "maintenance" }, "maintenance", "init"],
      ["InstructionsLoaded", { load_reason: "path_glob_match" }, "path_glob_match|nested_traversal", "session_start"],
      ["UserPromptExpansion", { command_name: "deploy" }, "deploy", "review"],
      ["PermissionDenied", { tool_name: "Bash" }, "Bash", "Write"],
      ["StopFailure", { error: "rate_limit" }, "rate_limit|overloaded", "server_error"],
      ["ConfigChange", { source: "project_settings" }, "project_settings", "user_settings"],
      ["DirectoryAdded", { source: "register_repo_root" }, "register_repo_root", "slash_command"],
      ["PostCompact", { trigger: "manual" }, "manual", "auto"],
      ["PreModelSwitch", { to_model: "claude-opus-5" }, "claude-opus-5", "claude-sonnet-5"],
      ["PostModelSwitch", { to_model: "claude-sonnet-5" }, ".*sonnet.*", "claude-opus-5"],
      ["Elicitation", { mcp_server_name: "github" }, "github", "gitlab"],
      ["ElicitationResult", { mcp_server_name: "github" }, "mcp_github|github", "gitlab"],
    ];
    for (const [event, payload, hit, miss] of cases) {
      it(`${event} matches ${JSON.stringify(Object.values(payload)[0])} against its matcher`, async () => {
        expect(await matched(event, payload, [hit, miss])).to.deep.equal([hit]);
      });
    }

    it("events without matcher support fire every hook whatever the matcher says", async () => {
      for (const event of [
        "PostToolBatch",
        "TaskCreated",
        "TaskCompleted",
        "TeammateIdle",
        "CwdChanged",
        "WorktreeCreate",
        "WorktreeRemove",
        "MessageDisplay",
      ]) {
        expect(await matched(event, {}, ["Bash", "nothing-like-this"]), event).to.deep.equal(["Bash", "nothing-like-this"]);
      }
    });

    it("FileChanged matches the changed file's name, not its path", async () => {
      expect(await matched("FileChanged", { file_path: "/p/app/.envrc" }, [".envrc|.env", "app", "^/p"])).to.deep.equal([".envrc|.env"]);
    });

    it("FileChanged and StopFailure read only letters, digits, _ and | as names: a - or , makes a regex, as in Claude Code", async () => {
      // On FileChanged `data-set` is a regex (it also matches `old-data-set`); on ConfigChange it is an exact name.
      expect(await matched("FileChanged", { file_path: "/p/old-data-set" }, ["data-set"])).to.deep.equal(["data-set"]);
      expect(await matched("ConfigChange", { source: "old-data-set" }, ["data-set"])).to.deep.equal([]);
      // On StopFailure `rate_limit,overloaded` is one regex, which `rate_limit` does not match; on ConfigChange, a list.
      expect(await matched("StopFailure", { error: "rate_limit" }, ["rate_limit,overloaded"])).to.deep.equal([]);
      expect(await matched("ConfigChange", { source: "skills" }, ["skills, user_settings"])).to.deep.equal(["skills, user_settings"]);
    });

    it("PreModelSwitch and PostModelSwitch ignore a [1m] suffix of to_model", async () => {
      expect(await matched("PreModelSwitch", { to_model: "claude-opus-5[1m]" }, ["claude-opus-5"])).to.deep.equal(["claude-opus-5"]);
      expect(await matched("PostModelSwitch", { to_model: "claude-opus-5[1m]" }, ["^claude-opus-5$"])).to.deep.equal(["^claude-opus-5$"]);
    });
  });

  describe("what each new event can decide", () => {
    const pre = (fields: Json) => ({ hookSpecificOutput: { hookEventName: "PreModelSwitch", ...fields } });

    it("PreModelSwitch: permissionDecision deny, ask and allow rank deny > ask > allow, with their reasons", async () => {
      const bus = busWith(
        sb,
        "PreModelSwitch",
        jsonHook(sb, pre({ permissionDecision: "allow" })),
        jsonHook(sb, pre({ permissionDecision: "ask", permissionDecisionReason: "re-sends 180k tokens" })),
      );
      const asked = await bus.dispatch({ ...payloadFor("PreModelSwitch"), hook_event_name: "PreModelSwitch" });
      expect(asked).to.include({ decision: "ask", blocked: false, reason: "re-sends 180k tokens" });

      const denyBus = busWith(
        sb,
        "PreModelSwitch",
        jsonHook(sb, pre({ permissionDecision: "ask" })),
        jsonHook(sb, pre({ permissionDecision: "deny", permissionDecisionReason: "retired" })),
      );
      const denied = await denyBus.dispatch({ ...payloadFor("PreModelSwitch"), hook_event_name: "PreModelSwitch" });
      expect(denied).to.include({ decision: "deny", blocked: true, reason: "retired" });
    });

    it("PreModelSwitch: a top-level decision block denies the switch, as Claude Code documents", async () => {
      const bus = busWith(sb, "PreModelSwitch", jsonHook(sb, { decision: "block", reason: "not in CI" }));
      const outcome = await bus.dispatch({ ...payloadFor("PreModelSwitch"), hook_event_name: "PreModelSwitch" });
      expect(outcome).to.include({ decision: "deny", blocked: true, reason: "not in CI" });
    });

    for (const event of [
      "UserPromptExpansion",
      "PostToolBatch",
      "TaskCreated",
      "TaskCompleted",
      "TeammateIdle",
      "ConfigChange",
      "WorktreeCreate",
      "Elicitation",
      "ElicitationResult",
    ]) {
      it(`${event}: a top-level decision block blocks, with its reason`, async () => {
        const bus = busWith(sb, event, jsonHook(sb, { decision: "block", reason: `no ${event}` }));
        const outcome = await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
        expect(outcome).to.include({ decision: "block", blocked: true, reason: `no ${event}` });
      });
    }

    for (const event of [
      "Setup",
      "InstructionsLoaded",
      "MessageDisplay",
      "PermissionDenied",
      "StopFailure",
      "CwdChanged",
      "DirectoryAdded",
      "FileChanged",
      "WorktreeRemove",
      "PostCompact",
      "PostModelSwitch",
    ]) {
      it(`${event} cannot be blocked: exit 2 is an error, a top-level decision is ignored with a warning`, async () => {
        const bus = busWith(sb, event, hookCommand(sb, { stderr: "stop\n", exit: 2 }), jsonHook(sb, { decision: "block", reason: "no" }));
        const outcome = await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
        expect(outcome).to.include({ decision: "none", blocked: false });
        expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["error", "success"]);
        expect(
          outcome.warnings.some((w) => w.includes(`decision (${event} cannot be blocked) ignored`)),
          outcome.warnings.join("\n"),
        ).to.equal(true);
      });
    }

    it("PostModelSwitch: plain stdout is context, as on SessionStart", async () => {
      const bus = busWith(sb, "PostModelSwitch", hookCommand(sb, { stdout: "Now on Opus: keep answers short.\n" }));
      const outcome = await bus.dispatch({ ...payloadFor("PostModelSwitch"), hook_event_name: "PostModelSwitch" });
      expect(outcome.additionalContext).to.deep.equal(["Now on Opus: keep answers short."]);
      expect(only(outcome).outcome).to.equal("success");
    });
  });
});
