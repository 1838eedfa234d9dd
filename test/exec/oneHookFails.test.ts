import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom } from "rxjs";
import { joinGroup, runHookGroup } from "../../src/engine/steps/runHooks.js";
import type { Recorded } from "../../src/engine/stages.js";
import { parsePayload } from "../../src/payload/parsePayload.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { runHostile } from "../support/hostileCli.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { settings, warningLines } from "../settings/support.js";
import type { SelectedHook } from "../../src/core/hookDescriptor.js";
import { commandHook } from "../support/hooks.js";

type Json = Record<string, unknown>;

/**
 * One hook that cannot be run must cost that hook, never the event: the other hooks' decisions, a block among
 * them, still make the outcome. Entries that can never run fail validation (a warning with file and JSON path);
 * whatever starting a process throws or reports is that hook's error.
 */
describe("one hook that cannot run", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const guard = { command: "echo 'guard: no' >&2; exit 2", name: "guard" };
  const rm = () => JSON.stringify(payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }));

  it("a timeout that rounds to 0 ms and a command holding NUL: one warning each with file and path; the guard still blocks", async () => {
    sb.projectSettings(
      settings({
        PreToolUse: [
          {
            hooks: [
              { type: "command", command: "true", timeout: 0.0001 },
              { type: "command", command: "true\u0000; echo x" },
              { type: "command", ...guard },
            ],
          },
        ],
      }),
    );
    const r = await sb.run(["run", "PreToolUse", "--no-log"], { input: rm() });
    expect(r.code, r.stderr).to.equal(2);
    expect(warningLines(r.stderr)).to.deep.equal([
      ".qoder/settings.json: hooks.PreToolUse[0].hooks[0].timeout: expected a positive number of seconds (at least 0.001, one millisecond); this hook is skipped",
      ".qoder/settings.json: hooks.PreToolUse[0].hooks[1].command: a command cannot hold a NUL character; this hook is skipped",
    ]);
    const outcome = JSON.parse(r.stdout) as { decision: string; hooks: Json[] };
    expect(outcome.decision).to.equal("deny");
    expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["guard"]);
  });

  it("bus.use() refuses a timeout of 0 ms or past a day, at once, as a usage error", () => {
    const bus = sb.bus();
    for (const timeout of [0.0001, 1e7]) {
      expect(() => bus.use("PreToolUse", "Bash", () => undefined, { timeout }), String(timeout)).to.throw(/use\(\): timeout: expected/);
    }
  });

  it("file descriptors run out (prlimit --nofile=64, 40 hooks and a guard): every hook still runs, and the guard blocks", async () => {
    const hooks = Array.from({ length: 40 }, (_, i) => ({ type: "command", command: `sleep 0.1; echo ${i}` }));
    sb.projectSettings(settings({ PreToolUse: [{ hooks: [...hooks, { type: "command", ...guard }] }] }));
    const r = await runHostile(sb, ["run", "PreToolUse", "--no-log"], { stdin: rm(), prefix: ["prlimit", "--nofile=64"], deadlineMs: 60_000 });
    expect(r.hung).to.equal(false);
    expect(r.code, r.stderr.slice(0, 2000)).to.equal(2);
    const outcome = JSON.parse(r.stdout) as { decision: string; hooks: Json[] };
    expect(outcome.decision).to.equal("deny");
    // Starts that found no descriptor were retried until siblings had finished and freed theirs.
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal([...hooks.map(() => "success"), "block"]);
    expect(outcome.hooks.slice(0, 40).map((h) => (h.stdout as string).trim())).to.deep.equal(hooks.map((_, i) => String(i)));
  });

  it("a command too long for exec (E2BIG): that hook's error, named; the guard still blocks", async () => {
    const long = `true # ${"x".repeat(200_000)}`;
    sb.projectSettings(
      settings({
        PreToolUse: [
          {
            hooks: [
              { type: "command", command: long, name: "too-long" },
              { type: "command", ...guard },
            ],
          },
        ],
      }),
    );
    const r = await sb.run(["run", "PreToolUse", "--no-log"], { input: rm() });
    expect(r.code, r.stderr.slice(0, 2000)).to.equal(2);
    const outcome = JSON.parse(r.stdout) as { decision: string; hooks: Json[] };
    expect(outcome.decision).to.equal("deny");
    expect(outcome.hooks[0]).to.include({ name: "too-long", outcome: "error", error: "could not start the hook: E2BIG (argument list too long)" });
  });

  describe("runHookGroup, given hooks no settings file could produce", () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "qhooks-onehook-"))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("a NUL in a command and a 0 ms timeout are those hooks' errors; the sibling's block stands", async () => {
      const parsed = parsePayload({ session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }, { projectDir: dir });
      if (!parsed.ok) throw new Error(parsed.value.error);
      const spec = (command: string, timeoutMs: number): SelectedHook => commandHook(command, timeoutMs);
      const recorded: Recorded = {
        arrival: { input: "", receivedAt: new Date(), startedAt: performance.now() },
        valid: parsed.value,
        snapshot: loadSettings([]),
        hooks: [spec("true\u0000", 5000), spec("true", 0), spec("exit 2", 5000)],
        skipped: [],
        selectionWarnings: [],
        background: undefined,
        seq: null,
        arrivalLogged: "deferred",
        warnings: [],
      };
      const options = { projectDir: dir, homeDir: dir, baseEnv: { PATH: process.env.PATH, SHLVL: "1" }, maxOutputBytes: 1 << 20, replay: false, callChain: [] };
      const ran = joinGroup(recorded, await firstValueFrom(runHookGroup(recorded, options)));
      expect(ran.judged.map((j) => [j.result.outcome, j.result.decision])).to.deep.equal([
        ["error", "none"],
        ["error", "none"],
        ["block", "deny"],
      ]);
      expect(ran.judged[0]!.result.error).to.match(/^could not start the hook: /);
      expect(ran.judged[1]!.result.error).to.match(/^internal error: raceTimeout: the limit must be a positive number/);
    });
  });
});
