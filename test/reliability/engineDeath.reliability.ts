import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { Reaper, groupMembers, isAlive, pidFromFile, pidsMatching, procStat, uniqueSleep, waitFor } from "../exec/processes.js";
import { journalCount, startCli, type Started } from "../store/storeHelpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { BUS_MODULE, QUICK, clip, prng, runScript, sleep, watchdogOf, type Script } from "./support.js";
import { verifiedRecords } from "../support/verifyLine.js";

/**
 * Issue 6, engine death: qhooks stopped by a signal kills its hooks' process groups and leaves the event in the log
 * as `unfinished`; qhooks killed with SIGKILL, while its hooks run or while it appends, leaves a readable log whose
 * chain verifies, with the arrival of an event whose hooks had started, and no hook process behind (the watchdog).
 */
describe("reliability: engine death", function () {
  this.timeout(300_000);
  let sb: Sandbox;
  const reaper = new Reaper();
  const started: (Started | Script)[] = [];

  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    for (const s of started) s.stop();
    await Promise.allSettled(started.map((s) => s.done));
    started.length = 0;
    reaper.reap();
    await sb.cleanup();
  });

  async function logRecords(): Promise<LogRecord[]> {
    const r = await sb.run(["log", "--json", "--limit", "100000"]);
    expect(r.code, `qhooks log: ${clip(r.stderr)}`).to.equal(0);
    return JSON.parse(r.stdout) as LogRecord[];
  }

  async function expectValidChain(): Promise<number> {
    const v = await sb.run(["verify"]);
    expect(v.code, `verify: ${clip(v.stdout + v.stderr)}`).to.equal(0);
    const total = journalCount(sb.db);
    expect(verifiedRecords(v.stdout), v.stdout).to.equal(total);
    return total;
  }

  /** A hook that writes its pid (= its process group), starts a child, and sleeps far longer than any test. */
  function sleepyHook(pidFile: string, ignoreTerm = false): string {
    return `${ignoreTerm ? "trap '' TERM; " : ""}echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; ${reaper.marker(uniqueSleep(120))} & ${reaper.marker(uniqueSleep(120))}`;
  }

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal}: qhooks run dies of it, its hooks' groups (two hooks, one ignoring SIGTERM) are killed, the event is logged as unfinished ${QUICK}`, async () => {
      const pidA = join(sb.root, "a.pid");
      const pidB = join(sb.root, "b.pid");
      sb.projectSettings({
        hooks: { PreToolUse: [group("Bash", { command: sleepyHook(pidA), timeout: 600 }, { command: sleepyHook(pidB, true), timeout: 600 })] },
      });
      const cli = startCli(
        sb,
        ["run", "PreToolUse"],
        JSON.stringify(payloadFor("PreToolUse", { session_id: `sig-${signal}`, tool_input: { command: "deploy" } })),
      );
      started.push(cli);
      const groups = [await waitFor("hook a", () => pidFromFile(pidA), 10_000), await waitFor("hook b", () => pidFromFile(pidB), 10_000)];
      groups.forEach((g) => reaper.group(g));
      // The hook writes its pid before it starts its two sleeps: wait until both are there.
      for (const g of groups) await waitFor("the hook and its two sleeps", () => groupMembers(g).length === 3, 10_000);

      cli.child.kill(signal);
      const end = await cli.done;
      expect(end.signal, "dies of the same signal").to.equal(signal);
      // Killed at once by the engine (SIGKILL on the way out), and by the watchdog besides.
      await waitFor("both hook groups gone", () => groups.every((g) => groupMembers(g).length === 0), 3000);

      await expectValidChain();
      const records = await logRecords();
      expect(records.map((r) => [r.sessionId, r.decision, r.hooks.length])).to.deep.equal([[`sig-${signal}`, "unfinished", 0]]);
      // The log takes the next event as usual.
      const next = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read" }));
      expect(next.code, next.stderr).to.equal(0);
      await expectValidChain();
    });
  }

  it(`SIGKILL at random moments of qhooks run with running hooks, 12 times: a valid log, the arrival of every event whose hooks had started, no hook left ${QUICK}`, async () => {
    await killWhileHooksRun(12, 0xdead1);
  });

  it("SIGKILL at random moments of qhooks run with running hooks, 40 more times", async () => {
    await killWhileHooksRun(40, 0xdead2);
  });

  async function killWhileHooksRun(times: number, seed: number): Promise<void> {
    const random = prng(seed);
    let hooksStarted = 0;
    let before = 0;
    // How long a run takes to start its hook here and now: kills are spread over twice that.
    const probeFile = join(sb.root, "probe.pid");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sleepyHook(probeFile), timeout: 600 })] } });
    const probe = startCli(sb, ["run", "PreToolUse", "--no-log"], JSON.stringify(payloadFor("PreToolUse")));
    started.push(probe);
    const t0 = performance.now();
    reaper.group(await waitFor("the probe's hook", () => pidFromFile(probeFile), 10_000));
    const toHook = performance.now() - t0;
    probe.stop();
    await probe.done;
    // The log exists before the first kill: a kill that lands before a run has even created the file would leave
    // nothing for verify to check (seen under load, when the first random moment came that early).
    expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read" }))).code).to.equal(0);
    before = await expectValidChain();
    for (let i = 0; i < times; i++) {
      const pidFile = join(sb.root, `k${i}.pid`);
      sb.projectSettings({
        hooks: {
          PreToolUse: [group("Bash", { command: sleepyHook(pidFile, i % 2 === 1), timeout: 600 }, { command: "cat > /dev/null; exit 0", name: "quick" })],
        },
      });
      const marker = `kill-${seed}-${i}`;
      const cli = startCli(sb, ["run", "PreToolUse"], JSON.stringify(payloadFor("PreToolUse", { session_id: marker })));
      started.push(cli);
      // Anywhere from startup to well after the hooks have started.
      await sleep(Math.floor(random() * 2 * toHook));
      cli.child.kill("SIGKILL");
      expect((await cli.done).signal).to.equal("SIGKILL");
      const pgid = pidFromFile(pidFile);
      if (pgid !== null) {
        hooksStarted++;
        reaper.group(pgid);
        await waitFor(`run ${i}: the hook's group to be killed by the watchdog`, () => groupMembers(pgid).length === 0, 5000);
      }
      const total = await expectValidChain();
      expect(total, "records are never lost").to.be.at.least(before);
      before = total;
      const mine = (await logRecords()).filter((r) => r.sessionId === marker);
      expect(mine.length, `run ${i}: at most once`).to.be.at.most(1);
      // Hooks run only after the arrival is committed: a hook that started proves the event is in the log.
      if (pgid !== null)
        expect(
          mine.map((r) => r.decision),
          `run ${i}: the interrupted event`,
        ).to.deep.equal(["unfinished"]);
    }
    expect(hooksStarted, "some kills came while the hooks ran").to.be.at.least(1);
    expect(hooksStarted, "some kills came before the hooks started").to.be.lessThan(times);
  }

  async function killAtHookStart(times: number): Promise<void> {
    // The engine is killed the very moment its hook shows a sign of life: the window between starting a process
    // and telling the watchdog about it is what this aims at.
    let caught = 0;
    for (let i = 0; i < times; i++) {
      const pidFile = join(sb.root, `s${i}.pid`);
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sleepyHook(pidFile), timeout: 600 })] } });
      const cli = startCli(sb, ["run", "PreToolUse", "--no-log"], JSON.stringify(payloadFor("PreToolUse")));
      started.push(cli);
      const deadline = performance.now() + 10_000;
      while (pidFromFile(pidFile) === null && performance.now() < deadline) await new Promise((r) => setImmediate(r));
      cli.child.kill("SIGKILL");
      await cli.done;
      const pgid = pidFromFile(pidFile);
      expect(pgid, "the hook started").to.be.a("number");
      reaper.group(pgid!);
      await waitFor(`attempt ${i}: the hook's group to be gone`, () => groupMembers(pgid!).length === 0, 5000);
      caught++;
    }
    expect(caught).to.equal(times);
  }

  it(`SIGKILL the instant the first hook starts, 10 times: the hook never outlives the engine ${QUICK}`, () => killAtHookStart(10));
  it("SIGKILL the instant the first hook starts, 60 more times", () => killAtHookStart(60));

  /** A process flooding the log with hook-less events, one `qhooks run`-sized append after another. */
  const floodScript = () => `
    const { createHookBus } = await import(${JSON.stringify(BUS_MODULE)});
    const bus = createHookBus({ projectDir: ${JSON.stringify(sb.project)}, homeDir: ${JSON.stringify(sb.home)}, db: ${JSON.stringify(sb.db)}, watch: false });
    for (let n = 0; ; n++) {
      await bus.dispatch({ hook_event_name: "PreToolUse", session_id: "flood-" + process.argv[1], tool_name: "Read", tool_input: { marker: process.argv[1] + "-" + n, pad: "x".repeat(n % 7 === 0 ? 20000 : 100) } });
    }`;

  async function killWhileAppending(times: number, seed: number): Promise<void> {
    const random = prng(seed);
    let before = 0;
    for (let i = 0; i < times; i++) {
      // Two flooders at once, so that one is often killed while waiting for the other's lock or mid-commit.
      const floods = [0, 1].map((k) => runScript(floodScript(), { cwd: sb.project, env: sb.env(), args: [`${i}.${k}`] }));
      started.push(...floods);
      // Once the flood is on (the log has grown), at a random moment.
      // The file exists a moment before its tables do (created empty, then migrated): not yet appending.
      const appended = () => {
        try {
          return existsSync(sb.db) && journalCount(sb.db) > before;
        } catch {
          return false;
        }
      };
      await waitFor(`round ${i}: the flooders appending`, appended, 15_000);
      await sleep(Math.floor(random() * 500));
      for (const f of floods) f.child.kill("SIGKILL");
      await Promise.all(floods.map((f) => f.done));
      const total = await expectValidChain();
      expect(total, `round ${i}: records are never lost`).to.be.greaterThan(before);
      before = total;
    }
    const records = await logRecords();
    const markers = records.map((r) => (r.payload as { tool_input: { marker: string } }).tool_input.marker);
    expect(new Set(markers).size, "no event twice").to.equal(markers.length);
    expect(
      records.every((r) => r.decision === "none"),
      "a hook-less event is one transaction: never half there",
    ).to.equal(true);
    // The log still takes appends, and qhooks run still works on it.
    const next = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read" }));
    expect(next.code, next.stderr).to.equal(0);
    expect(await expectValidChain()).to.be.greaterThan(before);
  }

  it(`SIGKILL while appending (a hook-less flood from two processes), 8 rounds: readable, verified, nothing lost ${QUICK}`, () =>
    killWhileAppending(8, 0xf100d1));
  it("SIGKILL while appending, 40 rounds", () => killWhileAppending(40, 0xf100d2));

  it("SIGKILL of qhooks run processes appending in a loop, at random moments, many times", async () => {
    const random = prng(0x51c);
    // Measure a typical run, then kill runs at random moments within it: startup, opening, the append, closing.
    const probes = [];
    for (let i = 0; i < 3; i++) probes.push(await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Read", session_id: `probe${i}` })));
    expect(probes.map((p) => p.code)).to.deep.equal([0, 0, 0]);
    const typical = probes.map((p) => p.ms).sort((a, b) => a - b)[1]!;
    let before = await expectValidChain();
    let killed = 0;
    for (let i = 0; i < 40; i++) {
      const cli = startCli(sb, ["run", "PreToolUse"], JSON.stringify(payloadFor("PreToolUse", { tool_name: "Read", session_id: `loop-${i}` })));
      started.push(cli);
      await sleep(Math.floor(random() * typical));
      cli.child.kill("SIGKILL");
      const end = await cli.done;
      if (end.signal === "SIGKILL") killed++;
      const total = await expectValidChain();
      expect(total).to.be.at.least(before);
      before = total;
      const mine = (await logRecords()).filter((r) => r.sessionId === `loop-${i}`);
      expect(mine.length).to.be.at.most(1);
      // A run that finished printed its seq: then its event must be there, complete.
      if (end.code === 0) expect(mine.map((r) => [r.seq, r.decision])).to.deep.equal([[(JSON.parse(end.stdout) as { seq: number }).seq, "none"]]);
    }
    // Most kills land before the run is over (how many depends on the machine's load, hence the loose bound).
    expect(killed, "kills that landed during a run").to.be.at.least(10);
  });

  it(`the watchdog: one /bin/sh per engine however many hooks, gone with the engine; its cost ${QUICK}`, async () => {
    // The engine and its hooks; the watchdog is the engine's child whose command line is the watchdog script.
    const pids = Array.from({ length: 20 }, (_, i) => join(sb.root, `w${i}.pid`));
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", ...pids.map((p) => ({ command: sleepyHook(p), timeout: 600 })))] } });
    const cli = startCli(sb, ["run", "PreToolUse", "--no-log"], JSON.stringify(payloadFor("PreToolUse")));
    started.push(cli);
    const groups = await waitFor(
      "20 hooks",
      () => {
        const all = pids.map(pidFromFile);
        return all.every((p) => p !== null) ? (all as number[]) : null;
      },
      15_000,
    );
    groups.forEach((g) => reaper.group(g));
    const watchdogs = () => (procStat(cli.child.pid!) ? [watchdogOf(cli.child.pid!)] : []).filter((p): p is number => p !== undefined);
    expect(watchdogs(), "one watchdog for 20 hooks").to.have.length(1);
    const watchdog = reaper.pid(watchdogs()[0]!);
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${watchdog}/status`, "utf8"))?.[1]);
    cli.child.kill("SIGKILL");
    await cli.done;
    await waitFor("every hook group gone", () => groups.every((g) => groupMembers(g).length === 0), 5000);
    await waitFor("the watchdog gone", () => !isAlive(watchdog), 5000);

    // What starting it costs, measured where it happens: the first hook's registration in a fresh engine starts the
    // watchdog; a later one writes a line to it. Ten fresh processes, the median of each.
    const measure = async () => {
      const r = await runScript(
        `const { spawn } = await import("node:child_process");
         const { registerGroup, releaseGroup } = await import(${JSON.stringify(join(BUS_MODULE, "..", "..", "exec", "processGroups.js"))});
         const [a, b] = [spawn("sleep", ["5"], { detached: true, stdio: "ignore" }), spawn("sleep", ["5"], { detached: true, stdio: "ignore" })];
         let t = performance.now(); registerGroup(a.pid); const first = performance.now() - t;
         t = performance.now(); registerGroup(b.pid); const next = performance.now() - t;
         releaseGroup(a.pid); releaseGroup(b.pid); a.kill("SIGKILL"); b.kill("SIGKILL");
         process.stdout.write(JSON.stringify({ first, next }));`,
        { cwd: sb.root, env: sb.env() },
      ).done;
      expect(r.code, r.stderr).to.equal(0);
      return JSON.parse(r.stdout) as { first: number; next: number };
    };
    const samples: { first: number; next: number }[] = [];
    for (let i = 0; i < 10; i++) samples.push(await measure());
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    console.log(
      `      watchdog: one /bin/sh per engine (${rssKb} kB resident); starting it adds ${median(samples.map((x) => x.first)).toFixed(2)} ms ` +
        `(median of 10) to the first hook's start; each later hook ${median(samples.map((x) => x.next)).toFixed(3)} ms (one line down a pipe)`,
    );
    expect(rssKb).to.be.greaterThan(0);
  });

  it("a hook that started qhooks run itself (nested engines): killing the outer engine takes the inner engine's hooks down too", async () => {
    const inner = join(sb.root, "inner.pid");
    const innerSettings = sb.file("inner.json", { hooks: { Stop: [group(undefined, { command: sleepyHook(inner), timeout: 600 })] } });
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group("Bash", {
            command: `echo '{"session_id":"inner"}' | ${process.execPath} ${JSON.stringify(join(BUS_MODULE, "..", "..", "cli", "main.js"))} run Stop --settings ${innerSettings} --no-log`,
            timeout: 600,
          }),
        ],
      },
    });
    const outer = startCli(sb, ["run", "PreToolUse", "--no-log"], JSON.stringify(payloadFor("PreToolUse")));
    started.push(outer);
    const innerGroup = reaper.group(await waitFor("the inner engine's hook", () => pidFromFile(inner), 15_000));
    outer.child.kill("SIGKILL");
    await outer.done;
    // The outer watchdog kills the outer hook's group, which holds the inner engine; the inner engine's own
    // watchdog then sees its engine die and kills the inner hook's group.
    await waitFor("the inner hook's group gone", () => groupMembers(innerGroup).length === 0, 8000);
    expect(existsSync(inner)).to.equal(true);
    expect(pidsMatching("run Stop --settings").filter((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes(innerSettings))).to.deep.equal([]);
  });
});
