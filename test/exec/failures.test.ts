import { expect } from "chai";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** Contract 3.1: exits other than 0 and 2, signals qhooks did not send, and spawn failures are non-blocking errors. */
describe("hooks that fail", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const pre = () => ({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") });

  it("exit 127 (command not found) is an error whose message says so", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "qhooks-no-such-command-4711 --flag")] } });
    const outcome = await sb.bus().dispatch(pre());
    expect(outcome).to.include({ decision: "none", blocked: false });
    const h = outcome.hooks[0]!;
    expect(h).to.include({ outcome: "error", exitCode: 127, signal: null, timedOut: false, decision: "none" });
    expect(h.error)
      .to.match(/^exit 127: command not found/)
      .and.include("qhooks-no-such-command-4711");
  });

  it("a command the shell cannot parse blocks (sh exits 2) with the shell's message, before running any of it", async () => {
    const marker = sb.file("ran", "");
    rmSync(marker);
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, `touch ${marker}; if then fi`)] } });
    const outcome = await sb.bus().dispatch(pre());
    expect(outcome).to.include({ decision: "deny", blocked: true });
    expect(outcome.hooks[0]).to.include({ outcome: "block", exitCode: 2 });
    expect(outcome.reason).to.match(/^\/bin\/sh: .*(syntax error|unexpected)/i);
    expect(existsSync(marker), "a command is parsed whole before it runs").to.equal(false);
  });

  it("another exit code is an error carrying the first non-empty stderr line", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "printf '\\n  first line  \\nsecond\\n' >&2; exit 3")] } });
    const h = (await sb.bus().dispatch(pre())).hooks[0]!;
    expect(h).to.include({ outcome: "error", exitCode: 3, signal: null, error: "exit 3: first line" });
  });

  for (const [signal, command] of [
    ["SIGSEGV", "ulimit -c 0; kill -SEGV $$"],
    ["SIGKILL", "kill -9 $$"],
    ["SIGTERM", "kill -TERM $$"],
  ] as const) {
    it(`killed by ${signal} from elsewhere is an error with \`signal\` set and no exit code`, async () => {
      sb.projectSettings({ hooks: { PreToolUse: [group(undefined, `echo before; ${command}; echo after`)] } });
      const outcome = await sb.bus().dispatch(pre());
      expect(outcome).to.include({ decision: "none", blocked: false });
      expect(outcome.hooks[0]).to.include({ outcome: "error", signal, exitCode: null, timedOut: false, stdout: "before\n", error: `killed by ${signal}` });
    });
  }

  it("through the CLI: failures are reported, never turned into a block, and the CLI exits 0", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "qhooks-no-such-command-4711", "kill -9 $$", "exit 1")] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect((r.outcome!.hooks as Json[]).map((h) => [h.outcome, h.exitCode, h.signal])).to.deep.equal([
      ["error", 127, null],
      ["error", null, "SIGKILL"],
      ["error", 1, null],
    ]);
  });

  it("exit 2 on an event that cannot block is an error, not a block", async () => {
    sb.projectSettings({ hooks: { SessionStart: [group(undefined, "echo nope >&2; exit 2")] } });
    const outcome = await sb.bus().dispatch({ hook_event_name: "SessionStart", ...payloadFor("SessionStart") });
    expect(outcome).to.include({ decision: "none", blocked: false });
    expect(outcome.hooks[0]).to.include({ outcome: "error", exitCode: 2, error: "exit 2, but SessionStart cannot be blocked: nope" });
  });

  it("a hook that cannot be started (project directory removed after the bus was created) is an error, not a crash", async () => {
    // Settings outside the project directory, so that removing it leaves the hooks in force.
    const bus = sb.bus({ settingsFiles: [sb.file("settings.json", { hooks: { PreToolUse: [group(undefined, "echo hi", "echo second")] } })] });
    rmSync(sb.project, { recursive: true, force: true });
    const outcome = await bus.dispatch(pre());
    expect(outcome).to.include({ decision: "none", blocked: false });
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["error", "error"]);
    expect(outcome.hooks[0]!.error)
      .to.match(/^could not start the hook: /)
      .and.include(sb.project);
    expect(outcome.hooks[0]!.error, "an error message is one line").to.not.include("\n");
    expect(outcome.hooks[0]).to.include({ exitCode: null, signal: null, timedOut: false });
    // The bus is not broken: with the directory back, hooks run again.
    mkdirSync(sb.project);
    const again = await bus.dispatch(pre());
    expect(again.hooks.map((h) => [h.outcome, h.stdout])).to.deep.equal([
      ["success", "hi\n"],
      ["success", "second\n"],
    ]);
  });
});
