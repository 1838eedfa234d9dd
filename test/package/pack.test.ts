import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../support/sandbox.js";

/**
 * The package as `npm pack` makes it, installed into a temporary project as npm would lay it out: the tarball
 * unpacked as node_modules/qhooks, and only the dependencies it declares next to it (linked from this checkout, so
 * that no registry is needed). Then used the ways a user would: `import`, `require`, its types, its bin.
 */
describe("package: npm pack", function () {
  this.timeout(120_000);
  let work: string;
  let project: string;
  let installed: string;
  let files: string[];

  before(() => {
    work = mkdtempSync(join(tmpdir(), "qhooks-pack-"));
    // --ignore-scripts: dist/ is built (npm test builds first); a rebuild here would pull it from under other tests.
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: REPO_ROOT, encoding: "utf8" }),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    files = packed[0]!.files.map((f) => f.path).sort();
    project = join(work, "project");
    installed = join(project, "node_modules", "qhooks");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", join(work, packed[0]!.filename), "-C", installed, "--strip-components=1"]);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies)) {
      const link = join(project, "node_modules", dependency);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(REPO_ROOT, "node_modules", dependency), link, "dir");
    }
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("holds the library, its types, the CommonJS build, the bin, the docs and the license, and no build artefacts", () => {
    for (const file of [
      "LICENSE",
      "README.md",
      "package.json",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/cjs/index.cjs",
      "dist/bin/qhooks.cjs",
      "dist/bin/cli.cjs",
      "docs/README.md",
      "docs/hooks.md",
      "docs/decisions.md",
      "CHANGELOG.md",
      "CONTRIBUTING.md",
    ]) {
      expect(files, file).to.include(file);
    }
    const artefacts = files.filter(
      (f) => /\.map$|meta\.json$|\.cache$|\.tmp$|^dist\/(test|bench|meta)\/|^src\/|^test\/|^bench\//.test(f) || f.startsWith("dist/src/cli/"),
    );
    expect(artefacts).to.deep.equal([]);
    // Nothing in what ships points at a source map that is not there.
    for (const file of files.filter((f) => /\.(c?js)$/.test(f))) expect(readFileSync(join(installed, file), "utf8"), file).not.to.include("sourceMappingURL");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.license).to.equal("MIT");
    for (const field of ["repository", "homepage", "bugs", "keywords"]) expect(manifest, field).to.have.property(field);
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).to.match(/^MIT License/);
  });

  const script = (name: string, text: string) => {
    const file = join(project, name);
    writeFileSync(file, text);
    return file;
  };
  const settings = () =>
    script(
      "settings.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; echo 'no rm here' >&2; exit 2" }] }] } }),
    );
  const node = (file: string) =>
    spawnSync(process.execPath, [file], { cwd: project, encoding: "utf8", env: { PATH: process.env.PATH, HOME: join(work, "home") } });

  it("works from import: a bus that runs a real hook and logs to SQLite", () => {
    const file = script(
      "esm.mjs",
      `import { createHookBus, QhooksError, OutcomeSchema } from "qhooks";
const bus = createHookBus({ projectDir: ${JSON.stringify(project)}, homeDir: ${JSON.stringify(project)}, db: ${JSON.stringify(join(project, "esm.db"))}, settingsFiles: [${JSON.stringify(settings())}], watch: false });
const outcome = await bus.dispatch({ session_id: "s", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /" } });
await bus.close();
OutcomeSchema.parse(outcome);
console.log(JSON.stringify({ decision: outcome.decision, reason: outcome.reason, logged: typeof outcome.seq, error: typeof QhooksError }));`,
    );
    const r = node(file);
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ decision: "deny", reason: "no rm here", logged: "number", error: "function" });
  });

  it("works from require, on every Node 20 (qhooks is ES modules; require of ES modules needs Node 20.19, so the CommonJS build is one file of its own)", () => {
    const file = script(
      "cjs.cjs",
      `const { createHookBus, openSqliteLog } = require("qhooks");
(async () => {
  const db = ${JSON.stringify(join(project, "cjs.db"))};
  const bus = createHookBus({ projectDir: ${JSON.stringify(project)}, homeDir: ${JSON.stringify(project)}, db, settingsFiles: [${JSON.stringify(settings())}], watch: false });
  const outcome = await bus.dispatch({ session_id: "s", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /" } });
  await bus.close();
  const log = openSqliteLog(db, { mustExist: true });
  const verified = await log.verify();
  await log.close();
  console.log(JSON.stringify({ decision: outcome.decision, hook: outcome.hooks[0].outcome, verified: verified.ok }));
})().catch((e) => { console.error(e); process.exit(1); });`,
    );
    const r = node(file);
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ decision: "deny", hook: "block", verified: true });
  });

  it("its types compile in a strict TypeScript project, checked in full, with no @types package of the user's own, from ES modules and CommonJS", () => {
    const typed = (name: string) =>
      script(
        name,
        `import { createHookBus, type Outcome, type HookBusOptions, type LogRecord } from "qhooks";
const options: HookBusOptions = { projectDir: "/tmp", db: false };
const bus = createHookBus(options);
const seen: Outcome[] = [];
bus.outcomes$.subscribe((o) => seen.push(o));
export const decide = async (): Promise<string> => (await bus.dispatch({ session_id: "s", hook_event_name: "Stop" })).decision;
export const first = (records: LogRecord[]): number | undefined => records[0]?.seq;
`,
      );
    // The consumer's package.json has no "type": .mts is an ES module, .cts CommonJS (resolved through "require").
    typed("typed.mts");
    typed("typed.cts");
    script(
      "tsconfig.json",
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ["typed.mts", "typed.cts"],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", project], { cwd: project, encoding: "utf8" });
    expect(tsc.status, tsc.stdout + tsc.stderr).to.equal(0);
  });

  it("its bin runs, and writes its code cache in the user's cache directory, never into the installed package", () => {
    const before = listTree(installed);
    const home = join(work, "bin-home");
    mkdirSync(home);
    const payload = JSON.stringify({ session_id: "s", tool_name: "Bash", tool_input: { command: "rm -rf /" } });
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(process.execPath, [join(installed, "dist", "bin", "qhooks.cjs"), "run", "PreToolUse", "--settings", settings(), "--no-log"], {
        cwd: project,
        input: payload,
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: home },
      });
      expect(r.status, r.stderr).to.equal(2);
      expect(r.stderr).to.equal("no rm here\n");
    }
    expect(listTree(installed)).to.deep.equal(before);
    expect(readdirSync(join(home, ".cache", "qhooks"))).to.have.length(1);
  });
});

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}
