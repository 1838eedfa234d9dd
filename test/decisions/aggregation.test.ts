import { expect } from "chai";
import { readFileSync } from "node:fs";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { hookCommand, jsonHook, markerHook, settingsFor, withoutWarnings, type Json } from "./helpers.js";

/** Contract 3.3 end to end: real hooks at the three settings levels, one outcome. */
describe("decisions: aggregation of real hooks into one outcome", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const pre = (fields: Json) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } });
  const named = (name: string, command: string) => ({ name, command });

  function dispatch(event: string, extra: Json = {}) {
    return sb.bus({ watch: false }).dispatch({ ...payloadFor(event, extra), hook_event_name: event });
  }

  it("PreToolUse: deny wins over ask and allow; its reasons are joined in selection order (user, project, local)", async () => {
    sb.userSettings(
      settingsFor(
        "PreToolUse",
        named("u-allow", jsonHook(sb, pre({ permissionDecision: "allow", permissionDecisionReason: "allowed by user" }))),
        named("u-deny", hookCommand(sb, { stderr: "denied by user (exit 2)\n", exit: 2 })),
      ),
    );
    sb.projectSettings(settingsFor("PreToolUse", named("p-ask", jsonHook(sb, pre({ permissionDecision: "ask", permissionDecisionReason: "ask" })))));
    sb.localSettings(
      settingsFor("PreToolUse", named("l-deny", jsonHook(sb, pre({ permissionDecision: "deny", permissionDecisionReason: "denied by local (JSON)" })))),
    );
    const outcome = await dispatch("PreToolUse");
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "denied by user (exit 2)\ndenied by local (JSON)" });
    expect(outcome.hooks.map((h) => [h.name, h.level, h.decision])).to.deep.equal([
      ["u-allow", "user", "allow"],
      ["u-deny", "user", "deny"],
      ["p-ask", "project", "ask"],
      ["l-deny", "local", "deny"],
    ]);
  });

  it("PreToolUse: ask wins over allow", async () => {
    sb.userSettings(settingsFor("PreToolUse", jsonHook(sb, pre({ permissionDecision: "allow", permissionDecisionReason: "fine" }))));
    sb.localSettings(settingsFor("PreToolUse", jsonHook(sb, pre({ permissionDecision: "ask", permissionDecisionReason: "confirm" }))));
    const outcome = await dispatch("PreToolUse");
    expect(outcome).to.include({ decision: "ask", blocked: false, reason: "confirm" });
  });

  it("PreToolUse: allow wins over hooks that say nothing", async () => {
    sb.userSettings(settingsFor("PreToolUse", hookCommand(sb), jsonHook(sb, pre({ permissionDecision: "allow" })), hookCommand(sb, { exit: 1 })));
    const outcome = await dispatch("PreToolUse");
    expect(outcome).to.include({ decision: "allow", blocked: false });
  });

  it("PermissionRequest: deny wins over allow", async () => {
    const d = (decision: Json) => ({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });
    sb.userSettings(
      settingsFor(
        "PermissionRequest",
        jsonHook(sb, d({ behavior: "allow", updatedInput: { command: "ls" } })),
        jsonHook(sb, d({ behavior: "deny", message: "no" })),
        jsonHook(sb, d({ behavior: "allow" })),
      ),
    );
    const outcome = await dispatch("PermissionRequest");
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "no", updatedInput: null });
  });

  it("Stop: block wins over none; exit-2 and JSON reasons are both kept", async () => {
    sb.userSettings(settingsFor("Stop", hookCommand(sb), hookCommand(sb, { stderr: "tests are red\n", exit: 2 })));
    sb.projectSettings(settingsFor("Stop", jsonHook(sb, { decision: "block", reason: "lint is red" }), hookCommand(sb, { stdout: "ok\n" })));
    const outcome = await dispatch("Stop");
    expect(outcome).to.include({ decision: "block", blocked: true, reason: "tests are red\nlint is red" });
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["success", "block", "block", "success"]);
  });

  describe("updatedInput", () => {
    it("two levels rewrite differently: the local level's rewrite is refused beside the user's hook, with a warning naming both", async () => {
      sb.userSettings(settingsFor("PreToolUse", named("user-rewrite", jsonHook(sb, pre({ permissionDecision: "allow", updatedInput: { command: "ls -1" } })))));
      sb.localSettings(settingsFor("PreToolUse", named("local-rewrite", jsonHook(sb, pre({ updatedInput: { command: "ls -la" } })))));
      const outcome = await dispatch("PreToolUse");
      expect(outcome.updatedInput).to.deep.equal({ command: "ls -1" });
      expect(outcome.decision).to.equal("allow");
      const warning = outcome.warnings.find((w) => w.includes("user-rewrite") && w.includes("local-rewrite"));
      expect(warning, outcome.warnings.join("\n")).to.be.a("string");
    });

    it("identical rewrites give no warning", async () => {
      sb.userSettings(
        settingsFor("PreToolUse", jsonHook(sb, pre({ updatedInput: { command: "ls" } })), jsonHook(sb, pre({ updatedInput: { command: "ls" } }))),
      );
      const outcome = await dispatch("PreToolUse");
      expect(outcome.updatedInput).to.deep.equal({ command: "ls" });
      expect(outcome.warnings).to.deep.equal([]);
    });

    it("is dropped when the outcome is blocked", async () => {
      sb.userSettings(settingsFor("PreToolUse", jsonHook(sb, pre({ permissionDecision: "allow", updatedInput: { command: "ls" } }))));
      sb.projectSettings(settingsFor("PreToolUse", hookCommand(sb, { stderr: "no\n", exit: 2 })));
      const outcome = await dispatch("PreToolUse");
      expect(outcome).to.include({ decision: "deny", blocked: true, updatedInput: null });
    });
  });

  it("continue is false if any hook says so; stop reasons are joined", async () => {
    sb.userSettings(settingsFor("PostToolUse", jsonHook(sb, { continue: false, stopReason: "quota reached" }), hookCommand(sb)));
    sb.localSettings(settingsFor("PostToolUse", jsonHook(sb, { continue: false, stopReason: "maintenance window" }), jsonHook(sb, { continue: true })));
    const outcome = await dispatch("PostToolUse");
    expect(outcome).to.include({ continue: false, stopReason: "quota reached\nmaintenance window" });
  });

  it("every additional context and system message is kept, in selection order", async () => {
    sb.userSettings(settingsFor("UserPromptSubmit", hookCommand(sb, { stdout: "ctx from user text\n" }), jsonHook(sb, { systemMessage: "msg user" })));
    sb.projectSettings(
      settingsFor(
        "UserPromptSubmit",
        jsonHook(sb, { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx from project" }, systemMessage: "msg project" }),
      ),
    );
    sb.localSettings(settingsFor("UserPromptSubmit", hookCommand(sb, { stdout: "ctx from local\n" }), jsonHook(sb, { systemMessage: "msg local" })));
    const outcome = await dispatch("UserPromptSubmit");
    expect(outcome.additionalContext).to.deep.equal(["ctx from user text", "ctx from project", "ctx from local"]);
    expect(outcome.systemMessages).to.deep.equal(["msg user", "msg project", "msg local"]);
  });

  it("a block never cancels its siblings: every hook runs to the end and has its result", async () => {
    const slow = markerHook(sb, "slow");
    const slower = markerHook(sb, "slower");
    sb.userSettings(
      settingsFor(
        "PreToolUse",
        hookCommand(sb, { stderr: "instant no\n", exit: 2 }),
        `sleep 0.3; ${slow.command}; echo slow-done`,
        `sleep 0.5; ${slower.command}; exit 1`,
        jsonHook(sb, pre({ permissionDecision: "deny", permissionDecisionReason: "json no" })),
      ),
    );
    const outcome = await dispatch("PreToolUse");
    expect(outcome).to.include({ decision: "deny", blocked: true, reason: "instant no\njson no" });
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["block", "success", "error", "block"]);
    expect(outcome.hooks[1]!.stdout).to.equal("slow-done\n");
    expect(slow.ran() && slower.ran()).to.equal(true);
    expect(readFileSync(slower.path, "utf8")).to.equal("ran\n");
  });

  it("through the CLI: two --settings files, reasons joined on stderr, exit 2", async () => {
    const a = sb.file("a.json", settingsFor("SubagentStop", hookCommand(sb, { stderr: "reason A\n", exit: 2 })));
    const b = sb.file("b.json", settingsFor("SubagentStop", jsonHook(sb, { decision: "block", reason: "reason B" }), hookCommand(sb)));
    const r = await sb.runEvent("SubagentStop", payloadFor("SubagentStop"), ["--settings", a, "--settings", b, "--no-log"]);
    expect(r.code).to.equal(2);
    expect(withoutWarnings(r.stderr).trim()).to.equal("reason A\nreason B");
    expect(r.outcome).to.include({ decision: "block", blocked: true, reason: "reason A\nreason B" });
    expect((r.outcome!.hooks as { level: string }[]).map((h) => h.level)).to.deep.equal([a, b, b]);
  });
});
