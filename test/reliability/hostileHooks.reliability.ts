import { createHash } from "node:crypto";
import { join } from "node:path";
import { expect } from "chai";
import { liveGroupCount } from "../../src/exec/processGroups.js";
import type { Outcome } from "../../src/schema/outcome.js";
import { Reaper, childrenOf, groupMembers, openFdCount, pidFromFile, pidsMatching, procStat, uniqueSleep, waitFor } from "../exec/processes.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { QUICK, expectCleanCli, within } from "./support.js";

type Json = Record<string, unknown>;
const MiB = 1024 * 1024;

/**
 * Issue 6, hostile hooks: each case is a hook that misbehaves in one way. After each one, through the library bus
 * and through the CLI: the engine settles on time (a coarse bound, far below what the hook would take on its own),
 * the hook's outcome kind is exactly what contract 3.1 says, nothing of a timed-out hook survives in its process
 * group, and the next dispatch works.
 */
describe("reliability: hostile hooks", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  const reaper = new Reaper();

  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    reaper.reap();
    await sb.cleanup();
  });

  interface Ctx {
    /** A file the hook writes its PID (its process group) to, first thing. */
    readonly pidFile: string;
    /** A `sleep` with a unique command line, registered with the reaper. */
    sleep(seconds: number): string;
    /** Where a hook may write what it read. */
    readonly dir: string;
  }

  interface HostileCase {
    readonly name: string;
    readonly command: (ctx: Ctx) => string;
    /** Seconds; the hook's settings timeout. */
    readonly timeout: number;
    /** Coarse bound for the dispatch to settle, in ms. */
    readonly settlesWithin: number;
    /** The payload text (default: a small PreToolUse payload for the tool "Hostile"). */
    readonly payload?: string;
    readonly check: (outcome: Outcome, ctx: Ctx) => void;
    /** Killed by the timeout: its process group must be empty afterwards. */
    readonly timesOut: boolean;
    /** Also run through the CLI in the quick subset (every case runs through the bus there). */
    readonly quickCli?: boolean;
  }

  const hostilePayload = (extra: Json = {}) =>
    JSON.stringify({ hook_event_name: "PreToolUse", cwd: "/", ...payloadFor("PreToolUse", { tool_name: "Hostile", ...extra }) });
  // A 1 MB payload with multi-byte characters, sent exactly as text (nothing is filled in: hook_event_name and cwd
  // are there), so the bytes a hook reads can be compared with it.
  const bigPayload = hostilePayload({ tool_input: { command: "é€😀x".repeat(100_000) } });
  const writePid = (ctx: Ctx) => `echo $$ > ${ctx.pidFile}.tmp && mv ${ctx.pidFile}.tmp ${ctx.pidFile}`;
  const kinds = (o: Outcome) => o.hooks.map((h) => h.outcome);

  const cases: HostileCase[] = [
    {
      name: "never exits (a busy loop)",
      command: (c) => `${writePid(c)}; while :; do :; done`,
      quickCli: true,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => {
        expect(kinds(o)).to.deep.equal(["timeout"]);
        expect(o.hooks[0]).to.include({ timedOut: true, decision: "none", exitCode: null, error: "timed out after 1 s" });
      },
    },
    {
      name: "never exits (sleeps, with a child sleeping too)",
      command: (c) => `${writePid(c)}; ${c.sleep(300)} & ${c.sleep(300)}`,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => expect(kinds(o)).to.deep.equal(["timeout"]),
    },
    {
      name: "ignores SIGTERM, and so do its children",
      command: (c) => `trap '' TERM; ${writePid(c)}; ${c.sleep(300)} & ${c.sleep(300)} & wait`,
      quickCli: true,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => expect(kinds(o)).to.deep.equal(["timeout"]),
    },
    {
      name: "forks a daemon (double fork, no setsid) that holds stdout and stderr, then exits",
      command: (c) => `${writePid(c)}; ( ( exec ${c.sleep(30)} ) & ); echo parent-done; echo bye >&2`,
      quickCli: true,
      timeout: 10,
      // The daemon would hold the pipes for 30 s: the engine stops reading shortly after the main process exits.
      settlesWithin: 5000,
      timesOut: false,
      check: (o, c) => {
        expect(kinds(o)).to.deep.equal(["success"]);
        expect(o.hooks[0]).to.include({ exitCode: 0, stdout: "parent-done\n", stderr: "bye\n", truncated: false });
        // Contract 8: what a hook leaves behind after a normal exit is its own business, and is not killed.
        const pgid = pidFromFile(c.pidFile)!;
        const left = groupMembers(pgid);
        expect(left, "the daemon is still there, in the hook's group").to.have.length(1);
        for (const pid of left) expect(procStat(pid)!.pgrp).to.equal(pgid);
      },
    },
    {
      name: "forks a daemon that holds stdout and stderr, then never exits",
      command: (c) => `${writePid(c)}; ( ( exec ${c.sleep(30)} ) & ); exec ${c.sleep(300)}`,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => expect(kinds(o)).to.deep.equal(["timeout"]),
    },
    {
      name: "floods stdout and stderr at once (20 MB each), then exits",
      command: (c) => `${writePid(c)}; head -c 20000000 /dev/zero | tr '\\0' o & head -c 20000000 /dev/zero | tr '\\0' e >&2; wait`,
      timeout: 30,
      settlesWithin: 20_000,
      timesOut: false,
      check: (o) => {
        expect(kinds(o)).to.deep.equal(["success"]);
        const h = o.hooks[0]!;
        expect(h.truncated).to.equal(true);
        expect([h.stdout.length, h.stderr.length]).to.deep.equal([MiB, MiB]);
        expect(/^o+$/.test(h.stdout) && /^e+$/.test(h.stderr), "each stream keeps its own bytes").to.equal(true);
      },
    },
    {
      name: "floods stdout and stderr at once, forever",
      command: (c) => `${writePid(c)}; yes out & exec yes err >&2`,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => {
        expect(kinds(o)).to.deep.equal(["timeout"]);
        expect(o.hooks[0]!.truncated).to.equal(true);
        expect([o.hooks[0]!.stdout.length, o.hooks[0]!.stderr.length]).to.deep.equal([MiB, MiB]);
      },
    },
    {
      name: "closes stdout and stderr, then keeps running",
      command: (c) => `${writePid(c)}; echo early; exec >&- 2>&-; exec ${c.sleep(300)}`,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => {
        expect(kinds(o)).to.deep.equal(["timeout"]);
        expect(o.hooks[0]!.stdout).to.equal("early\n");
      },
    },
    {
      name: "dies of SIGSEGV",
      command: (c) => `${writePid(c)}; echo before; ulimit -c 0; kill -SEGV $$; echo after`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o) => expect(o.hooks[0]).to.include({ outcome: "error", signal: "SIGSEGV", exitCode: null, stdout: "before\n", error: "killed by SIGSEGV" }),
    },
    {
      name: "SIGKILLs itself",
      command: (c) => `${writePid(c)}; echo before; kill -KILL $$; echo after`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o) => expect(o.hooks[0]).to.include({ outcome: "error", signal: "SIGKILL", exitCode: null, stdout: "before\n", error: "killed by SIGKILL" }),
    },
    {
      name: "SIGKILLs its whole process group, a child included",
      command: (c) => `${writePid(c)}; ${c.sleep(300)} & kill -KILL 0`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o, c) => {
        expect(o.hooks[0]).to.include({ outcome: "error", signal: "SIGKILL" });
        expect(groupMembers(pidFromFile(c.pidFile)!)).to.deep.equal([]);
      },
    },
    {
      name: "closes stdin at once (1 MB payload)",
      payload: bigPayload,
      command: (c) => `${writePid(c)}; exec 0<&-; echo closed`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o) => expect(o.hooks[0]).to.include({ outcome: "success", exitCode: 0, stdout: "closed\n" }),
    },
    {
      name: "reads a few bytes of a 1 MB stdin one at a time, slowly, then exits",
      payload: bigPayload,
      command: (c) => `${writePid(c)}; printf 'got '; i=0; while [ $i -lt 40 ]; do dd bs=1 count=1 2>/dev/null; sleep 0.01; i=$((i+1)); done; echo; echo done`,
      timeout: 20,
      settlesWithin: 15_000,
      timesOut: false,
      check: (o) => {
        expect(o.hooks[0]).to.include({ outcome: "success", exitCode: 0 });
        expect(o.hooks[0]!.stdout).to.equal(`got ${bigPayload.slice(0, 40)}\ndone\n`);
      },
    },
    {
      name: "reads all of a 1 MB stdin in small reads, slowly: it gets exactly the bytes",
      payload: bigPayload,
      command: (c) =>
        `${writePid(c)}; : > ${c.dir}/got; while :; do dd bs=8192 count=1 2>/dev/null > ${c.dir}/chunk; [ -s ${c.dir}/chunk ] || break; cat ${c.dir}/chunk >> ${c.dir}/got; sleep 0.002; done; sha256sum < ${c.dir}/got`,
      timeout: 60,
      settlesWithin: 50_000,
      timesOut: false,
      check: (o) => {
        expect(o.hooks[0]).to.include({ outcome: "success", exitCode: 0 });
        expect(o.hooks[0]!.stdout.split(" ")[0]).to.equal(createHash("sha256").update(bigPayload).digest("hex"));
      },
    },
    {
      name: "reads stdin a byte at a time, slowly, forever",
      payload: bigPayload,
      command: (c) => `${writePid(c)}; while :; do dd bs=1 count=1 of=/dev/null 2>/dev/null; sleep 0.02; done`,
      timeout: 1,
      settlesWithin: 5000,
      timesOut: true,
      check: (o) => expect(kinds(o)).to.deep.equal(["timeout"]),
    },
    {
      name: "prints a 50 MB JSON object",
      command: (c) => `${writePid(c)}; printf '{"decision":"block","reason":"'; head -c 50000000 /dev/zero | tr '\\0' a; printf '"}'`,
      quickCli: true,
      timeout: 60,
      settlesWithin: 30_000,
      timesOut: false,
      check: (o) => {
        expect(o).to.include({ decision: "none", blocked: false });
        expect(o.hooks[0]).to.include({ outcome: "invalid-output", exitCode: 0, truncated: true, decision: "none" });
        expect(o.hooks[0]!.stdout.length).to.equal(MiB);
        expect(o.hooks[0]!.error).to.match(/not valid JSON .*cut at the output cap/);
      },
    },
    {
      name: "prints JSON after a UTF-8 byte order mark (read as JSON, as a payload's BOM is ignored)",
      command: (c) => `${writePid(c)}; printf '\\357\\273\\277{"decision":"block","reason":"bom"}\\n'`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o) => {
        expect(o).to.include({ decision: "deny", blocked: true, reason: "bom" });
        expect(o.hooks[0]).to.include({ outcome: "block", decision: "deny" });
      },
    },
    {
      name: "prints JSON followed by trailing garbage",
      command: (c) => `${writePid(c)}; printf '{"decision":"block","reason":"x"} and then some'`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o) => {
        expect(o).to.include({ decision: "none", blocked: false });
        expect(o.hooks[0]).to.include({ outcome: "invalid-output", decision: "none" });
        expect(o.hooks[0]!.error).to.match(/^stdout starts with \{ but is not valid JSON/);
      },
    },
    {
      name: "prints two JSON objects",
      command: (c) => `${writePid(c)}; echo '{"decision":"approve"}'; echo '{"decision":"block","reason":"second"}'`,
      timeout: 10,
      settlesWithin: 5000,
      timesOut: false,
      check: (o) => {
        expect(o).to.include({ decision: "none", blocked: false });
        expect(kinds(o)).to.deep.equal(["invalid-output"]);
      },
    },
  ];

  const ctxFor = (label: string): Ctx => ({
    pidFile: join(sb.root, `${label}.pid`),
    dir: sb.root,
    sleep: (s) => reaper.marker(uniqueSleep(s)),
  });

  /** The hostile hook on tool "Hostile", a well-behaved one on "Bash": the dispatch after the hostile one. */
  function settingsFor(c: HostileCase, ctx: Ctx): void {
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group("Hostile", { command: c.command(ctx), timeout: c.timeout, name: "hostile" }),
          group("Bash", { command: "cat >/dev/null; echo fine", name: "fine" }),
        ],
      },
    });
  }

  async function afterHostile(ctx: Ctx, c: HostileCase): Promise<void> {
    const pgid = pidFromFile(ctx.pidFile);
    expect(pgid, "the hook wrote its pid").to.be.a("number");
    reaper.group(pgid!);
    if (c.timesOut) {
      // SIGTERM at the timeout, SIGKILL after the 0.5 s grace: the whole group is gone soon after the outcome.
      await waitFor(`the timed-out hook's process group ${pgid} to be empty`, () => groupMembers(pgid!).length === 0, 3000);
    }
  }

  for (const c of cases) {
    it(`${c.name}: the bus settles on time with a defined outcome, and the next dispatch works ${QUICK}`, async function () {
      this.timeout(c.settlesWithin + 30_000);
      const ctx = ctxFor("bus");
      settingsFor(c, ctx);
      const bus = sb.bus();
      const start = performance.now();
      const outcome = await within(c.settlesWithin, "the hostile dispatch", bus.dispatch(c.payload ?? hostilePayload()));
      const elapsed = performance.now() - start;
      c.check(outcome, ctx);
      if (c.timesOut) expect(elapsed, "not before the timeout").to.be.at.least(c.timeout * 1000 - 50);
      await afterHostile(ctx, c);

      const next = await within(5000, "the next dispatch", bus.dispatch({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") }));
      expect(next.hooks.map((h) => [h.name, h.outcome, h.stdout])).to.deep.equal([["fine", "success", "fine\n"]]);
    });
  }

  // Through the CLI the same hooks, logged: the process exits on time with the outcome, the group is gone once it
  // has exited, the log is valid, and the next `qhooks run` works.
  for (const c of cases) {
    it(`${c.name}: qhooks run exits on time with a defined, logged outcome; the next run works${c.quickCli ? ` ${QUICK}` : ""}`, async function () {
      this.timeout(c.settlesWithin + 30_000);
      const ctx = ctxFor("cli");
      settingsFor(c, ctx);
      const r = await within(c.settlesWithin + 2000, "qhooks run", sb.run(["run", "PreToolUse"], { input: c.payload ?? hostilePayload() }));
      expectCleanCli(r, "qhooks run");
      const outcome = JSON.parse(r.stdout) as Outcome;
      expect(r.code, r.stderr).to.equal(outcome.blocked ? 2 : 0);
      c.check(outcome, ctx);
      await afterHostile(ctx, c);
      if (c.timesOut) expect(groupMembers(pidFromFile(ctx.pidFile)!), "gone by the time the CLI exited").to.deep.equal([]);

      const next = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
      expect(next.code, next.stderr).to.equal(0);
      expect((next.outcome!.hooks as Json[]).map((h) => [h.name, h.outcome, h.stdout])).to.deep.equal([["fine", "success", "fine\n"]]);
      const log = await sb.run(["log", "--json"]);
      const records = JSON.parse(log.stdout) as Outcome[];
      expect(records.map((x) => [x.seq, x.hooks.map((h) => h.outcome)])).to.deep.equal([
        [next.outcome!.seq, ["success"]],
        [outcome.seq, kinds(outcome)],
      ]);
      const verify = await sb.run(["verify"]);
      expect(verify.code, verify.stderr).to.equal(0);
    });
  }

  it(`200 matching hooks on one event: every one runs and reports, in order (bus and CLI) ${QUICK}`, async function () {
    this.timeout(120_000);
    const N = 200;
    const commands = Array.from({ length: N }, (_, i) => ({
      command: `cat >/dev/null; echo hook-${i}; [ $((${i} % 50)) -eq 7 ] && exit 3; exit 0`,
      name: `h${i}`,
    }));
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", ...commands)] } });
    const expected = commands.map((_, i) => [`h${i}`, i % 50 === 7 ? "error" : "success", `hook-${i}\n`]);

    const bus = sb.bus();
    const fdsBefore = openFdCount();
    const outcome = await within(60_000, "200 hooks on the bus", bus.dispatch({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") }));
    const differ = (hooks: Outcome["hooks"]) =>
      hooks.flatMap((h, i) =>
        JSON.stringify([h.name, h.outcome, h.stdout]) === JSON.stringify(expected[i]) ? [] : [JSON.stringify({ ...h, command: undefined })],
      );
    expect(differ(outcome.hooks), "bus").to.deep.equal([]);
    await waitFor("fds back after 200 hooks", () => openFdCount() <= fdsBefore + 3, 3000);

    const r = await within(60_000, "200 hooks through the CLI", sb.run(["run", "PreToolUse"], { input: JSON.stringify(payloadFor("PreToolUse")) }));
    expectCleanCli(r, "qhooks run");
    expect(r.code, r.stderr).to.equal(0);
    expect(differ((JSON.parse(r.stdout) as Outcome).hooks), "cli").to.deep.equal([]);
    const records = JSON.parse((await sb.run(["log", "--json"])).stdout) as Outcome[];
    expect(records[0]!.hooks).to.have.length(N);
  });

  it(`200 hooks that print a blocking decision and exit at once: every decision counts, also on a busy event loop (bus and CLI) ${QUICK}`, async function () {
    this.timeout(120_000);
    // They exit without reading stdin, many at the same moment: each one's output must still be read after its
    // exit has been seen, however long the engine's event loop takes to get to it.
    const N = 200;
    const hooks = Array.from({ length: N }, (_, i) => ({ command: `echo '{"decision":"block","reason":"h${i}"}'`, name: `h${i}` }));
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", ...hooks)] } });
    const bus = sb.bus();
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    for (const loop of ["idle", "busy"]) {
      const ticker = loop === "busy" ? setInterval(() => busy(30), 35) : null;
      try {
        for (let run = 0; run < 3; run++) {
          const outcome = await within(60_000, "200 deciding hooks", bus.dispatch({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") }));
          const lost = outcome.hooks.filter((h) => h.outcome !== "block").map((h) => `${h.name}: ${h.outcome} stdout=${JSON.stringify(h.stdout)}`);
          expect(lost, `${loop} loop, run ${run}: decisions lost`).to.deep.equal([]);
          expect(outcome.reason!.split("\n")).to.deep.equal(hooks.map((h) => h.name));
        }
      } finally {
        if (ticker) clearInterval(ticker);
      }
    }
    const r = await within(60_000, "through the CLI", sb.run(["run", "PreToolUse", "--no-log"], { input: JSON.stringify(payloadFor("PreToolUse")) }));
    expect(r.code).to.equal(2);
    expect((JSON.parse(r.stdout) as Outcome).hooks.filter((h) => h.outcome !== "block")).to.deep.equal([]);
  });
});

/**
 * A thousand runs of misbehaving hooks through one bus: file descriptors, child processes and watched process
 * groups are back where they started (the quick subset does fewer runs).
 */
describe("reliability: a thousand hostile runs through one bus leak nothing", () => {
  let sb: Sandbox;
  const reaper = new Reaper();
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    reaper.reap();
    await sb.cleanup();
  });

  async function hammer(runs: number): Promise<void> {
    // A daemon that holds the hook's pipes for a fraction of a second after it exits (uniqueSleep(0) is `sleep 0.<digits>`).
    const daemon = reaper.marker(uniqueSleep(0));
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group(
            undefined,
            { command: "exec 0<&-; echo closed", name: "closes-stdin" },
            { command: "ulimit -c 0; kill -SEGV $$", name: "segv" },
            { command: "kill -KILL $$", name: "sigkill" },
            { command: `( ( exec ${daemon} ) & ); echo daemon`, name: "daemon" },
            { command: "head -c 200000 /dev/zero & head -c 200000 /dev/zero >&2; wait", name: "flood" },
            { command: 'printf \'\\357\\273\\277{"decision":"approve"}\'', name: "bom" },
            { command: 'echo \'{"decision":"approve"} garbage\'', name: "garbage" },
          ),
          group("Slow", { command: `exec ${reaper.marker(uniqueSleep(30))}`, timeout: 0.2, name: "slow" }),
        ],
      },
    });
    const bus = sb.bus({ env: sb.env({ QHOOKS_MAX_OUTPUT: "65536" }) });
    const payload = (i: number) => ({
      hook_event_name: "PreToolUse",
      ...payloadFor("PreToolUse", { tool_name: i % 10 === 0 ? "Slow" : "Bash", tool_input: { command: "x".repeat(50_000) } }),
    });
    const expectedKinds = (i: number) => ["success", "error", "error", "success", "success", "success", "invalid-output", ...(i % 10 === 0 ? ["timeout"] : [])];
    // Warm up: the watchdog, the settings watcher and lazily loaded modules are set up once per process.
    for (let i = 0; i < 3; i++) await bus.dispatch(payload(i));
    await waitFor("warm-up groups released", () => liveGroupCount() === 0, 3000);
    const fdsBefore = openFdCount();
    const childrenBefore = childrenOf(process.pid).length;

    const start = performance.now();
    for (let done = 0; done < runs; done += 10) {
      const outcomes = await within(
        30_000,
        `dispatches ${done}..${done + 9}`,
        Promise.all(Array.from({ length: 10 }, (_, k) => bus.dispatch(payload(done + k)))),
      );
      outcomes.forEach((o, k) =>
        expect(
          o.hooks.map((h) => h.outcome),
          `run ${done + k}`,
        ).to.deep.equal(expectedKinds(done + k)),
      );
    }
    const elapsed = performance.now() - start;

    await waitFor("every group released", () => liveGroupCount() === 0, 3000);
    await waitFor(`fds back to about ${fdsBefore} (now ${openFdCount()})`, () => openFdCount() <= fdsBefore + 3, 3000);
    // The daemons (sub-second sleeps) are the hooks' business; once they have ended nothing is left.
    await waitFor("no hook processes left", () => childrenOf(process.pid).length <= childrenBefore && pidsMatching(daemon).length === 0, 5000);
    console.log(`      ${runs} runs (${runs * 7 + runs / 10} hook processes) in ${Math.round(elapsed)} ms; fds ${fdsBefore} -> ${openFdCount()}`);
  }

  it(`200 runs ${QUICK}`, async function () {
    this.timeout(120_000);
    await hammer(200);
  });

  it("1,000 runs", async function () {
    this.timeout(300_000);
    await hammer(1000);
  });
});
