import { expect } from "chai";
import type { HookBus, InProcessHook } from "../../src/engine/createHookBus.js";
import type { Payload } from "../../src/schema/events.js";
import type { HandlerVerdict } from "../../src/schema/hookOutput.js";
import { Sandbox } from "../support/sandbox.js";

/**
 * The types of `bus.use()`, checked by the compiler: this file is compiled with the rest of the tests (`npm run
 * build`), and each `@ts-expect-error` line fails the build the day what it says stops being an error. The function
 * below is never called (only named, so that it is not unused); the tests after it run handlers typed this way.
 */
function handlerTypesCompile(bus: HookBus): void {
  // The payload is the event's own: tool_name and tool_input for PreToolUse, prompt for UserPromptSubmit.
  bus.use("PreToolUse", "Bash", (payload) => {
    const tool: string | undefined = payload.tool_name;
    const input: Record<string, unknown> = payload.tool_input;
    const session: string = payload.session_id;
    return tool === "Bash" && String(input.command).includes("rm -rf") && session ? { decision: "deny", reason: "no" } : undefined;
  });
  bus.use("UserPromptSubmit", null, (payload) => {
    const prompt: string = payload.prompt;
    return prompt.includes("secret") ? { decision: "block", reason: "a secret" } : undefined;
  });
  // Async handlers, handlers with no return at all, and every field of the answer.
  bus.use("PreToolUse", null, async () => ({ decision: "allow", updatedInput: { command: "ls" }, additionalContext: "c", systemMessage: "m" }));
  bus.use("Stop", null, async () => {});
  bus.use("Stop", null, () => ({ continue: false, stopReason: "done" }));

  // @ts-expect-error: "nope" is no decision
  bus.use("PreToolUse", null, () => ({ decision: "nope" }));
  // @ts-expect-error: a reason is a string
  bus.use("PreToolUse", null, async () => ({ decision: "deny", reason: 42 }));
  // @ts-expect-error: updatedInput is an object of the tool's input
  bus.use("PreToolUse", null, () => ({ updatedInput: "ls" }));
  // @ts-expect-error: answers are objects (or undefined), not strings
  bus.use("PreToolUse", null, () => "deny");
  // @ts-expect-error: a Stop payload has no prompt of type string
  bus.use("Stop", null, (payload) => void (payload.prompt satisfies string));
  // @ts-expect-error: UserPromptSubmit's prompt is a string, not a number
  bus.use("UserPromptSubmit", null, (payload) => void (payload.prompt satisfies number));
  // @ts-expect-error: no such event
  bus.use("PreToolUze", null, () => undefined);

  // The types stand alone too: a handler written apart from its registration.
  const guard: InProcessHook<"PreToolUse"> = (p: Readonly<Payload<"PreToolUse">>): HandlerVerdict | undefined =>
    p.tool_name === "Bash" ? { decision: "ask" } : undefined;
  bus.use("PreToolUse", "Bash", guard);
  // @ts-expect-error: a PreToolUse handler is not one for UserPromptSubmit (its payload has no prompt)
  bus.use("UserPromptSubmit", null, guard satisfies InProcessHook<"UserPromptSubmit">);
}

describe("engine: typed in-process handlers", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  it("the compiler's checks above are part of the build", () => expect(handlerTypesCompile).to.be.a("function"));

  it("a handler typed by its event gets that event's payload and its answer decides", async () => {
    const bus = sb.bus({ watch: false });
    const seen: string[] = [];
    bus.use("UserPromptSubmit", null, (payload) => {
      seen.push(payload.prompt);
      return payload.prompt.includes("sk-") ? { decision: "block", reason: "a key in the prompt" } : undefined;
    });
    const outcome = await bus.dispatch({ session_id: "s1", hook_event_name: "UserPromptSubmit", prompt: "use sk-123" });
    expect(seen).to.deep.equal(["use sk-123"]);
    expect(outcome.decision).to.equal("block");
    expect(outcome.reason).to.equal("a key in the prompt");
  });

  it("a value the types forbid, returned anyway (JavaScript, a cast), is still that handler's invalid-output", async () => {
    const bus = sb.bus({ watch: false });
    bus.use("PreToolUse", null, () => ({ decision: "nope" }) as unknown as HandlerVerdict, { name: "untyped" });
    const outcome = await bus.dispatch({ session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    expect(outcome.decision).to.equal("none");
    expect(outcome.hooks[0]!.outcome).to.equal("invalid-output");
    expect(outcome.hooks[0]!.error).to.include("decision");
  });
});
