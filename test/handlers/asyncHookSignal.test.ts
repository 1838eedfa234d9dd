import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Reaper, isAlive, pidFromFile, uniqueSleep, waitFor } from "../exec/processes.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/**
 * Issue 21 item 16: the detached process that runs an async hook of `qhooks run` (`qhooks __async-hook`), stopped by
 * SIGTERM while its hook runs: the hook goes down with it, the log says so, and it dies of that signal.
 */
describe("handlers: an async hook's detached process stopped by a signal", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  const reaper = new Reaper();
  beforeEach(() => (sb = new Sandbox()));
  afterEach(async () => {
    reaper.reap();
    await sb.cleanup();
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal}: the hook is logged as stopped by it, its process is gone, and the detached process is too`, async () => {
      const runnerPid = join(sb.root, "runner.pid");
      const hookPid = join(sb.root, "hook.pid");
      const sleep = reaper.marker(uniqueSleep(60));
      // $PPID of the hook's shell is the detached qhooks process.
      sb.userSettings({
        hooks: {
          Stop: [
            { hooks: [{ type: "command", command: `echo $PPID > '${runnerPid}'; echo $$ > '${hookPid}'; ${sleep}`, async: true, timeout: 60, name: "bg" }] },
          ],
        },
      });
      const r = await sb.runEvent("Stop", payloadFor("Stop"));
      expect(r.code, r.stderr).to.equal(0);

      const runner = await waitFor("the async hook to start", () => pidFromFile(runnerPid), 20_000);
      const hook = pidFromFile(hookPid)!;
      reaper.pid(runner);
      expect(readFileSync(`/proc/${runner}/cmdline`, "utf8").split("\0")).to.include("__async-hook");
      process.kill(runner, signal);
      await waitFor("the detached process to end", () => !isAlive(runner), 10_000);
      await waitFor("the hook's shell to end", () => !isAlive(hook), 10_000);

      const log = JSON.parse((await sb.run(["log", "--format", "json"])).stdout) as Json[];
      // Without the fix: the process died at once, nothing was appended.
      expect(log[0]!.asyncHooks, "the stopped hook is in the log").to.have.length(1);
      expect((log[0]!.asyncHooks as Json[])[0]).to.include({
        name: "bg",
        outcome: "error",
        error: `stopped before it ended: its process (qhooks __async-hook) got ${signal}`,
      });
    });
  }
});
