import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_SETTINGS_BYTES } from "../../src/settings/loadSettings.js";
import { MAX_WARNINGS_PER_FILE } from "../../src/settings/parseSettingsFile.js";
import { BUS_MODULE } from "../reliability/support.js";
import { runHostile } from "../support/hostileCli.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { settings, warningLines } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Settings paths that are not regular files, and files too large to be settings: a repository can carry a symlink to
 * /dev/zero, /dev/stdin or a FIFO through git, and a generated or hostile file can be megabytes. Each such file is
 * skipped with one warning; every other file still applies, so a guard of another level still blocks. Real FIFOs,
 * real symlinks to devices, real big files, the real CLI and a real host process for the library.
 */
describe("hostile settings files", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    // The guard every case must keep: a user-level hook that blocks rm -rf.
    sb.userSettings(settings({ PreToolUse: [group("Bash", "echo 'user guard: no' >&2; exit 2")] }));
  });
  afterEach(() => sb.cleanup());

  const projectFile = () => join(sb.project, ".qoder", "settings.json");
  const rmPayload = () => JSON.stringify(payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }));
  const asProjectFile = (make: (path: string) => void) => {
    mkdirSync(join(sb.project, ".qoder"), { recursive: true });
    make(projectFile());
  };

  /** `qhooks run` still blocks, quickly, with exactly one warning about the project file saying `why`. */
  async function expectGuardKept(why: RegExp, prefix?: readonly string[]) {
    const r = await runHostile(sb, ["run", "PreToolUse", "--no-log"], { stdin: rmPayload(), deadlineMs: 15_000, ...(prefix ? { prefix } : {}) });
    expect(r.hung, "qhooks run hung").to.equal(false);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.include("user guard: no");
    const warnings = warningLines(r.stderr);
    expect(warnings, r.stderr).to.have.length(1);
    expect(warnings[0])
      .to.match(/^\.qoder\/settings\.json: /)
      .and.match(why)
      .and.match(/this file is skipped$/);
    const hooks = await runHostile(sb, ["hooks", "--json"], { deadlineMs: 15_000, ...(prefix ? { prefix } : {}) });
    expect(hooks.hung, "qhooks hooks hung").to.equal(false);
    expect(hooks.code, hooks.stderr).to.equal(0);
    const listing = JSON.parse(hooks.stdout) as { files: { level: string; state: string }[]; warnings: string[] };
    expect(listing.files.map((f) => [f.level, f.state])).to.deep.equal([
      ["user", "loaded"],
      ["project", "unreadable"],
      ["local", "missing"],
    ]);
    expect(listing.warnings).to.have.length(1);
  }

  it("a FIFO as the project settings: never opened for a blocking read; the user guard still blocks", async () => {
    asProjectFile((path) => expect(spawnSync("mkfifo", [path]).status, "mkfifo").to.equal(0));
    await expectGuardKept(/is a FIFO, not a regular file/);
  });

  it("a symlink to /dev/zero: never read (no memory growth); the user guard still blocks", async () => {
    asProjectFile((path) => symlinkSync("/dev/zero", path));
    // An address-space limit turns an unbounded read into a quick death instead of eating the machine's memory.
    await expectGuardKept(/is a device, not a regular file/, ["prlimit", "--as=1500000000"]);
  });

  it("a symlink to a file over the size limit, and a plain file over it: skipped with the sizes named", async () => {
    const big = join(sb.root, "big.json");
    // About 150,000 handlers (5 MB): more than a spread or push(...) can take on the stack.
    const hooks = Array.from({ length: 150_000 }, (_, i) => ({ type: "command", command: `true ${i}` }));
    writeFileSync(big, JSON.stringify(settings({ PreToolUse: [{ matcher: "Bash", hooks }] })));
    asProjectFile((path) => symlinkSync(big, path));
    await expectGuardKept(new RegExp(`is \\d+ bytes, more than the ${MAX_SETTINGS_BYTES} a settings file may have`));
    rmSync(projectFile());
    renameSync(big, projectFile());
    await expectGuardKept(/more than the \d+ a settings file may have/);
  });

  it("a file just under the limit with 300,000 bad entries: at most 100 warnings and one count, and it still loads", async () => {
    // `{}` handlers, three bytes each: every one is a warning (no command).
    const count = Math.floor((MAX_SETTINGS_BYTES - 200) / 3);
    const text = JSON.stringify(settings({ PreToolUse: [{ matcher: "Read", hooks: Array.from({ length: count }, () => ({})) }] }));
    expect(text.length).to.be.below(MAX_SETTINGS_BYTES);
    sb.projectSettings(text);
    const r = await runHostile(sb, ["run", "PreToolUse", "--no-log"], { stdin: rmPayload(), deadlineMs: 30_000 });
    expect(r.code, r.stderr.slice(-500)).to.equal(2);
    const warnings = warningLines(r.stderr);
    expect(warnings).to.have.length(MAX_WARNINGS_PER_FILE + 1);
    expect(warnings.at(-1)).to.equal(
      `.qoder/settings.json: ${count - MAX_WARNINGS_PER_FILE} more warnings about this file not shown (at most ${MAX_WARNINGS_PER_FILE} are)`,
    );
  });

  it("a file nested a million levels deep and broken at the end: its line and column are named, no stack overflow", async () => {
    sb.projectSettings(`{"hooks":\n${"[".repeat(1_000_000)}x`);
    const r = await runHostile(sb, ["run", "PreToolUse", "--no-log"], { stdin: rmPayload(), deadlineMs: 30_000 });
    expect(r.code, r.stderr).to.equal(2);
    expect(warningLines(r.stderr)).to.deep.equal([`.qoder/settings.json: not valid JSON (line 2 column 1000001: Unexpected token 'x'); this file is skipped`]);
  });

  describe("through the library, in a real host process", () => {
    const host = (body: string) => `
      const { createHookBus } = await import(${JSON.stringify(BUS_MODULE)});
      const bus = createHookBus({ projectDir: ${JSON.stringify(sb.project)}, homeDir: ${JSON.stringify(sb.home)}, db: false, env: { PATH: process.env.PATH, SHLVL: "1" }, watch: WATCH });
      const warnings = [];
      bus.warnings$.subscribe((w) => warnings.push(w));
      const dispatch = () => bus.dispatch({ ...${rmPayload()}, hook_event_name: "PreToolUse" });
      ${body}
      await bus.close();`;

    it("a symlink to /dev/stdin: the bus does not swallow the host's own stdin (a shell pipe)", async () => {
      asProjectFile((path) => symlinkSync("/dev/stdin", path));
      const source = host(`
        const outcome = await dispatch();
        let mine = "";
        for await (const chunk of process.stdin) mine += chunk;
        console.log(JSON.stringify({ decision: outcome.decision, warnings, mine }));`).replace("WATCH", "false");
      // The host's stdin is a real pipe from a shell, as for an agent started in a pipeline.
      const r = spawnSync("/bin/sh", ["-c", `printf '%s\n' "the host's own input" | exec "$NODE" --input-type=module -e "$SOURCE"`], {
        cwd: sb.project,
        env: { ...sb.env(), NODE: process.execPath, SOURCE: source },
        encoding: "utf8",
        timeout: 15_000,
      });
      expect(r.status, r.stderr).to.equal(0);
      const result = JSON.parse(r.stdout) as Json;
      expect(result.mine, "the host still reads its stdin").to.equal("the host's own input\n");
      expect(result.decision).to.equal("deny");
      expect(result.warnings).to.deep.equal([".qoder/settings.json: is a FIFO, not a regular file; this file is skipped"]);
    });

    it("a watched file replaced by a FIFO, then by a 5 MB file: the host's event loop keeps running and the guard keeps blocking", async () => {
      sb.projectSettings(settings({ PreToolUse: [group("Bash", "exit 0")] }));
      const script = hostWithOpenStdin(
        host(`
          console.log("ready");
          const lines = (await import("node:readline")).createInterface({ input: process.stdin });
          const seen = (what) => new Promise((resolve) => {
            const check = () => (bus.settings().warnings.some((w) => w.includes(what)) ? resolve() : setTimeout(check, 20));
            check();
          });
          for await (const line of lines) {
            if (line === "end") break;
            await seen(line);
            const outcome = await dispatch();
            console.log(JSON.stringify({ step: line, decision: outcome.decision, warnings: bus.settings().warnings }));
          }`).replace("WATCH", "true"),
        sb,
      );
      try {
        const next = lineReader(script.child.stdout!);
        expect(await next()).to.equal("ready");
        rmSync(projectFile());
        expect(spawnSync("mkfifo", [projectFile()]).status).to.equal(0);
        script.child.stdin!.write("is a FIFO\n");
        const fifo = JSON.parse(await next()) as Json;
        expect(fifo).to.include({ step: "is a FIFO", decision: "deny" });
        expect(fifo.warnings).to.deep.equal([".qoder/settings.json: is a FIFO, not a regular file; this file is skipped"]);

        rmSync(projectFile());
        const hooks = Array.from({ length: 150_000 }, (_, i) => ({ type: "command", command: `true ${i}` }));
        writeFileSync(projectFile(), JSON.stringify(settings({ PreToolUse: [{ matcher: "Bash", hooks }] })));
        script.child.stdin!.write("more than the\n");
        const large = JSON.parse(await next()) as Json;
        expect(large).to.include({ step: "more than the", decision: "deny" });
        expect((large.warnings as string[])[0]).to.match(
          /^\.qoder\/settings\.json: is \d+ bytes, more than the \d+ a settings file may have; this file is skipped$/,
        );
        script.child.stdin!.end("end\n");
        const r = await script.done;
        expect(r.code, r.stderr).to.equal(0);
      } finally {
        script.stop();
      }
    });
  });
});

/** Reads a stream line by line; each call waits for the next line, failing after a coarse deadline. */
function lineReader(stream: NodeJS.ReadableStream): () => Promise<string> {
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffered = "";
  stream.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let i = buffered.indexOf("\n"); i !== -1; i = buffered.indexOf("\n")) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      const line = lines.shift();
      if (line !== undefined) return resolve(line);
      const timer = setTimeout(() => reject(new Error("no line from the host within 15 s (its event loop is stuck?)")), 15_000);
      waiters.push((l) => {
        clearTimeout(timer);
        resolve(l);
      });
    });
}

/** A host process running `source`, its stdin left open for the test to write to. */
function hostWithOpenStdin(source: string, sb: Sandbox) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], { cwd: sb.project, env: sb.env(), stdio: ["pipe", "pipe", "pipe"] });
  const stderr: Buffer[] = [];
  child.stderr.on("data", (c: Buffer) => stderr.push(c));
  child.stdin.on("error", () => undefined);
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stderr: Buffer.concat(stderr).toString("utf8") })),
  );
  return { child, done, stop: () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL") };
}
