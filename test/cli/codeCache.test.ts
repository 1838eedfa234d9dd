import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * The bin's loader (src/cli/bin.cts): the code cache only ever saves a compile. A missing, stale or corrupt cache
 * never changes what the command does, and is replaced by a good one. Each test works on its own copy of dist/bin,
 * inside dist/ so that node_modules (better-sqlite3's addon) is found the way it is for the real bin.
 */
describe("cli: the bin's code cache", () => {
  let sb: Sandbox;
  let bin: string;
  let cache: string;
  beforeEach(() => {
    sb = new Sandbox();
    bin = mkdtempSync(join(REPO_ROOT, "dist", "bin-copy-"));
    for (const file of ["qhooks.cjs", "cli.cjs"]) copyFileSync(join(REPO_ROOT, "dist", "bin", file), join(bin, file));
    cache = join(bin, "cli.cjs.cache");
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", "cat >/dev/null; echo 'no rm here' >&2; exit 2")] } });
  });
  afterEach(async () => {
    rmSync(bin, { recursive: true, force: true });
    await sb.cleanup();
  });

  function qhooks(...args: string[]) {
    const input = JSON.stringify(payloadFor("PreToolUse"));
    return spawnSync(process.execPath, [join(bin, "qhooks.cjs"), ...args], { input, env: sb.env(), cwd: sb.project, encoding: "utf8" });
  }

  /** A blocking dispatch, logged: the whole CLI path, exit code and outcome included. */
  function expectBlockingRun() {
    const r = qhooks("run", "PreToolUse");
    expect(r.stderr).to.equal("no rm here\n");
    expect(r.status).to.equal(2);
    const outcome = JSON.parse(r.stdout) as { decision: string; reason: string; seq: unknown };
    expect(outcome).to.include({ decision: "deny", reason: "no rm here" });
    expect(outcome.seq).to.be.a("number");
    return r;
  }

  it("without a cache the command works, and writes one as it exits (no temp file left)", () => {
    expect(existsSync(cache)).to.equal(false);
    expectBlockingRun();
    expect(statSync(cache).size).to.be.greaterThan(0);
    expect(readdirSync(bin).filter((f) => f.endsWith(".tmp"))).to.deep.equal([]);
  });

  it("a cache V8 accepts is used as it is, not rewritten", () => {
    expectBlockingRun();
    const written = readFileSync(cache);
    const past = new Date(Date.now() + 5_000);
    utimesSync(cache, past, past); // a rewrite would set the mtime back to now
    expectBlockingRun();
    expect(statSync(cache).mtimeMs).to.be.closeTo(past.getTime(), 1);
    expect(readFileSync(cache).equals(written)).to.equal(true);
  });

  it("a corrupt cache changes nothing the command does, and is replaced", () => {
    writeFileSync(cache, Buffer.alloc(4096, 7));
    expectBlockingRun();
    const replaced = readFileSync(cache);
    expect(replaced.equals(Buffer.alloc(4096, 7))).to.equal(false);
    expect(replaced.length).to.be.greaterThan(0);
  });

  it("a cache older than the bundle (a rebuild) is not used, and is replaced, even one V8 would accept", () => {
    // A cache V8 accepts for this very bundle, only dated before it: V8 checks little more than the source's length,
    // so the date is what keeps a rebuilt bundle from running another build's compiled code.
    expectBlockingRun();
    const old = new Date(statSync(join(bin, "cli.cjs")).mtimeMs - 60_000);
    utimesSync(cache, old, old);
    expectBlockingRun();
    expect(statSync(cache).mtimeMs).to.be.greaterThan(old.getTime() + 1_000);
  });

  it("a user mistake is still one line on stderr, exit 1, through the loader", () => {
    const r = spawnSync(process.execPath, [join(bin, "qhooks.cjs"), "run", "PreToolUse"], { input: "{bad", env: sb.env(), encoding: "utf8" });
    expect(r.status).to.equal(1);
    expect(r.stderr.trim().split("\n")).to.have.length(1);
    expect(r.stderr).to.match(/^qhooks: payload is not valid JSON/);
  });
});
