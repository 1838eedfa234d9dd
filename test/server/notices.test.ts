import { expect } from "chai";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group } from "../support/sandbox.js";
import { bearer, post, startServer, type ForegroundServer } from "./serveSupport.js";

/**
 * What qhooks has to say while `qhooks serve` judges (its log not written, a hook that failed) reaches the person in
 * the http answer, as `qhooks run --format hook` says it: a `systemMessage`, once per session then counted, and
 * never a change to the decision. A real server on loopback, called as Claude Code calls it.
 */
describe("qhooks serve: warnings and failures reach the session", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let server: ForegroundServer | null;

  const event = (session: string, name: string, extra: Record<string, unknown> = {}) => ({
    session_id: session,
    transcript_path: "/tmp/t.jsonl",
    cwd: sb.project,
    hook_event_name: name,
    ...extra,
  });
  const bash = (session: string, command: string) => event(session, "PreToolUse", { tool_name: "Bash", tool_input: { command }, tool_use_id: "toolu_1" });
  const hook = (body: unknown) => post(server!.port, "/hook/claude", body as object, bearer(server!.token));

  beforeEach(() => {
    sb = new Sandbox();
    server = null;
    const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0`);
    const broken = sb.script("broken.sh", `cat >/dev/null; echo 'the guard broke' >&2; exit 1`);
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [group("Bash", guard), group("WebFetch", broken)], Stop: [group(undefined, guard)] },
    });
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sb.cleanup();
  });

  it("a log that cannot be opened: each session hears it once in a systemMessage, and every decision stays what it was", async () => {
    // A log path below a regular file: no process can create it.
    const blocker = sb.file("not-a-folder", "x");
    server = await startServer(sb, ["--port", "0"], { QHOOKS_DB: join(blocker, "events.db") });
    expect(server.stderr(), "serve.log still has it").to.match(/qhooks: warning: .*; events are judged but not logged/);

    const first = await hook(bash("s1", "rm -rf /tmp/x"));
    expect(first.status).to.equal(200);
    const answer = JSON.parse(first.body) as { hookSpecificOutput: unknown; systemMessage?: string };
    expect(answer.hookSpecificOutput, "the decision unchanged").to.deep.equal({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "no rm -rf here",
    });
    expect(answer.systemMessage).to.match(/^qhooks: warning: .*not-a-folder.*; events are judged but not logged$/);

    // Said once per session: the same session's next events carry the decision alone.
    const again = await hook(bash("s1", "rm -rf /tmp/y"));
    expect(JSON.parse(again.body)).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm -rf here" },
    });
    const allowed = await hook(bash("s1", "ls"));
    expect({ status: allowed.status, body: allowed.body }).to.deep.equal({ status: 200, body: "" });

    // Another session hears it too, on an event nothing blocks: the answer is the notice alone.
    const other = await hook(bash("s2", "ls"));
    expect(other.status).to.equal(200);
    expect(Object.keys(JSON.parse(other.body) as object)).to.deep.equal(["systemMessage"]);
    expect(JSON.parse(other.body).systemMessage).to.match(/events are judged but not logged/);

    // A blocked Stop without a log: the loop guard cannot count, and the session is told, the block kept.
    const stop = await hook({ ...event("s1", "Stop", { stop_hook_active: false, last_assistant_message: "rm -rf done" }) });
    const stopped = JSON.parse(stop.body) as { decision: string; reason: string; systemMessage?: string };
    expect({ decision: stopped.decision, reason: stopped.reason }).to.deep.equal({ decision: "block", reason: "no rm -rf here" });
    expect(stopped.systemMessage).to.equal(
      "qhooks: warning: Stop-loop guard is off without an event log: a Stop hook that always blocks can keep the agent going forever",
    );
  });

  it("a log that goes wrong while the server runs (its file removed): the session of the next event is told, the decision kept", async () => {
    server = await startServer(sb);
    expect((await hook(bash("s1", "rm -rf /tmp/x"))).body).to.not.include("systemMessage");
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${sb.db}${suffix}`, { force: true });
    const answer = JSON.parse((await hook(bash("s2", "rm -rf /tmp/y"))).body) as { hookSpecificOutput: { permissionDecision: string }; systemMessage?: string };
    expect(answer.hookSpecificOutput.permissionDecision).to.equal("deny");
    expect(answer.systemMessage).to.match(/^qhooks: warning: event log: the event log file .* was removed or replaced while in use; opened it again/);
  });

  it("a log whose key cannot sign its heads: said as `run` says it (its words, its count), the decisions kept", async () => {
    writeFileSync(`${sb.db}.key`, "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", { mode: 0o600 });
    server = await startServer(sb, ["--port", "0"], { QHOOKS_SIGN_EVERY: "1" });
    // The log says it once, with the event whose append found it; the server tells every session from then on.
    const first = JSON.parse((await hook(bash("s1", "ls"))).body) as { systemMessage?: string };
    expect(first.systemMessage).to.match(/^qhooks: event log: the log's heads are not signed: /);
    const said = JSON.parse((await hook(bash("s2", "rm -rf /tmp/x"))).body) as { hookSpecificOutput: { permissionDecision: string }; systemMessage?: string };
    expect(said.hookSpecificOutput.permissionDecision).to.equal("deny");
    expect(said.systemMessage).to.match(/^qhooks: event log: the log's heads are not signed: .*is not an Ed25519 private key/);
    expect(said.systemMessage, "one line, not a warning line beside it").to.not.include("\n");
    const next = JSON.parse((await hook(bash("s2", "rm -rf /tmp/y"))).body) as { systemMessage?: string };
    expect(next.systemMessage ?? "", "once a session").to.not.include("heads are not signed");
  });

  it("a failing hook: the http answer says it as `qhooks run --format hook` does, with the counter run keeps beside the log", async () => {
    server = await startServer(sb);
    const fetch = (session: string) => event(session, "PreToolUse", { tool_name: "WebFetch", tool_input: { url: "https://x" }, tool_use_id: "toolu_2" });
    const viaRun = await sb.run(["run", "PreToolUse", "--format", "hook", "--dialect", "claude"], {
      input: JSON.stringify(fetch("by-run")),
      env: { CLAUDE_PROJECT_DIR: sb.project, QHOOKS_NO_FORWARD: "1" },
    });
    expect(viaRun.code).to.equal(0);
    const viaServer = await hook(fetch("by-server"));
    expect(viaServer.body, "the same bytes as run's stdout").to.equal(viaRun.stdout.trim());
    expect(JSON.parse(viaServer.body).systemMessage).to.match(/^qhooks: hook "broken\.sh" failed \(exit 1: the guard broke/);

    // The count is the one `run` keeps: a session that began under `run` has already heard it.
    const later = await hook(fetch("by-run"));
    expect({ status: later.status, body: later.body }).to.deep.equal({ status: 200, body: "" });
  });
});
