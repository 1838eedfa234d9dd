import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { DEFAULT_MAX_EVENT_OUTPUT_BYTES } from "../../src/exec/cappedOutput.js";
import { MAX_SETTINGS_BYTES } from "../../src/settings/loadSettings.js";
import { warningLines } from "../settings/support.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { BUS_MODULE, QUICK, cliWithDeadline, expectCleanCli, prng } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Nothing may make a guard's decision disappear: settings paths that are not settings files, a flood of output
 * from a hundred hooks, a log path that is not qhooks' to touch. Seeded random combinations of real FIFOs, sockets,
 * devices, links and big files, the real CLI and a real host process for the library; every run must block.
 */
describe("reliability: fail-open holes stay closed", function () {
  this.timeout(300_000);
  let sb: Sandbox;
  const servers: Server[] = [];
  beforeEach(() => (sb = new Sandbox()));
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
    await sb.cleanup();
  });

  /** A Unix socket file at `path`, listening until the test ends. */
  const socketAt = (path: string) =>
    new Promise<void>((resolve) => {
      const server = createServer();
      servers.push(server);
      server.listen(path, resolve);
    });

  /** What a settings path can be besides a settings file, and the warning it gives (null: treated as missing). */
  const hostileSettings: ReadonlyArray<{ kind: string; why: RegExp | null; make: (path: string) => void | Promise<void> }> = [
    { kind: "fifo", why: /is a FIFO, not a regular file/, make: (p) => void spawnSync("mkfifo", [p]) },
    { kind: "/dev/zero", why: /is a device, not a regular file/, make: (p) => symlinkSync("/dev/zero", p) },
    { kind: "/dev/urandom", why: /is a device, not a regular file/, make: (p) => symlinkSync("/dev/urandom", p) },
    { kind: "/dev/tty", why: /is a device, not a regular file/, make: (p) => symlinkSync("/dev/tty", p) },
    { kind: "/dev/stdin", why: /is a (socket|FIFO), not a regular file/, make: (p) => symlinkSync("/dev/stdin", p) },
    { kind: "socket", why: /is a socket, not a regular file/, make: (p) => socketAt(p) },
    { kind: "directory", why: /cannot be read \(is a directory\)/, make: (p) => mkdirSync(p) },
    { kind: "link loop", why: /cannot be read \(a loop of symbolic links\)/, make: (p) => symlinkSync(p, p) },
    { kind: "dangling link", why: null, make: (p) => symlinkSync(join(dirname(p), "nowhere", "x.json"), p) },
    {
      kind: "too large",
      why: new RegExp(`more than the ${MAX_SETTINGS_BYTES} a settings file may have`),
      make: (p) => writeFileSync(p, `{"hooks":{}}${" ".repeat(MAX_SETTINGS_BYTES)}`),
    },
    { kind: "deep and broken", why: /not valid JSON/, make: (p) => writeFileSync(p, "[".repeat(500_000)) },
  ];

  const levels = () => [
    join(sb.home, ".qoder-cn", "settings.json"),
    join(sb.project, ".qoder", "settings.json"),
    join(sb.project, ".qoder", "settings.local.json"),
  ];
  const displays = ["~/.qoder-cn/settings.json", ".qoder/settings.json", ".qoder/settings.local.json"];
  const guard = { hooks: { PreToolUse: [group("Bash", "echo 'guard: no' >&2; exit 2")] } };
  const rm = () => JSON.stringify(payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }));

  it(`random hostile settings files at every level, the guard in one regular file: every run and hooks call answers, and the guard blocks ${QUICK}`, async () => {
    const random = prng(0x5e771c);
    for (let round = 0; round < 24; round++) {
      const paths = levels();
      for (const p of paths) {
        rmSync(p, { recursive: true, force: true });
        mkdirSync(dirname(p), { recursive: true });
      }
      const guardAt = Math.floor(random() * 3);
      const expected: string[] = [];
      for (let i = 0; i < 3; i++) {
        if (i === guardAt) {
          writeFileSync(paths[i]!, JSON.stringify(guard));
          continue;
        }
        const hostile = hostileSettings[Math.floor(random() * hostileSettings.length)]!;
        await hostile.make(paths[i]!);
        if (hostile.why) expected.push(`${displays[i]} ${hostile.kind}`);
      }
      const label = `round ${round} (guard at ${displays[guardAt]}, expecting ${expected.join(", ") || "no warnings"})`;
      const r = await cliWithDeadline(sb, ["run", "PreToolUse", "--no-log"], { input: rm(), deadlineMs: 20_000 });
      expect(r.hung, `${label}: hung`).to.equal(false);
      expectCleanCli(r, label);
      expect(r.code, `${label}: ${r.stderr}`).to.equal(2);
      const warnings = warningLines(r.stderr);
      expect(warnings, label).to.have.length(expected.length);
      for (const [n, w] of warnings.entries())
        expect(w, label)
          .to.match(/; this file is skipped$/)
          .and.satisfy((s: string) => s.startsWith(expected[n]!.split(" ")[0]!));
      const hooks = await cliWithDeadline(sb, ["hooks"], { deadlineMs: 20_000 });
      expect([hooks.hung, hooks.code], `${label}: qhooks hooks`).to.deep.equal([false, 0]);
    }
  });

  it(`a watched settings file turned into each hostile thing in turn: the host lives on and the user's guard keeps blocking ${QUICK}`, async () => {
    sb.userSettings(guard);
    const project = join(sb.project, ".qoder", "settings.json");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "exit 0")] } });
    const payload = { ...payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }), hook_event_name: "PreToolUse" };
    // The host waits until its bus has seen each change, then dispatches. A new config hash alone is not enough:
    // the file is removed before the next hostile thing is made, and a poll in between sees a configuration without
    // it (as a dangling link is), so the host waits for the warning the new thing gives (or for none).
    const source = `
      const { createHookBus } = await import(${JSON.stringify(BUS_MODULE)});
      const bus = createHookBus({ projectDir: ${JSON.stringify(sb.project)}, homeDir: ${JSON.stringify(sb.home)}, db: false, env: { PATH: process.env.PATH, SHLVL: "1" }, watch: true });
      const lines = (await import("node:readline")).createInterface({ input: process.stdin });
      console.log("ready");
      for await (const line of lines) {
        if (line === "end") break;
        const { previous, why } = JSON.parse(line);
        const expected = (s) => (why === null ? !s.warnings.some((w) => w.includes(".qoder/settings.json")) : s.warnings.some((w) => new RegExp(why).test(w)));
        const until = Date.now() + 10000;
        while ((bus.settings().hash === previous || !expected(bus.settings())) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        const outcome = await bus.dispatch(${JSON.stringify(payload)});
        console.log(JSON.stringify({ decision: outcome.decision, hash: bus.settings().hash }));
      }
      await bus.close();`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], { cwd: sb.project, env: sb.env(), stdio: ["pipe", "pipe", "pipe"] });
    const stderr: Buffer[] = [];
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    const lines: string[] = [];
    let waiting: (() => void) | null = null;
    let buffered = "";
    child.stdout.on("data", (c: Buffer) => {
      buffered += c.toString("utf8");
      for (let i = buffered.indexOf("\n"); i !== -1; i = buffered.indexOf("\n")) {
        lines.push(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        waiting?.();
      }
    });
    const nextLine = async (): Promise<string> => {
      const deadline = Date.now() + 20_000;
      while (lines.length === 0) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the host stopped answering: ${Buffer.concat(stderr).toString("utf8")}`);
        await new Promise<void>((r) => {
          waiting = r;
          setTimeout(r, 200);
        });
      }
      return lines.shift()!;
    };
    try {
      expect(await nextLine()).to.equal("ready");
      let hash = "";
      let previous: RegExp | null | undefined;
      const random = prng(0xfa11);
      for (let step = 0; step < 16; step++) {
        // Each step changes what the configuration says (its warning), so that the host can tell it has seen it.
        const candidates = hostileSettings.filter((h) => h.why?.source !== previous?.source);
        const hostile = candidates[Math.floor(random() * candidates.length)]!;
        previous = hostile.why;
        rmSync(project, { recursive: true, force: true });
        await hostile.make(project);
        child.stdin.write(`${JSON.stringify({ previous: hash, why: hostile.why?.source ?? null })}\n`);
        const answer = JSON.parse(await nextLine()) as { decision: string; hash: string };
        expect(answer.hash, `step ${step}: ${hostile.kind} was not seen by the watcher`).not.to.equal(hash);
        expect(answer.decision, `step ${step}: ${hostile.kind}`).to.equal("deny");
        hash = answer.hash;
      }
      child.stdin.end("end\n");
      const code = await new Promise((r) => child.on("close", r));
      expect(code, Buffer.concat(stderr).toString("utf8")).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it(`a hundred hooks each printing 1 MiB on stdout and stderr, and a guard: the block stands, logged, within the event's total ${QUICK}`, async () => {
    const floods = Array.from({ length: 100 }, (_, i) => ({
      type: "command",
      command: `head -c 1048576 /dev/zero | tr '\\0' '\\001'; head -c 1048576 /dev/zero >&2 # ${i}`,
    }));
    sb.projectSettings({ hooks: { PreToolUse: [{ hooks: [...floods, { type: "command", name: "guard", command: "echo 'guard: no' >&2; exit 2" }] }] } });
    const r = await cliWithDeadline(sb, ["run", "PreToolUse"], { input: rm(), deadlineMs: 120_000 });
    expect(r.hung).to.equal(false);
    expectCleanCli(r, "flood");
    expect(r.code).to.equal(2);
    const outcome = JSON.parse(r.stdout) as { decision: string; seq: number | null; hooks: Json[] };
    expect(outcome.decision).to.equal("deny");
    expect(outcome.seq, "logged").to.be.a("number");
    expect(outcome.hooks).to.have.length(101);
    expect(outcome.hooks.at(-1)).to.include({ name: "guard", outcome: "block", reason: "guard: no" });
    const kept = outcome.hooks.reduce((n, h) => n + Buffer.byteLength(h.stdout as string) + Buffer.byteLength(h.stderr as string), 0);
    expect(kept).to.be.at.most(DEFAULT_MAX_EVENT_OUTPUT_BYTES);
    const v = await cliWithDeadline(sb, ["verify"], { deadlineMs: 60_000 });
    expect(v.code, v.stderr).to.equal(0);
  });

  it(`random things at the log path and beside it: run always blocks with at most one warning, and nothing else is changed ${QUICK}`, async () => {
    sb.projectSettings(guard);
    const random = prng(0x10a);
    const victim = sb.file("victim.txt", "not qhooks'\n", 0o644);
    const kinds: ReadonlyArray<{ kind: string; make: (path: string) => void | Promise<void> }> = [
      { kind: "nothing", make: () => undefined },
      { kind: "a text file", make: (p) => writeFileSync(p, "127.0.0.1 localhost\n", { mode: 0o644 }) },
      { kind: "a link to the victim", make: (p) => symlinkSync(victim, p) },
      { kind: "a dangling link", make: (p) => symlinkSync(join(sb.root, "dangling-target", "x"), p) },
      { kind: "a FIFO", make: (p) => void spawnSync("mkfifo", [p]) },
      { kind: "a device", make: (p) => void spawnSync("mknod", [p, "c", "1", "3"]) },
      { kind: "a directory", make: (p) => mkdirSync(p) },
      { kind: "a socket", make: (p) => socketAt(p) },
    ];
    for (let round = 0; round < 20; round++) {
      const dir = join(sb.root, `logs-${round}`);
      mkdirSync(dir, { mode: 0o700 });
      const db = join(dir, "events.db");
      const atPath = kinds[Math.floor(random() * kinds.length)]!;
      const beside = kinds[Math.floor(random() * kinds.length)]!;
      const suffix = ["-wal", "-shm", "-journal"][Math.floor(random() * 3)]!;
      await atPath.make(db);
      await beside.make(db + suffix);
      const label = `round ${round}: ${atPath.kind} at the path, ${beside.kind} at ${suffix}`;
      const r = await cliWithDeadline(sb, ["--db", db, "run", "PreToolUse"], { input: rm(), deadlineMs: 20_000 });
      expect(r.hung, label).to.equal(false);
      expectCleanCli(r, label);
      expect(r.code, `${label}: ${r.stderr}`).to.equal(2);
      expect(warningLines(r.stderr).length, `${label}: ${r.stderr}`).to.be.at.most(1);
      expect(readFileSync(victim, "utf8"), label).to.equal("not qhooks'\n");
      expect((statSync(victim).mode & 0o777).toString(8), label).to.equal("644");
      expect(existsSync(join(sb.root, "dangling-target")), `${label}: created through a dangling link`).to.equal(false);
    }
  });
});
