import { expect } from "chai";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom } from "rxjs";
import { CappedOutput } from "../../src/exec/cappedOutput.js";
import { KILL_GRACE_MS } from "../../src/exec/killGrace.js";
import { liveGroupCount } from "../../src/exec/processGroups.js";
import { spawnHook, type HookProcessEnd } from "../../src/exec/spawnHook.js";
import { Reaper, groupMembers, isAlive, pidFromFile, pidsMatching, uniqueSleep, waitFor } from "./processes.js";

const MiB = 1024 * 1024;

/** spawnHook on its own: real /bin/sh processes, real pipes, nothing mocked. */
describe("spawnHook", () => {
  let dir: string;
  const reaper = new Reaper();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "qhooks-spawn-"));
  });
  afterEach(() => {
    reaper.reap();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, SHLVL: "1", LANG: "C.UTF-8" });

  async function run(command: string, options: { input?: string; cap?: number; cwd?: string; env?: Record<string, string> } = {}) {
    const stdout = new CappedOutput(options.cap ?? MiB);
    const stderr = new CappedOutput(options.cap ?? MiB);
    const start = performance.now();
    const end: HookProcessEnd = await firstValueFrom(
      spawnHook({ command, cwd: options.cwd ?? dir, env: options.env ?? env(), input: options.input ?? "{}", stdout, stderr }),
    );
    return { end, stdout, stderr, ms: performance.now() - start };
  }

  describe("stdin", () => {
    it("delivers the payload byte for byte, then EOF", async () => {
      const input = JSON.stringify({ session_id: "s1", text: "héllo 😀 中文 \u0000 \u2028", n: 1 });
      const r = await run("cat; echo; echo eof-seen", { input });
      expect(r.end).to.deep.equal({ type: "exited", exitCode: 0, signal: null });
      expect(r.stdout.text()).to.equal(`${input}\neof-seen\n`);
    });

    it("delivers a 1 MB payload with emoji and CJK intact to a hook that reads it", async () => {
      const input = JSON.stringify({ blob: "😀中文ok".repeat(100_000) });
      expect(Buffer.byteLength(input)).to.be.above(MiB);
      const r = await run("cat", { input, cap: 4 * MiB });
      expect(r.end).to.include({ exitCode: 0 });
      expect(r.stdout.truncated).to.equal(false);
      expect(r.stdout.text()).to.equal(input);
    });

    for (const [what, command] of [
      ["exits at once without reading it", "echo ok"],
      ["closes stdin and keeps running", "exec 0<&-; sleep 0.2; echo ok"],
      ["reads only the first bytes", "head -c 5 >/dev/null; echo ok"],
    ] as const) {
      it(`survives a 1 MB unicode payload sent to a hook that ${what} (no EPIPE trouble)`, async () => {
        const input = JSON.stringify({ blob: "😀中文".repeat(120_000) });
        expect(Buffer.byteLength(input)).to.be.above(MiB);
        const r = await run(command, { input });
        expect(r.end).to.deep.equal({ type: "exited", exitCode: 0, signal: null });
        expect(r.stdout.text()).to.equal("ok\n");
        expect(r.stderr.text()).to.equal("");
      });
    }
  });

  describe("how the main process ended", () => {
    it("reports the exit code", async () => {
      const r = await run("echo oops >&2; exit 3");
      expect(r.end).to.deep.equal({ type: "exited", exitCode: 3, signal: null });
      expect(r.stderr.text()).to.equal("oops\n");
    });

    it("reports a signal the hook got from elsewhere, with no exit code", async () => {
      const r = await run("kill -KILL $$");
      expect(r.end).to.deep.equal({ type: "exited", exitCode: null, signal: "SIGKILL" });
    });

    it("runs in the given working directory with exactly the given environment", async () => {
      const r = await run('pwd -P; echo "X=$X HOME=$HOME"; env | grep -c "^INHERITED_BY_ACCIDENT=" || true', {
        env: { ...env(), X: "1" },
      });
      process.env.INHERITED_BY_ACCIDENT = "yes";
      try {
        const again = await run('echo "${INHERITED_BY_ACCIDENT:-absent}"');
        expect(again.stdout.text()).to.equal("absent\n");
      } finally {
        delete process.env.INHERITED_BY_ACCIDENT;
      }
      const [cwd, vars] = r.stdout.text().split("\n");
      expect(cwd).to.equal(realpathSync(dir));
      expect(vars).to.equal(`X=1 HOME=${dir}`);
    });

    it("starts the hook as the leader of a process group of its own", async () => {
      const pidFile = join(dir, "pid");
      const r = await run(`echo $$ > ${pidFile}; ps -o pgid= -p $$ | tr -d ' '`);
      const pid = pidFromFile(pidFile);
      expect(r.stdout.text().trim()).to.equal(String(pid));
    });

    it("is a spawn-error value, not a crash, when the working directory does not exist", async () => {
      const r = await run("echo hi", { cwd: join(dir, "gone") });
      expect(r.end.type).to.equal("spawn-error");
      if (r.end.type === "spawn-error") {
        expect(r.end.message)
          .to.match(/^could not start the hook: /)
          .and.include(join(dir, "gone"));
        expect(r.end.message, "one line").to.not.include("\n");
      }
    });
  });

  describe("background processes left behind after a normal exit (contract 8)", () => {
    it("finishes as soon as the main process exits, without waiting for a grandchild that holds stdout, and does not kill it", async () => {
      const sleeper = reaper.marker(uniqueSleep(3));
      const r = await run(`(${sleeper}; echo late) & echo done`);
      expect(r.end).to.deep.equal({ type: "exited", exitCode: 0, signal: null });
      expect(r.ms, "not waiting for the 3 s grandchild").to.be.below(1000);
      expect(r.stdout.text()).to.equal("done\n");
      // Still running after the result, and after the grace a kill would have had.
      await new Promise((res) => setTimeout(res, KILL_GRACE_MS + 150));
      expect(pidsMatching(sleeper), "the background process is left alone").to.not.be.empty;
    });

    it("stops watching the group once the main process has exited", async () => {
      const before = liveGroupCount();
      const sleeper = reaper.marker(uniqueSleep(3));
      await run(`${sleeper} >/dev/null 2>&1 & echo done`);
      expect(liveGroupCount()).to.equal(before);
    });
  });

  describe("unsubscribing (timeout, cancelled dispatch)", () => {
    async function startAndUnsubscribe(command: string, pidFile: string, readyFile?: string) {
      const stdout = new CappedOutput(MiB);
      const stderr = new CappedOutput(MiB);
      const ends: HookProcessEnd[] = [];
      const sub = spawnHook({ command, cwd: dir, env: env(), input: "{}", stdout, stderr }).subscribe((e) => ends.push(e));
      const pgid = reaper.group(await waitFor("the hook's pid file", () => pidFromFile(pidFile), 3000));
      if (readyFile !== undefined) await waitFor("the hook to be ready", () => pidFromFile(readyFile), 3000);
      expect(groupMembers(pgid).length).to.be.at.least(2);
      const unsubscribedAt = performance.now();
      sub.unsubscribe();
      return { pgid, ends, unsubscribedAt };
    }

    it("kills the whole process group, grandchildren included", async () => {
      const sleeper = reaper.marker(uniqueSleep(30));
      const pidFile = join(dir, "pid");
      const { pgid, ends } = await startAndUnsubscribe(`echo $$ > ${pidFile}; ${sleeper} & wait`, pidFile);
      await waitFor("the group to be gone", () => groupMembers(pgid).length === 0, 1000);
      expect(pidsMatching(sleeper)).to.deep.equal([]);
      expect(ends, "nothing is emitted after unsubscribe").to.deep.equal([]);
    });

    it("SIGKILLs, after the grace, a group that ignores SIGTERM", async () => {
      const sleeper = reaper.marker(uniqueSleep(30));
      const pidFile = join(dir, "pid");
      const { pgid, unsubscribedAt } = await startAndUnsubscribe(`trap '' TERM; echo $$ > ${pidFile}; ${sleeper} & wait`, pidFile);
      await new Promise((r) => setTimeout(r, KILL_GRACE_MS / 2));
      expect(groupMembers(pgid), "SIGTERM is ignored").to.not.be.empty;
      await waitFor("the group to be SIGKILLed", () => groupMembers(pgid).length === 0, KILL_GRACE_MS + 1000);
      expect(performance.now() - unsubscribedAt).to.be.at.least(KILL_GRACE_MS - 50);
    });

    it("SIGKILLs a grandchild that ignores SIGTERM and holds stdout even though the main process died of the SIGTERM", async () => {
      const sleeper = reaper.marker(uniqueSleep(30));
      const pidFile = join(dir, "pid");
      const ready = join(dir, "ready");
      const { pgid } = await startAndUnsubscribe(`echo $$ > ${pidFile}; sh -c "trap '' TERM; echo \\$\\$ > ${ready}; exec ${sleeper}" & wait`, pidFile, ready);
      await waitFor("the main process to die of SIGTERM", () => !isAlive(pgid), 1000);
      expect(pidsMatching(sleeper), "the grandchild ignored SIGTERM").to.not.be.empty;
      await waitFor("the grandchild to be SIGKILLed", () => groupMembers(pgid).length === 0, KILL_GRACE_MS + 1000);
    });
  });

  describe("output", () => {
    it("keeps at most the cap of an 8 MB flood on stdout and on stderr at once, and the hook is not blocked by full pipes", async () => {
      const r = await run("head -c 8388608 /dev/zero | tr '\\0' o & head -c 8388608 /dev/zero | tr '\\0' e >&2 & wait; echo end >&2");
      expect(r.end).to.deep.equal({ type: "exited", exitCode: 0, signal: null });
      expect(r.ms).to.be.below(5000);
      for (const [stream, ch] of [
        [r.stdout, "o"],
        [r.stderr, "e"],
      ] as const) {
        const text = stream.text();
        expect(text.length).to.equal(MiB);
        expect(text).to.equal(ch.repeat(MiB));
        expect(stream.truncated).to.equal(true);
        expect(stream.droppedBytes).to.equal(8 * MiB - MiB + (ch === "e" ? 4 : 0));
      }
    });

    it("turns bytes that are not UTF-8 into U+FFFD and keeps the rest", async () => {
      const r = await run("printf 'a\\377\\376b\\300c'; printf '\\200x' >&2");
      expect(r.end).to.include({ exitCode: 0 });
      expect(r.stdout.text()).to.equal("a\uFFFD\uFFFDb\uFFFDc");
      expect(r.stderr.text()).to.equal("\uFFFDx");
    });

    it("reads output written just before the exit", async () => {
      const r = await run("i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done");
      const lines = r.stdout.text().split("\n");
      expect(lines).to.have.length(2001);
      expect(lines[1999]).to.equal("line1999");
    });
  });
});
