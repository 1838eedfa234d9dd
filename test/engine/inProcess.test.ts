import { expect } from "chai";
import type { HookBus } from "../../src/engine/createHookBus.js";
import type { HookResult } from "../../src/schema/outcome.js";
import { hookCommand, markerHook, settingsFor } from "../decisions/helpers.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/** Contract 6 and 8 ("In-process handlers"): `bus.use()` handlers, judged like command hooks. */
describe("engine: in-process handlers", () => {
  let sb: Sandbox;
  let bus: HookBus;
  beforeEach(() => {
    sb = new Sandbox();
    bus = sb.bus({ watch: false });
  });
  afterEach(() => sb.cleanup());

  const payload = (event: string, extra: Record<string, unknown> = {}) => ({ ...payloadFor(event, extra), hook_event_name: event });
  const onlyHook = (hooks: readonly HookResult[]): HookResult => {
    expect(hooks).to.have.length(1);
    return hooks[0]!;
  };

  describe("matching, as for command hooks", () => {
    it("a tool-name matcher: exact names, lists, regexes, and * / null for everything", async () => {
      const calls: string[] = [];
      const record = (label: string) => (p: Readonly<Record<string, unknown>>) => void calls.push(`${label}:${String(p.tool_name)}`);
      bus.use("PreToolUse", "Bash", record("exact"));
      bus.use("PreToolUse", "Write|Edit", record("list"));
      bus.use("PreToolUse", "mcp__.*", record("regex"));
      bus.use("PreToolUse", "*", record("star"));
      bus.use("PreToolUse", null, record("null"));
      bus.use("PostToolUse", "Bash", record("other-event"));
      for (const tool of ["Bash", "Edit", "NotebookEdit", "mcp__github__create_issue", "bash"]) {
        await bus.dispatch(payload("PreToolUse", { tool_name: tool }));
      }
      expect(calls.filter((c) => c.startsWith("exact"))).to.deep.equal(["exact:Bash"]);
      expect(calls.filter((c) => c.startsWith("list"))).to.deep.equal(["list:Edit"]);
      expect(calls.filter((c) => c.startsWith("regex"))).to.deep.equal(["regex:mcp__github__create_issue"]);
      expect(calls.filter((c) => c.startsWith("star"))).to.have.length(5);
      expect(calls.filter((c) => c.startsWith("null"))).to.have.length(5);
      expect(calls.filter((c) => c.startsWith("other-event"))).to.deep.equal([]);
    });

    it("Stop and UserPromptSubmit ignore the matcher; other events match their own field", async () => {
      const calls: string[] = [];
      bus.use("Stop", "Bash", () => void calls.push("stop"));
      bus.use("UserPromptSubmit", "NoSuchThing", () => void calls.push("prompt"));
      bus.use("Notification", "idle_prompt", () => void calls.push("idle"));
      bus.use("SessionStart", "resume", () => void calls.push("resume"));
      await bus.dispatch(payload("Stop"));
      await bus.dispatch(payload("UserPromptSubmit"));
      await bus.dispatch(payload("Notification", { notification_type: "permission" }));
      await bus.dispatch(payload("Notification", { notification_type: "idle_prompt" }));
      await bus.dispatch(payload("SessionStart", { source: "startup" }));
      expect(calls).to.deep.equal(["stop", "prompt", "idle"]);
    });

    it("the handler receives the payload with missing common fields filled in and unknown fields kept", async () => {
      let seen: Readonly<Record<string, unknown>> | null = null;
      bus.use("Stop", undefined, (p) => void (seen = p));
      const sent = JSON.parse('{"session_id":"s9","hook_event_name":"Stop","__proto__":{"x":1},"extra":[1,"ü"]}') as object;
      await bus.dispatch(sent);
      expect(seen).not.to.equal(null);
      const got = seen as unknown as Record<string, unknown>;
      expect(got).to.include({ session_id: "s9", hook_event_name: "Stop", stop_hook_active: false });
      expect(got.cwd).to.be.a("string");
      expect(got.extra).to.deep.equal([1, "ü"]);
      expect(Object.keys(got)).to.include("__proto__");
      expect(JSON.stringify(Object.getOwnPropertyDescriptor(got, "__proto__")!.value)).to.equal('{"x":1}');
    });
  });

  describe("decisions, mapped to the event's vocabulary", () => {
    const cases: ReadonlyArray<readonly [string, string, string | null]> = [
      ["Stop", "deny", "block"],
      ["Stop", "block", "block"],
      ["Stop", "allow", null],
      ["Stop", "ask", null],
      ["SubagentStop", "deny", "block"],
      ["PostToolUse", "deny", "block"],
      ["UserPromptSubmit", "block", "block"],
      ["PreToolUse", "block", "deny"],
      ["PreToolUse", "deny", "deny"],
      ["PreToolUse", "ask", "ask"],
      ["PreToolUse", "allow", "allow"],
      ["PermissionRequest", "block", "deny"],
      ["PermissionRequest", "allow", "allow"],
      ["PermissionRequest", "ask", null],
      ["SessionStart", "allow", null],
      ["Notification", "ask", null],
    ];
    for (const [event, said, mapped] of cases) {
      it(`${event}: "${said}" ${mapped ? `is ${mapped}` : "is ignored with a warning"}`, async () => {
        bus.use(event as never, null, () => ({ decision: said as "allow", reason: `because ${said}` }));
        const outcome = await bus.dispatch(payload(event));
        const hook = onlyHook(outcome.hooks);
        if (mapped) {
          const blocking = mapped === "deny" || mapped === "block";
          expect(outcome).to.include({ decision: mapped, blocked: blocking, reason: `because ${said}` });
          expect(hook).to.include({ outcome: blocking ? "block" : "success", decision: mapped });
          expect(outcome.warnings.filter((w) => w.includes(hook.name))).to.deep.equal([]);
        } else {
          expect(outcome).to.include({ decision: "none", blocked: false, reason: null });
          expect(hook).to.include({ outcome: "success", decision: "none" });
          expect(
            outcome.warnings.some((w) => w.includes(said) && w.includes(hook.name)),
            outcome.warnings.join("\n"),
          ).to.equal(true);
        }
      });
    }

    it("a block without a reason gets the default reason naming the handler", async () => {
      bus.use("Stop", null, () => ({ decision: "block" }), { name: "tests-must-pass" });
      const outcome = await bus.dispatch(payload("Stop"));
      expect(outcome.reason).to.equal("blocked by hook tests-must-pass (no reason given)");
    });

    it("the other fields: updatedInput, additionalContext, systemMessage, continue, stopReason", async () => {
      bus.use("PreToolUse", "Bash", async () => ({
        decision: "allow",
        updatedInput: { command: "ls -1" },
        additionalContext: "ctx",
        systemMessage: "msg",
        continue: false,
        stopReason: "done for today",
      }));
      const outcome = await bus.dispatch(payload("PreToolUse"));
      expect(outcome).to.deep.include({
        decision: "allow",
        updatedInput: { command: "ls -1" },
        additionalContext: ["ctx"],
        systemMessages: ["msg"],
        continue: false,
        stopReason: "done for today",
      });
    });

    it("undefined means no opinion", async () => {
      bus.use("PreToolUse", null, () => undefined);
      bus.use("PreToolUse", null, async () => undefined);
      const outcome = await bus.dispatch(payload("PreToolUse"));
      expect(outcome).to.include({ decision: "none", blocked: false });
      expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["success", "success"]);
    });
  });

  describe("failures", () => {
    it("a thrown error or a rejected promise is a non-blocking error", async () => {
      bus.use("PreToolUse", null, () => {
        throw new Error("sync failure in handler");
      });
      bus.use("PreToolUse", null, async () => {
        throw new Error("async failure in handler");
      });
      const outcome = await bus.dispatch(payload("PreToolUse"));
      expect(outcome).to.include({ decision: "none", blocked: false });
      expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["error", "error"]);
      expect(outcome.hooks[0]!.error).to.include("sync failure in handler");
      expect(outcome.hooks[1]!.error).to.include("async failure in handler");
    });

    it("a handler that hangs past its timeout is a timeout, and its siblings still decide", async () => {
      const marker = markerHook(sb);
      sb.userSettings(settingsFor("PreToolUse", hookCommand(sb, { stderr: "denied by command\n", exit: 2 }), marker.command));
      const fresh = sb.bus({ watch: false });
      fresh.use("PreToolUse", null, () => new Promise(() => undefined), { name: "hangs", timeout: 0.2 });
      const outcome = await fresh.dispatch(payload("PreToolUse"));
      const hung = outcome.hooks.find((h) => h.name === "hangs")!;
      expect(hung).to.include({ outcome: "timeout", timedOut: true, decision: "none", command: null, exitCode: null });
      expect(outcome).to.include({ decision: "deny", blocked: true, reason: "denied by command" });
      expect(marker.ran()).to.equal(true);
    });

    const invalid: ReadonlyArray<readonly [string, unknown]> = [
      ["a number", 42],
      ["a string", "deny"],
      ["an unknown decision", { decision: "maybe" }],
      ["a non-string reason", { decision: "deny", reason: 5 }],
      ["an array updatedInput", { updatedInput: ["ls"] }],
      ["a non-boolean continue", { continue: "no" }],
    ];
    for (const [what, value] of invalid) {
      it(`returning ${what} is invalid-output, with no effect`, async () => {
        // What a JavaScript caller, unchecked by the compiler, can return.
        bus.use("PreToolUse", null, () => value as never);
        const outcome = await bus.dispatch(payload("PreToolUse"));
        const hook = onlyHook(outcome.hooks);
        expect(hook.outcome).to.equal("invalid-output");
        expect(hook.error).to.be.a("string").and.not.equal("");
        expect(outcome).to.include({ decision: "none", blocked: false, continue: true, updatedInput: null });
      });
    }
  });

  describe("in the outcome", () => {
    it("command: null, exitCode: null, default names in-process:<event>#<n>, or the given name", async () => {
      bus.use("PreToolUse", null, () => undefined);
      bus.use("Stop", null, () => undefined);
      bus.use("PreToolUse", "Bash", () => undefined);
      bus.use("PreToolUse", null, () => undefined, { name: "my-guard" });
      const pre = await bus.dispatch(payload("PreToolUse"));
      expect(pre.hooks.map((h) => h.name)).to.deep.equal(["in-process:PreToolUse#1", "in-process:PreToolUse#2", "my-guard"]);
      for (const h of pre.hooks) expect(h).to.include({ command: null, exitCode: null, signal: null, timedOut: false });
      expect(pre.hooks[1]!.matcher).to.equal("Bash");
      const stop = await bus.dispatch(payload("Stop"));
      expect(stop.hooks.map((h) => h.name)).to.deep.equal(["in-process:Stop#1"]);
    });

    it("in-process and command hooks aggregate together", async () => {
      sb.userSettings(settingsFor("PreToolUse", hookCommand(sb, { stderr: "command says no\n", exit: 2 }), hookCommand(sb, { stdout: "{}" })));
      const mixed = sb.bus({ watch: false });
      mixed.use("PreToolUse", "Bash", () => ({ decision: "deny", reason: "handler says no", updatedInput: { command: "x" } }));
      mixed.use("PreToolUse", "Bash", () => ({ decision: "allow", updatedInput: { command: "y" }, systemMessage: "from handler" }));
      const outcome = await mixed.dispatch(payload("PreToolUse"));
      expect(outcome.hooks).to.have.length(4);
      expect(outcome.hooks.filter((h) => h.command === null)).to.have.length(2);
      expect(outcome).to.include({ decision: "deny", blocked: true, updatedInput: null });
      expect(outcome.reason!.split("\n").sort()).to.deep.equal(["command says no", "handler says no"]);
      expect(outcome.systemMessages).to.deep.equal(["from handler"]);
    });

    it("an in-process allow and a command ask: ask wins", async () => {
      sb.userSettings(
        settingsFor(
          "PreToolUse",
          hookCommand(sb, { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } }) }),
        ),
      );
      const mixed = sb.bus({ watch: false });
      mixed.use("PreToolUse", null, () => ({ decision: "allow", reason: "ok by me" }));
      const outcome = await mixed.dispatch(payload("PreToolUse"));
      expect(outcome.decision).to.equal("ask");
    });
  });

  it("the function returned by use() unregisters the handler, and only that one", async () => {
    const calls: string[] = [];
    const removeA = bus.use("Stop", null, () => void calls.push("a"));
    bus.use("Stop", null, () => void calls.push("b"));
    await bus.dispatch(payload("Stop"));
    removeA();
    removeA();
    const outcome = await bus.dispatch(payload("Stop"));
    expect(calls).to.deep.equal(["a", "b", "b"]);
    expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["in-process:Stop#2"]);
  });

  it("warnings about ignored decisions also reach warnings$", async () => {
    const warnings: string[] = [];
    bus.warnings$.subscribe((w) => warnings.push(w));
    bus.use("Stop", null, () => ({ decision: "allow" }), { name: "confused" });
    await bus.dispatch(payload("Stop"));
    expect(warnings.some((w) => w.includes("confused") && w.includes("allow"))).to.equal(true, warnings.join("\n"));
  });
});
