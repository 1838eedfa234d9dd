import { expect } from "chai";
import { join } from "node:path";
import { KILL_GRACE_MS } from "../../src/exec/killGrace.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { Reaper, groupMembers, isAlive, pidFromFile, pidsMatching, uniqueSleep, waitFor } from "./processes.js";

type Json = Record<string, unknown>;

/**
 * Timeouts kill the hook's whole process group (contract 3): SIGTERM, then SIGKILL after the grace. A hook whose main
 * process exits normally is done at once, and what it left in the background is not killed (contract 8).
 */
describe("hook timeouts and process groups", () => {
  let sb: Sandbox;
  const reaper = new Reaper();

  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    reaper.reap();
    await sb.cleanup();
  });

  const pre = () => ({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") });
  const hook = (command: string, timeout: number) => ({ command, timeout });

  it("`sleep 30 & wait` with a 0.5 s timeout: outcome `timeout` long before 30 s, and no sleep survives", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook(`${sleeper} & wait`, 0.5))] } });
    const start = performance.now();
    const outcome = await sb.bus().dispatch(pre());
    const elapsed = performance.now() - start;
    expect(elapsed).to.be.within(450, 3000);
    expect(outcome).to.include({ decision: "none", blocked: false });
    expect(outcome.hooks[0]).to.include({ outcome: "timeout", timedOut: true, decision: "none", exitCode: null, signal: null, error: "timed out after 0.5 s" });
    expect(outcome.hooks[0]!.durationMs).to.be.within(450, 3000);
    await waitFor(`no ${sleeper} left`, () => pidsMatching(sleeper).length === 0, 1000);
  });

  it("a timed-out hook makes no decision, even one that would have blocked, and keeps what it printed so far", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook("echo partial; echo why >&2; sleep 2; exit 2", 0.3))] } });
    const outcome = await sb.bus().dispatch(pre());
    expect(outcome).to.include({ decision: "none", blocked: false, reason: null });
    expect(outcome.hooks[0]).to.include({ outcome: "timeout", stdout: "partial\n", stderr: "why\n" });
  });

  it("a main process that ignores SIGTERM is SIGKILLed with its group after the grace", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    const pidFile = join(sb.root, "pid");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook(`trap '' TERM; echo $$ > ${pidFile}; ${sleeper} & wait`, 0.4))] } });
    const outcome = await sb.bus().dispatch(pre());
    const at = performance.now();
    expect(outcome.hooks[0]).to.include({ outcome: "timeout" });
    const pgid = reaper.group(pidFromFile(pidFile)!);
    expect(groupMembers(pgid), "alive right after the timeout: it ignores SIGTERM").to.not.be.empty;
    await waitFor("the group to be SIGKILLed", () => groupMembers(pgid).length === 0, KILL_GRACE_MS + 1000);
    expect(performance.now() - at).to.be.below(KILL_GRACE_MS + 1000);
    expect(pidsMatching(sleeper)).to.deep.equal([]);
  });

  it("a grandchild that holds stdout open, ignores SIGTERM and never exits is killed too, though the main process is gone", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    const pidFile = join(sb.root, "pid");
    const ready = join(sb.root, "ready");
    const command = `echo $$ > ${pidFile}; sh -c "trap '' TERM; echo \\$\\$ > ${ready}; exec ${sleeper}" & wait`;
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook(command, 0.5))] } });
    const bus = sb.bus();
    const dispatched = bus.dispatch(pre());
    await waitFor("the grandchild to be ready", () => pidFromFile(ready), 3000);
    const outcome = await dispatched;
    expect(outcome.hooks[0]).to.include({ outcome: "timeout" });
    const pgid = reaper.group(pidFromFile(pidFile)!);
    const grandchild = pidFromFile(ready)!;
    await waitFor("the main process to end on SIGTERM", () => !isAlive(pgid), 1000);
    expect(isAlive(grandchild), "the grandchild ignored SIGTERM").to.equal(true);
    await waitFor("the grandchild to be SIGKILLed", () => !isAlive(grandchild) && groupMembers(pgid).length === 0, KILL_GRACE_MS + 1000);
  });

  it("through the CLI: the timed-out group is gone by the time the CLI has exited, even one that ignores SIGTERM", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    const pidFile = join(sb.root, "pid");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook(`trap '' TERM; echo $$ > ${pidFile}; ${sleeper} & wait`, 0.5))] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.ms).to.be.below(5000);
    expect((r.outcome!.hooks as Json[])[0]).to.include({ outcome: "timeout", timedOut: true });
    const pgid = reaper.group(pidFromFile(pidFile)!);
    // The CLI SIGKILLs what is still listed when it exits; allow the scheduling slack of a signal on a busy machine.
    await waitFor("the group to be gone", () => groupMembers(pgid).length === 0, 1000);
  });

  it("through the CLI: a grandchild that ignores SIGTERM after its parent died of it is SIGKILLed, at the latest when the CLI exits", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    const ready = join(sb.root, "ready");
    const command = `sh -c "trap '' TERM; echo \\$\\$ > ${ready}; exec ${sleeper}" & wait`;
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook(command, 0.5))] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect((r.outcome!.hooks as Json[])[0]).to.include({ outcome: "timeout" });
    const grandchild = pidFromFile(ready);
    expect(grandchild, "the grandchild had started").to.be.a("number");
    reaper.pid(grandchild!);
    await waitFor("the grandchild to be gone", () => !isAlive(grandchild!), 1000);
    expect(pidsMatching(sleeper)).to.deep.equal([]);
  });

  describe("a normal exit with a background grandchild (contract 8)", () => {
    it("through the bus: the result comes at once, the background process is not killed and its later output not awaited", async () => {
      const sleeper = reaper.marker(uniqueSleep(3));
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", hook(`(${sleeper}; echo late) & echo done`, 10))] } });
      const start = performance.now();
      const outcome = await sb.bus().dispatch(pre());
      expect(performance.now() - start, "long before the 3 s grandchild ends").to.be.below(1000);
      expect(outcome.hooks[0]).to.include({ outcome: "success", stdout: "done\n", exitCode: 0, timedOut: false });
      await new Promise((r) => setTimeout(r, KILL_GRACE_MS + 200));
      expect(pidsMatching(sleeper), "still running after any kill would have landed").to.not.be.empty;
    });

    it("through the CLI: the CLI exits at once and neither it nor its watchdog kills the background process", async () => {
      const sleeper = reaper.marker(uniqueSleep(3));
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `(${sleeper}; echo late) & echo done`)] } });
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.ms).to.be.below(2500);
      expect((r.outcome!.hooks as Json[])[0]).to.include({ outcome: "success", stdout: "done\n" });
      // The watchdog acts when the CLI's pipe closes: SIGTERM at once, SIGKILL after the grace.
      await new Promise((res) => setTimeout(res, KILL_GRACE_MS + 300));
      expect(pidsMatching(sleeper), "the background process is left alone").to.not.be.empty;
    });
  });
});
