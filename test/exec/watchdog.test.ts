import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";
import { Reaper, childrenOf, groupMembers, isAlive, pidFromFile, pidsMatching, uniqueSleep, waitFor } from "./processes.js";

const WATCHDOG_SIGNATURE = "trap '' INT TERM HUP QUIT";

/**
 * Contract 3: if the engine dies or is stopped (SIGTERM, SIGINT, even SIGKILL), the hooks it started die with it.
 * The real CLI runs as a child of the test; its hook writes its PID (= its process group) to a file.
 */
describe("engine death (the watchdog)", () => {
  let sb: Sandbox;
  let cli: ChildProcess | null = null;
  const reaper = new Reaper();

  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    if (cli?.pid !== undefined) reaper.pid(cli.pid);
    reaper.reap();
    cli = null;
    await sb.cleanup();
  });

  function startCli(command: string, timeoutSeconds = 120) {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command, timeout: timeoutSeconds })] } });
    const child = spawn(process.execPath, [CLI, "run", "PreToolUse", "--no-log"], { cwd: sb.project, env: sb.env(), stdio: ["pipe", "ignore", "ignore"] });
    child.stdin!.end(JSON.stringify(payloadFor("PreToolUse")));
    cli = child;
    reaper.pid(child.pid!);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    return { child, exited };
  }

  /** The CLI's watchdog: its child shell that runs the watchdog script. */
  function watchdogOf(pid: number): number | undefined {
    return childrenOf(pid).find((c) => {
      try {
        return readFileSync(`/proc/${c}/cmdline`, "utf8").includes(WATCHDOG_SIGNATURE);
      } catch {
        return false;
      }
    });
  }

  for (const signal of ["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`${signal} to a CLI whose hook is running: the hook's whole process group is gone within seconds (it would sleep 60 s), and the watchdog exits`, async () => {
      const sleeper = reaper.marker(uniqueSleep(60));
      const pidFile = join(sb.root, "hook.pid");
      const { child, exited } = startCli(`echo $$ > ${pidFile}; ${sleeper} & wait`);
      const pgid = reaper.group(await waitFor("the hook's pid file", () => pidFromFile(pidFile), 5000));
      await waitFor("the hook's sleep", () => pidsMatching(sleeper).length > 0, 2000);
      const watchdog = await waitFor("the CLI's watchdog", () => watchdogOf(child.pid!), 2000);
      reaper.pid(watchdog);
      expect(groupMembers(pgid).length).to.be.at.least(2);

      child.kill(signal);
      expect((await exited).signal).to.equal(signal);
      const at = performance.now();
      await waitFor("the hook's process group to be gone", () => groupMembers(pgid).length === 0, 5000);
      expect(performance.now() - at).to.be.below(5000);
      expect(pidsMatching(sleeper)).to.deep.equal([]);
      await waitFor("the watchdog to exit", () => !isAlive(watchdog), 5000);
    });
  }

  it("SIGKILL to the CLI also brings down a hook that ignores SIGTERM (SIGKILL after the grace)", async () => {
    const sleeper = reaper.marker(uniqueSleep(60));
    const pidFile = join(sb.root, "hook.pid");
    const { child, exited } = startCli(`trap '' TERM; echo $$ > ${pidFile}; ${sleeper} & wait`);
    const pgid = reaper.group(await waitFor("the hook's pid file", () => pidFromFile(pidFile), 5000));
    await waitFor("the hook's sleep", () => pidsMatching(sleeper).length > 0, 2000);
    child.kill("SIGKILL");
    await exited;
    await waitFor("the hook's process group to be gone", () => groupMembers(pgid).length === 0, 5000);
  });

  it("a library engine whose watchdog was killed from outside gets a new one that still covers the running hook", async () => {
    const sleeper = reaper.marker(uniqueSleep(60));
    const pidFile = join(sb.root, "hook.pid");
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, `echo $$ > ${pidFile}; ${sleeper} & wait`)] } });
    const busModule = join(REPO_ROOT, "dist", "src", "engine", "createHookBus.js");
    const script = `
      const { createHookBus } = await import(${JSON.stringify(busModule)});
      const bus = createHookBus({ projectDir: ${JSON.stringify(sb.project)}, homeDir: ${JSON.stringify(sb.home)}, db: false, watch: false });
      await bus.dispatch(${JSON.stringify({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") })});`;
    const engine = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: sb.project, env: sb.env(), stdio: "ignore" });
    cli = engine;
    reaper.pid(engine.pid!);
    const exited = new Promise((resolve) => engine.once("exit", resolve));
    const pgid = reaper.group(await waitFor("the hook's pid file", () => pidFromFile(pidFile), 5000));
    const first = reaper.pid(await waitFor("the engine's watchdog", () => watchdogOf(engine.pid!), 2000));
    process.kill(first, "SIGKILL");
    await waitFor("the first watchdog to be gone", () => !isAlive(first), 2000);
    const second = reaper.pid(await waitFor("a replacement watchdog", () => watchdogOf(engine.pid!), 2000));
    engine.kill("SIGKILL");
    await exited;
    await waitFor("the hook's process group to be gone", () => groupMembers(pgid).length === 0, 2000);
    await waitFor("the replacement watchdog to exit", () => !isAlive(second), 2000);
  });

  it("after a normal run the watchdog exits too, and kills nothing", async () => {
    const go = join(sb.root, "go");
    const pidFile = join(sb.root, "hook.pid");
    const sleeper = reaper.marker(uniqueSleep(5));
    const { child, exited } = startCli(`echo $$ > ${pidFile}; ${sleeper} >/dev/null 2>&1 & while [ ! -e ${go} ]; do sleep 0.02; done`);
    await waitFor("the hook's pid file", () => pidFromFile(pidFile), 5000);
    const watchdog = await waitFor("the CLI's watchdog", () => watchdogOf(child.pid!), 2000);
    reaper.pid(watchdog);
    writeFileSync(go, "");
    expect(await exited).to.deep.equal({ code: 0, signal: null });
    await waitFor("the watchdog to exit", () => !isAlive(watchdog), 2000);
    expect(pidsMatching(sleeper), "the hook's background process is not the watchdog's business").to.not.be.empty;
  });
});
