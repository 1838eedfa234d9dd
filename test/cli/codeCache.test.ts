import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * The bin's loader (src/cli/bin.cts): the code cache only ever saves a compile, and lives in the user's cache
 * directory, never in the package. A missing, stale, foreign or corrupt cache never changes what the command does,
 * and is replaced by a good one. Each test works on its own copy of dist/bin, inside dist/ so that node_modules
 * (better-sqlite3's addon) is found the way it is for the real bin.
 */
describe("cli: the bin's code cache", () => {
  let sb: Sandbox;
  let bin: string;
  let cacheDir: string;
  beforeEach(() => {
    sb = new Sandbox();
    bin = mkdtempSync(join(REPO_ROOT, "dist", "bin-copy-"));
    for (const file of ["qhooks.cjs", "cli.cjs"]) copyFileSync(join(REPO_ROOT, "dist", "bin", file), join(bin, file));
    cacheDir = join(sb.root, "xdg-cache", "qhooks");
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", "cat >/dev/null; echo 'no rm here' >&2; exit 2")] } });
  });
  afterEach(async () => {
    rmSync(bin, { recursive: true, force: true });
    await sb.cleanup();
  });

  const binFiles = () => readdirSync(bin).sort();
  const cacheFiles = (dir = cacheDir) => (existsSync(dir) ? readdirSync(dir).sort() : []);
  const onlyCache = (dir = cacheDir) => {
    const files = cacheFiles(dir);
    expect(files, dir).to.have.length(1);
    expect(files[0]).to.match(/^cli-v\d+\.\d+\.\d+-\w+-[0-9a-f]{8}-\w+-\w+\.cache$/);
    return join(dir, files[0]!);
  };

  function qhooks(args: string[], env: Record<string, string | undefined> = { XDG_CACHE_HOME: join(sb.root, "xdg-cache") }) {
    const input = JSON.stringify(payloadFor("PreToolUse"));
    return spawnSync(process.execPath, [join(bin, "qhooks.cjs"), ...args], { input, env: sb.env(env), cwd: sb.project, encoding: "utf8" });
  }

  /** A blocking dispatch, logged: the whole CLI path, exit code and outcome included. */
  function expectBlockingRun(env?: Record<string, string | undefined>) {
    const r = qhooks(["run", "PreToolUse"], env);
    expect(r.stderr).to.equal("no rm here\n");
    expect(r.status).to.equal(2);
    const outcome = JSON.parse(r.stdout) as { decision: string; reason: string; seq: unknown };
    expect(outcome).to.include({ decision: "deny", reason: "no rm here" });
    expect(outcome.seq).to.be.a("number");
    return r;
  }

  it("without a cache the command works, and writes one in the user's cache directory as it exits: nothing in the package", () => {
    expectBlockingRun();
    expect(statSync(onlyCache()).size).to.be.greaterThan(0);
    expect(statSync(cacheDir).mode & 0o777).to.equal(0o700);
    expect(binFiles()).to.deep.equal(["cli.cjs", "qhooks.cjs"]);
  });

  it("without XDG_CACHE_HOME, the cache goes to ~/.cache/qhooks", () => {
    expectBlockingRun({ XDG_CACHE_HOME: undefined });
    onlyCache(join(sb.home, ".cache", "qhooks"));
    expect(binFiles()).to.deep.equal(["cli.cjs", "qhooks.cjs"]);
  });

  it("a cache V8 accepts is used as it is, not rewritten", () => {
    expectBlockingRun();
    const cache = onlyCache();
    const written = readFileSync(cache);
    const later = new Date(Date.now() + 5_000);
    utimesSync(cache, later, later); // a rewrite would set the mtime back to now
    expectBlockingRun();
    expect(statSync(cache).mtimeMs).to.be.closeTo(later.getTime(), 1);
    expect(readFileSync(cache).equals(written)).to.equal(true);
  });

  it("a corrupt cache changes nothing the command does, and is replaced", () => {
    expectBlockingRun();
    const cache = onlyCache();
    writeFileSync(cache, Buffer.alloc(4096, 7));
    expectBlockingRun();
    const replaced = readFileSync(cache);
    expect(replaced.equals(Buffer.alloc(4096, 7))).to.equal(false);
    expect(replaced.length).to.be.greaterThan(0);
  });

  it("a rebuilt bundle gets a cache of its own; an older cache is never used for it", () => {
    expectBlockingRun();
    const first = onlyCache();
    // A cache V8 would accept for this very bundle, only dated before it: the date is what keeps a rebuilt bundle
    // (V8 checks little more than the source's length) from running another build's compiled code.
    const old = new Date(statSync(join(bin, "cli.cjs")).mtimeMs - 60_000);
    utimesSync(first, old, old);
    expectBlockingRun();
    expect(statSync(first).mtimeMs).to.be.greaterThan(old.getTime() + 1_000);
    // A new bundle (another mtime): another file; the first stays as it was.
    const rebuilt = new Date(Date.now() + 10_000);
    utimesSync(join(bin, "cli.cjs"), rebuilt, rebuilt);
    expectBlockingRun();
    expect(cacheFiles()).to.have.length(2);
  });

  it("a cache file that is not the user's own is not used", function () {
    if (process.getuid?.() !== 0) this.skip(); // making a file someone else's takes root (CI runs as root)
    expectBlockingRun();
    const cache = onlyCache();
    const later = new Date(Date.now() + 5_000);
    chownSync(cache, 65534, 65534);
    utimesSync(cache, later, later);
    expectBlockingRun();
    // Used, it would still be nobody's with the date set above; ignored, it was compiled again and replaced.
    expect(statSync(cache).uid).to.equal(0);
    expect(statSync(cache).mtimeMs).to.be.below(later.getTime());
  });

  it("the build's cache beside the bundle (a checkout) is read, never written", () => {
    expectBlockingRun();
    copyFileSync(onlyCache(), join(bin, "cli.cjs.cache"));
    rmSync(cacheDir, { recursive: true });
    const built = statSync(join(bin, "cli.cjs.cache")).mtimeMs;
    expectBlockingRun();
    expect(cacheFiles()).to.deep.equal([]);
    expect(statSync(join(bin, "cli.cjs.cache")).mtimeMs).to.equal(built);
  });

  it("a user mistake is still one line on stderr, exit 1, through the loader", () => {
    const r = spawnSync(process.execPath, [join(bin, "qhooks.cjs"), "run", "PreToolUse"], { input: "{bad", env: sb.env(), encoding: "utf8" });
    expect(r.status).to.equal(1);
    expect(r.stderr.trim().split("\n")).to.have.length(1);
    expect(r.stderr).to.match(/^qhooks: payload is not valid JSON/);
  });
});
