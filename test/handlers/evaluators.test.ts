import { expect } from "chai";
import type { EvaluatorRequest, McpToolRequest } from "../../src/core/services.js";
import type { HookResult } from "../../src/schema/outcome.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { loopbackServer } from "./loopback.js";

type Json = Record<string, unknown>;

/** `prompt`, `agent` and `mcp_tool` hooks: judged by what the embedder lends, skipped (and said) without it. */
describe("handlers: prompt, agent and mcp_tool hooks", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const settings = (event: string, ...handlers: Json[]) => sb.userSettings({ hooks: { [event]: [{ hooks: handlers }] } });
  const dispatch = (bus: ReturnType<Sandbox["bus"]>, event: string) => bus.dispatch({ ...payloadFor(event), hook_event_name: event });
  const onlyHook = (hooks: readonly HookResult[]) => {
    expect(hooks).to.have.length(1);
    return hooks[0]!;
  };

  it("an evaluator's { ok: false, reason } blocks; it gets the prompt with $ARGUMENTS as the event's JSON, the model and the event", async () => {
    const seen: EvaluatorRequest[] = [];
    settings("PreToolUse", { type: "prompt", prompt: "Is this safe? $ARGUMENTS", model: "small", name: "judge" });
    const bus = sb.bus({ watch: false, evaluator: (r) => (seen.push(r), { ok: false, reason: "rm is never safe" }) });
    const outcome = await dispatch(bus, "PreToolUse");
    expect(outcome.decision).to.equal("deny");
    expect(outcome.reason).to.equal("rm is never safe");
    expect(seen).to.have.length(1);
    expect(seen[0]!).to.include({ type: "prompt", model: "small", event: "PreToolUse", hookName: "judge" });
    expect(seen[0]!.prompt).to.match(/^Is this safe\? \{.*"tool_name":"Bash".*\}$/);
    expect(onlyHook(outcome.hooks)).to.include({ outcome: "block", command: "prompt: Is this safe? $ARGUMENTS" });
  });

  it("{ ok: true } and the engine's own vocabulary (systemMessage) are read like an in-process handler's answer; agent hooks too", async () => {
    settings("Stop", { type: "agent", prompt: "Are the tests green?" });
    const bus = sb.bus({ watch: false, evaluator: async (r) => (r.type === "agent" ? { ok: true, systemMessage: "tests checked" } : null) });
    const outcome = await dispatch(bus, "Stop");
    expect(outcome.blocked).to.equal(false);
    expect(outcome.systemMessages).to.deep.equal(["tests checked"]);
  });

  it("an evaluator that throws is this hook's error; one that hangs is a timeout, its signal aborted; the event stands", async () => {
    settings("PreToolUse", { type: "prompt", prompt: "throw", name: "thrower" }, { type: "prompt", prompt: "hang", name: "hanger", timeout: 0.3 });
    let aborted = false;
    const bus = sb.bus({
      watch: false,
      evaluator: (r) => {
        if (r.prompt.startsWith("throw")) throw new Error("model unavailable");
        return new Promise(() => r.signal.addEventListener("abort", () => (aborted = true)));
      },
    });
    const outcome = await dispatch(bus, "PreToolUse");
    expect(outcome.decision).to.equal("none");
    const [thrower, hanger] = outcome.hooks;
    expect(thrower).to.include({ outcome: "error", error: "threw: model unavailable" });
    expect(hanger).to.include({ outcome: "timeout", timedOut: true });
    expect(aborted).to.equal(true);
  });

  it('with onFailure: "block", an evaluator that throws or hangs blocks', async () => {
    settings("Stop", { type: "prompt", prompt: "throw", onFailure: "block" }, { type: "prompt", prompt: "hang", onFailure: "block", timeout: 0.2 });
    const bus = sb.bus({ watch: false, evaluator: (r) => (r.prompt.startsWith("throw") ? Promise.reject(new Error("no")) : new Promise(() => undefined)) });
    const outcome = await dispatch(bus, "Stop");
    expect(outcome.decision).to.equal("block");
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["block", "block"]);
    expect(outcome.reason).to.contain("threw: no").and.to.contain("timed out after 0.2 s");
  });

  it("without an evaluator: listed in skipped (no-evaluator) with one warning each; without an MCP caller, mcp_tool likewise", async () => {
    settings("PreToolUse", { type: "prompt", prompt: "p" }, { type: "mcp_tool", server: "guard", tool: "check" }, { type: "command", command: "true" });
    const bus = sb.bus({ watch: false });
    const outcome = await dispatch(bus, "PreToolUse");
    expect(outcome.hooks.map((h) => h.command)).to.deep.equal(["true"]);
    expect(outcome.skipped.map((s) => [s.type, s.reason, s.command])).to.deep.equal([
      ["prompt", "no-evaluator", "prompt: p"],
      ["mcp_tool", "no-mcp-caller", "mcp_tool guard/check"],
    ]);
    expect(outcome.warnings).to.deep.equal([
      "hook prompt: p did not run: no evaluator for prompt hooks (an embedding agent passes one to createHookBus; the CLI reads QHOOKS_EVALUATOR_URL)",
      "hook mcp_tool guard/check did not run: no MCP tool caller (only an embedding agent can give one, to createHookBus)",
    ]);
  });

  it("an MCP caller gets the server, the tool and the input (the payload by default); its answer decides", async () => {
    settings("PreToolUse", { type: "mcp_tool", server: "guard", tool: "check" }, { type: "mcp_tool", server: "guard", tool: "log", input: { level: "info" } });
    const calls: McpToolRequest[] = [];
    const bus = sb.bus({ watch: false, mcpToolCaller: (r) => (calls.push(r), r.tool === "check" ? { decision: "deny", reason: "policy" } : undefined) });
    const outcome = await dispatch(bus, "PreToolUse");
    expect(outcome.decision).to.equal("deny");
    expect(calls.map((c) => [c.server, c.tool])).to.deep.equal([
      ["guard", "check"],
      ["guard", "log"],
    ]);
    expect(calls[0]!.input).to.include({ tool_name: "Bash" });
    expect(calls[1]!.input).to.deep.equal({ level: "info" });
  });

  describe("the CLI's evaluator: an OpenAI-compatible chat endpoint (QHOOKS_EVALUATOR_URL)", () => {
    it("asks the endpoint with the model and the prompt, and reads the JSON answer in the message", async () => {
      const chat = await loopbackServer((_req, res) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ choices: [{ message: { role: "assistant", content: '```json\n{"ok": false, "reason": "looks destructive"}\n```' } }] })),
      );
      try {
        settings("PreToolUse", { type: "prompt", prompt: "Judge: $ARGUMENTS" });
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"], {
          QHOOKS_EVALUATOR_URL: `${chat.url}/v1`,
          QHOOKS_EVALUATOR_MODEL: "tiny",
          QHOOKS_EVALUATOR_API_KEY: "k1",
        });
        expect(r.code).to.equal(2);
        expect(r.outcome).to.include({ decision: "deny", reason: "looks destructive" });
        expect(chat.received).to.have.length(1);
        expect(chat.received[0]!.url).to.equal("/v1/chat/completions");
        expect(chat.received[0]!.headers.authorization).to.equal("Bearer k1");
        const body = JSON.parse(chat.received[0]!.body) as { model: string; messages: Array<{ role: string; content: string }> };
        expect(body.model).to.equal("tiny");
        expect(body.messages.at(-1)!.content).to.match(/^Judge: \{.*"tool_name":"Bash"/);
      } finally {
        await chat.close();
      }
    });

    it("$ARGUMENTS is the event's JSON as plain text: $', $`, $& and $1 in the payload are not replacement patterns", async () => {
      const chat = await loopbackServer((_req, res) => res.writeHead(200).end(JSON.stringify({ choices: [{ message: { content: '{"ok": true}' } }] })));
      try {
        settings("PreToolUse", { type: "prompt", prompt: "Judge <<$ARGUMENTS>> strictly" });
        const command = 'echo "$\'" "$`" "$&" $1 $$ && rm -rf /';
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command } }), ["--no-log"], { QHOOKS_EVALUATOR_URL: chat.url });
        expect(r.code, r.stderr).to.equal(0);
        const body = JSON.parse(chat.received[0]!.body) as { messages: Array<{ content: string }> };
        const prompt = body.messages.at(-1)!.content;
        const judged = /^Judge <<(.*)>> strictly$/s.exec(prompt);
        expect(judged, prompt).to.not.equal(null);
        expect((JSON.parse(judged![1]!) as { tool_input: { command: string } }).tool_input.command).to.equal(command);
      } finally {
        await chat.close();
      }
    });

    it('an answer whose ok is not true or false is invalid (onFailure: "block" blocks); ok: false always blocks', async () => {
      const answers: Record<string, string> = {
        A: '{"ok": "false", "reason": "looks bad"}',
        B: '{"ok": 0}',
        C: '{"ok": null}',
        D: "{}",
        E: '{"ok": "false"}',
        F: '{"ok": false, "decision": "allow", "reason": "no"}',
        G: '{"ok": false, "reason": 5}',
      };
      const chat = await loopbackServer((req, res) => {
        const prompt = (JSON.parse(req.body) as { messages: Array<{ content: string }> }).messages.at(-1)!.content;
        res.writeHead(200).end(JSON.stringify({ choices: [{ message: { content: answers[prompt.slice(5, 6)] } }] }));
      });
      try {
        const hook = (c: string, onFailure?: string) => ({ type: "prompt", prompt: `case ${c}: $ARGUMENTS`, name: c, ...(onFailure ? { onFailure } : {}) });
        settings("PreToolUse", hook("A", "block"), hook("B", "block"), hook("C", "block"), hook("D", "block"), hook("E"), hook("F"), hook("G"));
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"], { QHOOKS_EVALUATOR_URL: chat.url });
        expect(r.code, r.stderr).to.equal(2);
        expect(r.outcome).to.include({ decision: "deny", blocked: true });
        const hooks = r.outcome!.hooks as HookResult[];
        expect(hooks.map((h) => [h.name, h.outcome])).to.deep.equal([
          ["A", "block"],
          ["B", "block"],
          ["C", "block"],
          ["D", "block"],
          ["E", "invalid-output"],
          ["F", "block"],
          ["G", "block"],
        ]);
        expect(hooks[0]!.error).to.equal('returned an answer whose "ok" is "false", not true or false');
        expect(hooks[1]!.error).to.equal('returned an answer whose "ok" is 0, not true or false');
        expect(hooks[2]!.error).to.equal('returned an answer whose "ok" is null, not true or false');
        expect(hooks[3]!.error).to.equal('threw: evaluator answered "{}", without "ok": true or false');
        expect(hooks[4]!).to.include({ decision: "none", error: 'returned an answer whose "ok" is "false", not true or false' });
        expect(hooks[5]!).to.include({ decision: "deny", reason: "no" });
        expect(hooks[6]!).to.include({ decision: "deny", reason: "blocked by hook G (no reason given)" });
      } finally {
        await chat.close();
      }
    });

    it("an endpoint answering garbage is the hook's error, not the event's; without QHOOKS_EVALUATOR_URL the hook is skipped with a warning", async () => {
      const chat = await loopbackServer((_req, res) => res.writeHead(200).end(JSON.stringify({ choices: [{ message: { content: "I think it is fine" } }] })));
      try {
        settings("PreToolUse", { type: "prompt", prompt: "p" });
        const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"], { QHOOKS_EVALUATOR_URL: chat.url });
        expect(r.code).to.equal(0);
        const hook = (r.outcome!.hooks as HookResult[])[0]!;
        expect(hook.outcome).to.equal("error");
        expect(hook.error).to.equal('threw: evaluator answered "I think it is fine", not a JSON object');
        const none = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
        expect(none.code).to.equal(0);
        expect((none.outcome!.skipped as Json[])[0]).to.include({ reason: "no-evaluator", type: "prompt" });
        expect(none.stderr).to.contain("hook prompt: p did not run: no evaluator for prompt hooks");
      } finally {
        await chat.close();
      }
    });
  });
});
