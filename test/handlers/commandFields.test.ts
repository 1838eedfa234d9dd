import { expect } from "chai";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnvLines } from "../../src/handlers/envFile.js";
import { markerHook, sleep } from "../decisions/helpers.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** shell, onFailure, once, async and $CLAUDE_ENV_FILE, with real processes, settings files and logs. */
describe("handlers: command hook fields", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const settings = (event: string, ...handlers: Json[]) =>
    sb.userSettings({ hooks: { [event]: [{ hooks: handlers.map((h) => ({ type: "command", ...h })) }] } });
  const dispatch = (bus: ReturnType<Sandbox["bus"]>, event: string, extra: Json = {}) => bus.dispatch({ ...payloadFor(event, extra), hook_event_name: event });

  describe("shell", () => {
    it("runs the command with that shell (bash's [[ ]] and $BASH_VERSION); a shell that does not exist is the hook's error", async () => {
      settings(
        "UserPromptSubmit",
        { command: '[[ -n "$BASH_VERSION" ]] && echo "bash here"', shell: "bash" },
        { command: "echo never", shell: "/no/such/shell" },
      );
      const outcome = await dispatch(sb.bus({ watch: false }), "UserPromptSubmit");
      expect(outcome.additionalContext).to.deep.equal(["bash here"]);
      expect(outcome.hooks[1]).to.include({ outcome: "error", error: "could not start the hook: its shell /no/such/shell was not found" });
    });
  });

  describe('onFailure: "block"', () => {
    it("an unexpected exit code, a timeout and a hook that cannot start each block a blockable event, with the failure as the reason", async () => {
      for (const [handler, error] of [
        [{ command: "echo broken >&2; exit 1" }, "exit 1: broken"],
        [{ command: "sleep 30", timeout: 0.3 }, "timed out after 0.3 s"],
        [{ command: "true", shell: "/no/such/shell" }, "could not start the hook: its shell /no/such/shell was not found"],
      ] as const) {
        settings("PreToolUse", { ...handler, onFailure: "block", name: "guard" });
        const outcome = await dispatch(sb.bus({ watch: false }), "PreToolUse");
        expect(outcome.decision, error).to.equal("deny");
        expect(outcome.reason).to.equal(`hook guard failed and blocks on failure (onFailure: "block"): ${error}`);
        expect(outcome.hooks[0]).to.include({ outcome: "block", decision: "deny", error });
      }
    });

    it("without it (or with continue) the same failures fail open; on an event that cannot block it stays an error", async () => {
      settings("PreToolUse", { command: "exit 1" }, { command: "exit 3", onFailure: "continue" });
      const open = await dispatch(sb.bus({ watch: false }), "PreToolUse");
      expect(open.decision).to.equal("none");
      expect(open.hooks.map((h) => h.outcome)).to.deep.equal(["error", "error"]);
      settings("Notification", { command: "exit 1", onFailure: "block" });
      const info = await dispatch(sb.bus({ watch: false }), "Notification");
      expect(info.blocked).to.equal(false);
      expect(info.hooks[0]!.outcome).to.equal("error");
    });

    it("a hook that succeeds is read as usual: an allow stays an allow", async () => {
      settings("PreToolUse", { command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`, onFailure: "block" });
      expect((await dispatch(sb.bus({ watch: false }), "PreToolUse")).decision).to.equal("allow");
    });
  });

  describe("once", () => {
    it("a bus runs a once hook once per session: a second event of the session lists it as skipped (once)", async () => {
      const m = markerHook(sb, "once");
      settings("PreToolUse", { command: `${m.command}; echo x >> '${m.path}.count'`, once: true });
      const bus = sb.bus({ watch: false });
      const first = await dispatch(bus, "PreToolUse");
      const second = await dispatch(bus, "PreToolUse");
      const other = await dispatch(bus, "PreToolUse", { session_id: "s2" });
      expect(first.hooks).to.have.length(1);
      expect(second.hooks).to.have.length(0);
      expect(second.skipped.map((s) => s.reason)).to.deep.equal(["once"]);
      expect(second.warnings).to.deep.equal([]);
      expect(other.hooks).to.have.length(1);
      expect(readFileSync(`${m.path}.count`, "utf8")).to.equal("x\nx\n");
    });

    it("qhooks run remembers next to its log, across processes; without a log every run is a first", async () => {
      const m = { path: join(sb.root, "once-count") };
      settings("Stop", { command: `echo x >> '${m.path}'`, once: true });
      const a = await sb.runEvent("Stop", payloadFor("Stop"));
      const b = await sb.runEvent("Stop", payloadFor("Stop"));
      const c = await sb.runEvent("Stop", payloadFor("Stop", { session_id: "s9" }));
      expect([a.code, b.code, c.code]).to.deep.equal([0, 0, 0]);
      expect((b.outcome!.skipped as Json[]).map((s) => s.reason)).to.deep.equal(["once"]);
      expect(readFileSync(m.path, "utf8")).to.equal("x\nx\n");
      expect(readdirSync(join(sb.root, "once"))).to.have.length(2);
      await sb.runEvent("Stop", payloadFor("Stop"), ["--no-log"]);
      expect(readFileSync(m.path, "utf8")).to.equal("x\nx\nx\n");
    });
  });

  describe("async", () => {
    it("starts with the others, never delays or changes the outcome; its result is logged with its event and shown by qhooks log", async () => {
      const m = markerHook(sb, "async");
      settings(
        "PreToolUse",
        { command: `sleep 2; ${m.command}; echo 'late block' >&2; exit 2`, async: true, name: "slow" },
        { command: "true", name: "quick" },
      );
      const bus = sb.bus({ watch: false, db: sb.db });
      const outcome = await dispatch(bus, "PreToolUse");
      // The outcome came before the async hook got past its sleep: it was not waited for (no clock needed).
      expect(m.ran()).to.equal(false);
      expect(outcome.decision).to.equal("none");
      expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["quick"]);
      expect(outcome.skipped.map((s) => [s.name, s.reason])).to.deep.equal([["slow", "async"]]);
      // The log is read while the bus still runs: the result is there once the hook has ended.
      let record: Json | undefined;
      for (let i = 0; i < 40; i++) {
        const log = await sb.run(["log", "--format", "json"]);
        record = (JSON.parse(log.stdout) as Json[])[0];
        if ((record?.asyncHooks as Json[] | undefined)?.length) break;
        await sleep(250);
      }
      await bus.close();
      expect(record!.decision).to.equal("none");
      expect(m.ran()).to.equal(true);
      const asyncHooks = record!.asyncHooks as Json[];
      expect(asyncHooks).to.have.length(1);
      expect(asyncHooks[0]).to.include({ name: "slow", outcome: "block", exitCode: 2, reason: "late block" });
      const table = await sb.run(["log", "--format", "table"]);
      expect(table.stdout).to.contain("slow:block (async)");
    });

    it("is killed at its timeout (logged as a timeout) or when the bus closes (logged as stopped)", async () => {
      settings(
        "Stop",
        { command: "sleep 30 # timed", async: true, timeout: 0.3, name: "timed" },
        { command: "sleep 30 # forever", async: true, name: "forever" },
      );
      const bus = sb.bus({ watch: false, db: sb.db });
      await dispatch(bus, "Stop");
      await sleep(800);
      const start = performance.now();
      await bus.close();
      expect(performance.now() - start).to.be.below(5000);
      const log = await sb.run(["log", "--format", "json"]);
      const hooks = (JSON.parse(log.stdout) as Json[])[0]!.asyncHooks as Json[];
      expect(hooks, log.stdout).to.have.length(2);
      const byName = Object.fromEntries(hooks.map((h) => [h.name, h]));
      expect(byName.timed).to.include({ outcome: "timeout", timedOut: true });
      expect(byName.forever).to.include({ outcome: "error", error: "stopped before it ended: the bus closed" });
    });

    it("qhooks run replies and exits at once; a detached process runs the async hook and logs its result with the event", async () => {
      const gate = join(sb.root, "gate");
      // The hook cannot end before the test opens the gate: a run that waited for it would hang until its timeout.
      settings("Stop", { command: `while [ ! -f '${gate}' ]; do sleep 0.05; done; echo done`, async: true, timeout: 20, name: "bg" });
      const r = await sb.runEvent("Stop", payloadFor("Stop"));
      expect(r.code).to.equal(0);
      expect(r.ms).to.be.below(15_000);
      expect((r.outcome!.skipped as Json[])[0]).to.include({ name: "bg", reason: "async" });
      const before = await sb.run(["log", "--format", "json"]);
      expect((JSON.parse(before.stdout) as Json[])[0]!.asyncHooks).to.deep.equal([]);
      writeFileSync(gate, "");
      let hooks: Json[] = [];
      for (let i = 0; i < 40 && hooks.length === 0; i++) {
        await sleep(250);
        const log = await sb.run(["log", "--format", "json"]);
        hooks = (JSON.parse(log.stdout) as Json[])[0]!.asyncHooks as Json[];
      }
      expect(hooks).to.have.length(1);
      expect(hooks[0]).to.include({ name: "bg", outcome: "success", stdout: "done\n" });
    });
  });

  describe("$CLAUDE_ENV_FILE", () => {
    it("SessionStart hooks append export lines; the outcome carries the variables and the log records them; the file is gone after", async () => {
      settings(
        "SessionStart",
        { command: `echo "$CLAUDE_ENV_FILE" > '${join(sb.root, "envfile-path")}'; echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"` },
        { command: `printf '%s\\n' "export GREETING='hello world'" 'PATH_EXTRA="/opt/x"' 'not an assignment' >> "$CLAUDE_ENV_FILE"` },
      );
      const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"));
      expect(r.code).to.equal(0);
      expect(r.outcome!.env).to.deep.equal({ NODE_ENV: "production", GREETING: "hello world", PATH_EXTRA: "/opt/x" });
      // The two hooks run at once: the line's number depends on which wrote first.
      expect(r.outcome!.warnings).to.have.length(1);
      expect((r.outcome!.warnings as string[])[0]).to.match(/^\$CLAUDE_ENV_FILE line [34]: not an export K=V assignment, ignored$/);
      expect(existsSync(readFileSync(join(sb.root, "envfile-path"), "utf8").trim())).to.equal(false);
      const log = await sb.run(["log", "--format", "json"]);
      expect((JSON.parse(log.stdout) as Json[])[0]!.env).to.deep.equal({ NODE_ENV: "production", GREETING: "hello world", PATH_EXTRA: "/opt/x" });
    });

    it("a qhooks run that is itself given a $CLAUDE_ENV_FILE (qhooks in front of an agent) appends the variables there, quoted", async () => {
      const outer = sb.file("outer.env", "export EXISTING=1\n");
      const lines = sb.file("lines.env", 'export QUOTE="it\'s"\nexport PLAIN=x\n');
      settings("SessionStart", { command: `cat '${lines}' >> "$CLAUDE_ENV_FILE"` });
      const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"), ["--no-log"], { CLAUDE_ENV_FILE: outer });
      expect(r.code).to.equal(0);
      expect(r.outcome!.env).to.deep.equal({ QUOTE: "it's", PLAIN: "x" });
      expect(readFileSync(outer, "utf8")).to.equal("export EXISTING=1\nexport QUOTE='it'\\''s'\nexport PLAIN='x'\n");
    });

    it("other events get no CLAUDE_ENV_FILE and carry an empty env", async () => {
      settings("Stop", { command: 'test -z "$CLAUDE_ENV_FILE" || exit 1' });
      const outcome = await dispatch(sb.bus({ watch: false }), "Stop");
      expect(outcome.hooks[0]!.outcome).to.equal("success");
      expect(outcome.env).to.deep.equal({});
    });

    it("parseEnvLines: export or not, quotes, comments; nothing expanded; a later assignment wins", () => {
      expect(parseEnvLines('export A=1\n# c\n\nB=\'$HOME x\'\nexport C="q\\"d"\nA=2\nexport D=has space\n')).to.deep.equal({
        env: { A: "2", B: "$HOME x", C: 'q"d' },
        warnings: ["$CLAUDE_ENV_FILE line 7: not an export K=V assignment, ignored"],
      });
    });
  });
});
