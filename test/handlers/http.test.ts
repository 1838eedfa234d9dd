import { expect } from "chai";
import type { HookResult } from "../../src/schema/outcome.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { deadPort, loopbackServer } from "./loopback.js";

type Json = Record<string, unknown>;

/** `type: "http"` hooks against real servers on loopback. */
describe("handlers: http hooks", () => {
  let sb: Sandbox;
  const closers: Array<() => Promise<void>> = [];
  beforeEach(() => (sb = new Sandbox()));
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
    await sb.cleanup();
  });

  const server = async (handle: Parameters<typeof loopbackServer>[0]) => {
    const s = await loopbackServer(handle);
    closers.push(s.close);
    return s;
  };
  const judge = async (event: string, handler: Json, env: Record<string, string> = {}) => {
    sb.userSettings({ hooks: { [event]: [{ hooks: [{ type: "http", ...handler }] }] } });
    const bus = sb.bus({ watch: false, env: sb.env(env) });
    return bus.dispatch({ ...payloadFor(event), hook_event_name: event });
  };
  const onlyHook = (hooks: readonly HookResult[]) => {
    expect(hooks).to.have.length(1);
    return hooks[0]!;
  };

  it("POSTs the payload as JSON; a 2xx body is read as the hook's JSON output (a deny with its reason)", async () => {
    const s = await server((_req, res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no shell today" } })),
    );
    const outcome = await judge("PreToolUse", { url: `${s.url}/hook` });
    expect(outcome.decision).to.equal("deny");
    expect(outcome.reason).to.equal("no shell today");
    expect(s.received).to.have.length(1);
    expect(s.received[0]!.method).to.equal("POST");
    expect(s.received[0]!.url).to.equal("/hook");
    expect(s.received[0]!.headers["content-type"]).to.equal("application/json");
    expect(JSON.parse(s.received[0]!.body)).to.include({ tool_name: "Bash", hook_event_name: "PreToolUse", session_id: "s1" });
    const hook = onlyHook(outcome.hooks);
    expect(hook.command).to.equal(`POST ${s.url}/hook`);
    expect(hook.outcome).to.equal("block");
  });

  it("an empty 2xx body is a success without a decision; plain text is context where stdout is", async () => {
    const s = await server((req, res) => res.writeHead(req.url === "/empty" ? 204 : 200).end(req.url === "/empty" ? undefined : "remember the style guide"));
    const empty = await judge("PreToolUse", { url: `${s.url}/empty` });
    expect(empty.decision).to.equal("none");
    expect(onlyHook(empty.hooks).outcome).to.equal("success");
    const context = await judge("UserPromptSubmit", { url: `${s.url}/text` });
    expect(context.additionalContext).to.deep.equal(["remember the style guide"]);
  });

  it("a non-2xx status is this hook's error with the status and the body's first line; the event is not blocked", async () => {
    const s = await server((_req, res) => res.writeHead(503).end("maintenance\nmore"));
    const outcome = await judge("PreToolUse", { url: s.url });
    expect(outcome.blocked).to.equal(false);
    const hook = onlyHook(outcome.hooks);
    expect(hook.outcome).to.equal("error");
    expect(hook.error).to.equal("HTTP 503: maintenance");
  });

  it("a 2xx answer of garbage JSON is invalid-output; a server that is down is an error naming the URL", async () => {
    const s = await server((_req, res) => res.writeHead(200).end("{not json"));
    const garbage = onlyHook((await judge("PreToolUse", { url: s.url })).hooks);
    expect(garbage.outcome).to.equal("invalid-output");
    expect(garbage.error).to.match(/^stdout starts with \{ but is not valid JSON/);
    const port = await deadPort();
    const down = onlyHook((await judge("PreToolUse", { url: `http://127.0.0.1:${port}/x` })).hooks);
    expect(down.outcome).to.equal("error");
    expect(down.error).to.equal(`could not reach http://127.0.0.1:${port}/x: ECONNREFUSED`);
  });

  it('onFailure: "block": a server that is down, a 500 and garbage each block, the failure as the reason', async () => {
    const port = await deadPort();
    const down = await judge("PreToolUse", { url: `http://127.0.0.1:${port}/`, onFailure: "block" });
    expect(down.decision).to.equal("deny");
    expect(down.reason).to.match(/^hook POST http:\/\/127\.0\.0\.1:\d+\/ failed and blocks on failure \(onFailure: "block"\): could not reach/);
    expect(onlyHook(down.hooks)).to.include({ outcome: "block", decision: "deny" });
    const s = await server((req, res) => (req.url === "/500" ? res.writeHead(500).end("boom") : res.writeHead(200).end("{x")));
    expect((await judge("Stop", { url: `${s.url}/500`, onFailure: "block" })).decision).to.equal("block");
    expect((await judge("Stop", { url: `${s.url}/garbage`, onFailure: "block" })).decision).to.equal("block");
  });

  it("the timeout holds: a server that never answers is a timeout after the hook's limit, and the request is dropped", async () => {
    const s = await server(() => undefined);
    const start = performance.now();
    const outcome = await judge("PreToolUse", { url: s.url, timeout: 0.5 });
    const hook = onlyHook(outcome.hooks);
    expect(hook.outcome).to.equal("timeout");
    expect(hook.timedOut).to.equal(true);
    expect(performance.now() - start).to.be.below(10_000);
  });

  it("headers: $VAR and ${VAR} expand only for names in allowedEnvVars; others expand to nothing", async () => {
    const s = await server((_req, res) => res.writeHead(200).end());
    await judge(
      "Stop",
      { url: s.url, headers: { Authorization: "Bearer $TOKEN", "X-Both": "${TOKEN}/$SECRET/${SECRET}" }, allowedEnvVars: ["TOKEN"] },
      { TOKEN: "t0k", SECRET: "hidden" },
    );
    expect(s.received[0]!.headers.authorization).to.equal("Bearer t0k");
    expect(s.received[0]!.headers["x-both"]).to.equal("t0k//");
  });

  it("redirects are followed within the same origin; one to another host (or port) is refused and never requested", async () => {
    const other = await server((_req, res) => res.writeHead(200).end(JSON.stringify({ decision: "block", reason: "from the other host" })));
    const s = await server((req, res) => {
      if (req.url === "/moved") res.writeHead(307, { location: "/final" }).end();
      else if (req.url === "/away") res.writeHead(302, { location: `${other.url}/steal` }).end();
      else res.writeHead(200).end(JSON.stringify({ decision: "block", reason: "followed" }));
    });
    const same = await judge("Stop", { url: `${s.url}/moved` });
    expect(same.reason).to.equal("followed");
    expect(s.received.map((r) => [r.method, r.url])).to.deep.equal([
      ["POST", "/moved"],
      ["POST", "/final"],
    ]);
    const away = await judge("Stop", { url: `${s.url}/away` });
    expect(away.blocked).to.equal(false);
    expect(onlyHook(away.hooks).error).to.equal(`HTTP 302 redirect to ${other.url} refused (redirects are followed within ${s.url} only)`);
    expect(other.received).to.have.length(0);
  });

  it("through the CLI: an http guard's deny is the outcome and exit 2", async () => {
    const s = await server((_req, res) => res.writeHead(200).end(JSON.stringify({ decision: "block", reason: "stop here" })));
    sb.userSettings({ hooks: { Stop: [{ hooks: [{ type: "http", url: s.url }] }] } });
    const r = await sb.runEvent("Stop", payloadFor("Stop"), ["--no-log"]);
    expect(r.code).to.equal(2);
    expect(r.outcome).to.include({ decision: "block", reason: "stop here" });
  });

  it("trust: a project's http hook runs only once trusted, and an edit of its headers asks for trust again", async () => {
    const s = await server((_req, res) => res.writeHead(200).end());
    sb.userSettings({ qhooks: { requireTrust: true } });
    const project = (headers: Json) => sb.projectSettings({ hooks: { Stop: [{ hooks: [{ type: "http", url: s.url, headers, allowedEnvVars: ["TOKEN"] }] }] } });
    project({ "X-Token": "$TOKEN" });
    const before = await sb.runEvent("Stop", payloadFor("Stop"), ["--no-log"]);
    expect((before.outcome!.skipped as Json[])[0]).to.include({ type: "http", reason: "untrusted", command: `POST ${s.url}` });
    expect(s.received).to.have.length(0);
    const t = await sb.run(["trust"]);
    expect(t.code, t.stderr).to.equal(0);
    await sb.runEvent("Stop", payloadFor("Stop"), ["--no-log"]);
    expect(s.received).to.have.length(1);
    project({ "X-Token": "$TOKEN", "X-Other": "$TOKEN" });
    const edited = await sb.runEvent("Stop", payloadFor("Stop"), ["--no-log"]);
    expect((edited.outcome!.skipped as Json[])[0]).to.include({ reason: "untrusted" });
    expect(s.received).to.have.length(1);
  });
});
