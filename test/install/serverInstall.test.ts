import { expect } from "chai";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMAND_ONLY_EVENTS, MIN_CLAUDE_VERSION, checkHostVersion, failsClosed } from "../../src/install/serverEntries.js";
import type { EventName } from "../../src/schema/events.js";
import { Sandbox, group } from "../support/sandbox.js";
import { post, tokenOf } from "../server/serveSupport.js";
import { isAlive, waitFor } from "../exec/processes.js";
import { sh } from "../support/shell.js";

type Handler = Record<string, unknown> & { type: string; url?: string; headers?: Record<string, string>; allowedEnvVars?: string[]; command?: string };

/** A header value as Claude Code fills it: `$VAR` and `${VAR}` from the environment for the allowed names only, else "". */
const interpolate = (value: string, allowed: readonly string[], env: Record<string, string>): string =>
  value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    return allowed.includes(name) ? (env[name] ?? "") : "";
  });

/**
 * `qhooks install claude --server` on a fresh HOME: the real server started by `serve --ensure`, the drop-in in a
 * temporary managed folder, events posted as Claude Code posts an http hook, and uninstall.
 */
describe("install claude --server: http entries calling the running server", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let managed: string;
  let env: Record<string, string>;
  beforeEach(() => {
    sb = new Sandbox();
    managed = join(sb.root, "managed");
    mkdirSync(managed);
    env = { QHOOKS_CLAUDE_MANAGED_DIR: managed };
  });
  afterEach(async () => {
    await sb.run(["serve", "--stop"]);
    await sb.cleanup();
  });

  const dropIn = () => join(managed, "managed-settings.d", "50-qhooks.json");
  const run = (args: string[], extra: Record<string, string> = {}) => sb.run(args, { env: { ...env, ...extra } });

  it("refuses without a running server, for --scope user, and for qoder; nothing is written", async () => {
    const none = await run(["install", "claude", "--server"]);
    expect(none.code).to.not.equal(0);
    expect(none.stderr).to.match(/no qhooks server answers .*qhooks serve --ensure/);
    const started = await run(["serve", "--ensure"]);
    expect(started.code, started.stderr).to.equal(0);
    const user = await run(["install", "claude", "--server", "--scope", "user"]);
    expect(user.stderr).to.match(/--server needs --scope managed/);
    const qoder = await run(["install", "qoder", "--server"]);
    expect(qoder.stderr).to.match(/--server is for Claude Code/);
    expect(readdirSync(managed)).to.deep.equal([]);
    expect(existsSync(join(sb.home, ".claude"))).to.equal(false);
  });

  it("writes http entries with the fail policy per event, a SessionStart that ensures the server; an event posted as Claude Code posts it is judged; uninstall removes it all", async () => {
    const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0`);
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", guard)] } });
    const ensured = await run(["serve", "--ensure", "--json"]);
    expect(ensured.code, ensured.stderr).to.equal(0);
    const { url } = JSON.parse(ensured.stdout) as { url: string };
    const token = tokenOf(sb);

    const dry = await run(["install", "claude", "--server", "--dry-run"]);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include(`"url": "${url}/hook/claude"`).and.include("(dry run: nothing was written");
    expect(readdirSync(managed)).to.deep.equal([]);

    const installed = await run(["install", "claude", "--server"]);
    expect(installed.code, installed.stderr).to.equal(0);
    expect(installed.stdout).to.include(`POST ${url}/hook/claude`).and.include("QHOOKS_SERVER_TOKEN, which is not set here");
    expect(installed.stdout, "the secret itself is never printed").to.not.include(token);
    const text = readFileSync(dropIn(), "utf8");
    expect(text, "the secret is not in a file every user reads").to.not.include(token);
    const document = JSON.parse(text) as { allowManagedHooksOnly: boolean; hooks: Record<string, { hooks: Handler[] }[]> };
    expect(document.allowManagedHooksOnly).to.equal(true);

    const handlers = (event: string) => document.hooks[event]![0]!.hooks;
    const pre = handlers("PreToolUse")[0]!;
    expect(pre).to.deep.include({
      type: "http",
      url: `${url}/hook/claude`,
      headers: { Authorization: "Bearer ${QHOOKS_SERVER_TOKEN}" },
      allowedEnvVars: ["QHOOKS_SERVER_TOKEN"],
      onFailure: "block",
    });
    for (const event of ["PermissionRequest", "UserPromptSubmit", "PostToolUse"])
      expect(handlers(event)[0], event).to.include({ type: "http", onFailure: "block" });
    for (const event of ["Stop", "SubagentStop", "Notification", "SessionEnd"]) {
      expect(handlers(event)[0], event).to.include({ type: "http" });
      expect(handlers(event)[0], `${event} never fails closed`).to.not.have.property("onFailure");
    }
    for (const event of ["Setup", "TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult", "WorktreeCreate"])
      expect(handlers(event).map((h) => h.command)).to.satisfy(
        (c: string[]) => c.length === 1 && / run \w+ --format hook --dialect claude --ensure-server$/.test(c[0]!),
      );
    const sessionStart = handlers("SessionStart").map((h) => h.command!);
    expect(sessionStart[0]).to.match(/qhooks\.cjs serve --ensure >&2$/);
    expect(sessionStart[1]).to.match(/run SessionStart --format hook --dialect claude$/);

    // As Claude Code posts an http hook: the payload as the body, the headers filled from the allowed variables.
    const claudeEnv = { QHOOKS_SERVER_TOKEN: token };
    const headers = Object.fromEntries(Object.entries(pre.headers!).map(([k, v]) => [k, interpolate(v, pre.allowedEnvVars!, claudeEnv)]));
    const payload = {
      session_id: "s1",
      transcript_path: "/tmp/t.jsonl",
      cwd: sb.project,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /tmp/x" },
      tool_use_id: "toolu_1",
    };
    const target = new URL(pre.url!);
    const answer = await post(Number(target.port), target.pathname, payload, headers);
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body)).to.deep.equal({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm -rf here" },
    });
    // Without the variable Claude Code sends "Bearer ": a failure (a block under onFailure), whose line names the fix.
    const unset = Object.fromEntries(Object.entries(pre.headers!).map(([k, v]) => [k, interpolate(v, pre.allowedEnvVars!, {})]));
    const refused = await post(Number(target.port), target.pathname, payload, unset);
    expect(refused.status).to.equal(401);
    expect(refused.body).to.include(`export QHOOKS_SERVER_TOKEN="$(cat ${join(sb.home, ".qhooks", "server", "token")})"`);

    // The server is gone; SessionStart's first command brings it back on the same port, saying nothing on stdout.
    expect((await run(["serve", "--stop"])).code).to.equal(0);
    const start = await sh(sessionStart[0]!, JSON.stringify({ ...payload, hook_event_name: "SessionStart", source: "startup" }), sb.project, sb.env(env));
    expect(start.code, start.stderr).to.equal(0);
    expect(start.stdout, "SessionStart's stdout would become the model's context").to.equal("");
    const status = await run(["serve", "--status", "--json"]);
    expect(JSON.parse(status.stdout)).to.include({ running: true, url });

    // Killed -9 mid-session: the next command entry that runs (TaskCompleted here) brings it back, not only SessionStart.
    const { pid: revivedFrom } = JSON.parse(status.stdout) as { pid: number };
    const task = { ...payload, hook_event_name: "TaskCompleted", task_id: "t1", task_subject: "x" };
    const taskEntry = handlers("TaskCompleted")[0]!.command!;
    const alive = await sh(taskEntry, JSON.stringify(task), sb.project, sb.env(env));
    expect(alive.code, alive.stderr).to.equal(0);
    expect(JSON.parse((await run(["serve", "--status", "--json"])).stdout), "a running server is left alone").to.include({ pid: revivedFrom });
    process.kill(revivedFrom, "SIGKILL");
    await waitFor("the server to die", () => !isAlive(revivedFrom), 5000);
    const judged = await sh(taskEntry, JSON.stringify(task), sb.project, sb.env(env));
    expect(judged.code, judged.stderr).to.equal(0);
    expect(judged.stdout).to.equal("");
    let revived: { running: boolean; pid: number; url: string } | null = null;
    for (const deadline = Date.now() + 20_000; revived === null && Date.now() < deadline; ) {
      const s = JSON.parse((await run(["serve", "--status", "--json"])).stdout) as { running: boolean; pid: number; url: string };
      if (s.running && s.pid !== revivedFrom) revived = s;
    }
    expect(revived, "the server started by the command entry").to.not.equal(null);
    expect(revived!.url, "on the port the http entries name").to.equal(url);
    const again = await post(Number(target.port), target.pathname, payload, headers);
    expect(JSON.parse(again.body).hookSpecificOutput.permissionDecision).to.equal("deny");

    const dryUninstall = await run(["uninstall", "claude", "--dry-run"]);
    expect(dryUninstall.stdout)
      .to.include(`"url": "${url}/hook/claude"`)
      .and.match(/^-\s+"url": "http/m);
    expect(existsSync(dropIn())).to.equal(true);
    const removed = await run(["uninstall", "claude"]);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(readdirSync(managed)).to.deep.equal([]);
  });

  it("checks `claude --version` on PATH: refuses one older than MIN_CLAUDE_VERSION, names a recent one, and says when it could not check", async () => {
    expect((await run(["serve", "--ensure"])).code).to.equal(0);
    const bin = join(sb.root, "bin");
    mkdirSync(bin);
    const fakeClaude = (output: string) => writeFileSync(join(bin, "claude"), `#!/bin/sh\necho '${output}'\n`, { mode: 0o755 });
    const withClaude = { PATH: `${bin}:${process.env.PATH}` };

    fakeClaude("2.1.40 (Claude Code)");
    const old = await run(["install", "claude", "--server"], withClaude);
    expect(old.code).to.equal(1);
    expect(old.stderr.trim().split("\n")).to.deep.equal([
      `qhooks: Claude Code 2.1.40 is older than ${MIN_CLAUDE_VERSION}, which --server needs (http hooks with onFailure): update Claude Code, or install the command entries (qhooks install claude); nothing was changed`,
    ]);
    expect(readdirSync(managed)).to.deep.equal([]);

    const unknown = await run(["install", "claude", "--server"]);
    expect(unknown.code, unknown.stderr).to.equal(0);
    expect(unknown.stdout).to.include(
      `warning: could not check Claude Code's version (no claude command on PATH): --server needs ${MIN_CLAUDE_VERSION} or later`,
    );
    expect((await run(["uninstall", "claude"])).code).to.equal(0);

    fakeClaude("2.2.0 (Claude Code)");
    const recent = await run(["install", "claude", "--server"], withClaude);
    expect(recent.code, recent.stderr).to.equal(0);
    expect(recent.stdout).to.include(`Claude Code 2.2.0 has http hooks with onFailure (${MIN_CLAUDE_VERSION} or later).`);
    expect(existsSync(dropIn())).to.equal(true);
    expect((await run(["uninstall", "claude"])).code).to.equal(0);
  });

  it("checkHostVersion reads claude --version's output against the minimum", () => {
    expect(checkHostVersion("2.1.63 (Claude Code)")).to.deep.equal({ kind: "ok", version: "2.1.63" });
    expect(checkHostVersion("2.1.62 (Claude Code)\n")).to.deep.equal({ kind: "too-old", version: "2.1.62" });
    expect(checkHostVersion("2.10.0", "2.9.1")).to.deep.equal({ kind: "ok", version: "2.10.0" });
    expect(checkHostVersion(null)).to.deep.equal({ kind: "unknown", why: "no claude command on PATH" });
    expect(checkHostVersion("Claude Code")).to.deep.equal({ kind: "unknown", why: 'claude --version said "Claude Code"' });
  });

  it("fails closed on the guard events only, and keeps as commands what an http answer cannot say", () => {
    const closed: EventName[] = ["PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse", "ConfigChange", "PreModelSwitch"];
    for (const event of closed) expect(failsClosed(event), event).to.equal(true);
    for (const event of ["Stop", "SubagentStop", "Notification", "SessionStart", "PostCompact"] as EventName[])
      expect(failsClosed(event), event).to.equal(false);
    expect([...COMMAND_ONLY_EVENTS]).to.include.members(["SessionStart", "Setup", "TaskCompleted", "WorktreeCreate"]);
  });
});
