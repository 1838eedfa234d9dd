import { rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import type { Outcome } from "../../src/schema/outcome.js";
import { compileMatcher, matches } from "../../src/core/compileMatcher.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { journalCount, seedLog } from "../store/storeHelpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { HOSTILE_TOOL_NAMES, REGEX_BOMBS, settingsText } from "./arbitraries.js";
import { DIST, QUICK, checkProperty, clip, cliWithDeadline, eachLimit, expectCleanCli, runScript } from "./support.js";
import { verifiedRecords } from "../support/verifyLine.js";

/**
 * Issue 6, bad settings: random settings files (wrong types at every level, unknown keys, `__proto__`, huge
 * strings, deep nesting, broken JSON) and regex bombs as matchers tested against 1,024+ character hostile tool names.
 * Loading never throws; every problem is one warning line naming its file; dispatch never stalls (a coarse bound,
 * with the engine in a child process so that a stall cannot freeze the suite); nothing already logged is lost.
 */

/** A dispatch whose matchers cannot stall takes well under a second; a stalled one takes minutes to hours. */
const STALL_BOUND_MS = 15_000;

const levels = (sb: Sandbox) => discoverSettings(sb.home, sb.project);

function expectWarningLines(warnings: readonly string[], displays: readonly string[], label: string): void {
  for (const w of warnings) {
    expect(/[\n\r]/.test(w), `${label}: a warning spans lines: ${clip(JSON.stringify(w))}`).to.equal(false);
    expect(w.length, `${label}: a warning of ${w.length} characters: ${clip(w)}`).to.be.at.most(2000);
    expect(
      displays.some((d) => w.startsWith(`${d}: `)),
      `${label}: a warning that does not name its file: ${clip(w)}`,
    ).to.equal(true);
  }
}

describe("reliability: random settings files (fast-check)", function () {
  this.timeout(600_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  async function loadRandom(runs: number, seed: number): Promise<void> {
    const sources = levels(sb);
    const displays = sources.map((s) => s.display);
    let warned = 0;
    await checkProperty(
      fc.asyncProperty(fc.tuple(fc.option(settingsText), fc.option(settingsText), fc.option(settingsText)), async (texts) => {
        texts.forEach((text, i) => {
          if (text === null) rmSync(sources[i]!.path, { force: true });
          else sb.file(sources[i]!.path, text);
        });
        const snapshot = loadSettings(sources);
        expectWarningLines(snapshot.warnings, displays, "loadSettings");
        warned += snapshot.warnings.length;
        for (const hook of snapshot.hooks) {
          expect(hook.command.trim(), "only hooks with a command survive").to.not.equal("");
          expect(hook.timeoutMs).to.be.within(1, 86_400_000);
        }
      }),
      { seed, numRuns: runs },
    );
    expect(warned, "the generator does produce broken settings").to.be.greaterThan(0);
  }

  it(`loading 150 random combinations of the three levels never throws, and every warning is one line naming its file ${QUICK}`, () =>
    loadRandom(150, 0x5e771));
  it("loading 1,500 more", () => loadRandom(1500, 0x5e772));

  async function dispatchRandom(runs: number, seed: number): Promise<void> {
    // A log with history, which no settings file may cost a record of.
    await seedLog(
      sb.db,
      Array.from({ length: 20 }, (_, i) => ({
        ts: new Date(Date.now() - 60_000 + i),
        event: "PreToolUse" as const,
        sessionId: `old${i}`,
        matchValue: "Bash",
        decision: "none" as const,
      })),
    );
    const displays = levels(sb).map((s) => s.display);
    const cases = fc.sample(fc.record({ user: fc.option(settingsText), project: settingsText, name: fc.nat(HOSTILE_TOOL_NAMES.length - 1) }), {
      seed,
      numRuns: runs,
    });
    let logged = journalCount(sb.db);
    await eachLimit(cases, 1, async (c, i) => {
      const label = `case ${i} (seed ${seed})`;
      if (c.user === null) rmSync(levels(sb)[0]!.path, { force: true });
      else sb.userSettings(c.user);
      sb.projectSettings(c.project);
      const toolName = HOSTILE_TOOL_NAMES[c.name]!;
      const r = await cliWithDeadline(sb, ["run", "PreToolUse"], {
        input: JSON.stringify(payloadFor("PreToolUse", { tool_name: toolName })),
        deadlineMs: STALL_BOUND_MS,
      });
      expect(r.hung, `${label}: qhooks run stalled (> ${STALL_BOUND_MS} ms) on settings ${clip(c.project, 1000)}`).to.equal(false);
      expectCleanCli(r, label);
      expect(r.code, `${label}: ${clip(r.stderr)}`).to.be.oneOf([0, 2]);
      const outcome = JSON.parse(r.stdout) as Outcome;
      expect(outcome.seq, `${label}: not logged`).to.be.a("number");
      const warnings = r.stderr
        .split("\n")
        .filter((l) => l.startsWith("qhooks: warning: "))
        .map((l) => l.slice("qhooks: warning: ".length))
        .filter((l) => !l.startsWith("hook ")); // runtime warnings about a hook's output, not about a file
      expectWarningLines(warnings, displays, label);
      const now = journalCount(sb.db);
      expect(now, `${label}: the log only grows`).to.be.greaterThan(logged);
      logged = now;
    });
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verifiedRecords(verify.stdout), verify.stdout).to.equal(logged);
    const hooks = await sb.run(["hooks"]);
    expectCleanCli(hooks, "qhooks hooks");
  }

  it(`qhooks run under 12 random settings files with hostile tool names: never stalls, one line per problem, the log only grows ${QUICK}`, function () {
    this.timeout(300_000);
    return dispatchRandom(12, 0xd15a1);
  });
  it("qhooks run under 80 more", function () {
    this.timeout(600_000);
    return dispatchRandom(80, 0xd15a2);
  });
});

describe(`reliability: regex bombs as matchers ${QUICK}`, function () {
  this.timeout(300_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  it("every known bomb loads as a regex without a warning: the linear-time engine runs it", () => {
    for (const bomb of REGEX_BOMBS) expect(compileMatcher(bomb).matcher.kind, bomb).to.equal("regex");
    sb.projectSettings({ hooks: { PreToolUse: REGEX_BOMBS.map((b) => group(b, "echo matched")) } });
    const snapshot = loadSettings(levels(sb));
    expect(snapshot.hooks).to.have.length(REGEX_BOMBS.length);
    expect(snapshot.warnings).to.deep.equal([]);
  });

  it("the simple forms matchers are made of are never refused", () => {
    const plain = [
      "Bash",
      "Write|Edit",
      "Write, Edit",
      "mcp__.*",
      "^Edit$",
      "mcp__(github|gitlab)__.*",
      "mcp__.*__create_.*",
      "Notebook.*",
      "^(Read|Write)$",
      ".*",
      "^mcp__memory__",
      "Edit.?",
      "[A-Z]\\w+",
      "(Read|Glob|Grep)",
    ];
    for (const p of plain) expect(compileMatcher(p).matcher.kind, p).to.be.oneOf(["regex", "names"]);
  });

  it("random patterns that load are safe: each one, on each hostile tool name, answers within a coarse bound", async () => {
    // Random assemblies of regex pieces: whatever the check lets through must run fast on every hostile name. They
    // run in a child process, so that a stall is killed at the deadline instead of freezing the suite; it reports
    // each pattern before trying it, so the last one reported is the culprit.
    const piece = fc.constantFrom(
      "a",
      "b",
      "a*",
      "a+",
      ".*",
      ".+",
      "\\w+",
      "\\s*",
      "(a|b)",
      "(a+)",
      "[a-z]*",
      "x{2,}",
      "a?",
      "(?:ab)*",
      "=",
      "!",
      "\\d+",
      "(\\w|\\s)",
      "^",
      "$",
      "a{1,40}",
    );
    const patterns = [
      ...new Set(
        fc.sample(
          fc.array(piece, { minLength: 2, maxLength: 7 }).map((p) => p.join("")),
          { seed: 0xb0b, numRuns: 600 },
        ),
      ),
    ].filter((p) => compileMatcher(p).matcher.kind === "regex");
    expect(patterns.length, "enough random patterns pass the check to say something").to.be.greaterThan(100);
    const script = runScript(
      `const { compileMatcher, matches } = await import(${JSON.stringify(join(DIST, "core", "compileMatcher.js"))});
       const { patterns, names } = JSON.parse(process.argv[1]);
       for (const p of patterns) {
         process.stdout.write(JSON.stringify(p) + " ");
         const { matcher } = compileMatcher(p);
         let worst = 0;
         for (const n of names) { const t = performance.now(); matches(matcher, n); worst = Math.max(worst, performance.now() - t); }
         process.stdout.write(worst.toFixed(1) + "\\n");
       }`,
      { cwd: sb.root, env: sb.env(), args: [JSON.stringify({ patterns, names: HOSTILE_TOOL_NAMES })] },
    );
    const timer = setTimeout(() => script.stop(), 120_000);
    const r = await script.done.finally(() => clearTimeout(timer));
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    expect(r.code, `stalled on ${clip(lines[lines.length - 1] ?? "", 200)}`).to.equal(0);
    expect(lines).to.have.length(patterns.length);
    const worst = lines.map((l) => ({ pattern: l.slice(0, l.lastIndexOf(" ")), ms: Number(l.slice(l.lastIndexOf(" ") + 1)) })).sort((a, b) => b.ms - a.ms);
    console.log(
      `      ${patterns.length} patterns; slowest: ${worst
        .slice(0, 3)
        .map((w) => `${w.pattern} ${w.ms} ms`)
        .join(", ")}`,
    );
    // Linear time: each test is bounded by the program's size times the value's length.
    expect(worst[0]!.ms, worst[0]!.pattern).to.be.below(3000);
  });

  it("each bomb, tried against each hostile tool name through qhooks run: settles, logs, and matches as JavaScript would", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [...REGEX_BOMBS.map((b) => group(b, "echo matched")), group("Bash", { command: "echo fine", name: "fine" })] } });
    await eachLimit([...HOSTILE_TOOL_NAMES, "Bash"], 2, async (name) => {
      const r = await cliWithDeadline(sb, ["run", "PreToolUse"], {
        input: JSON.stringify(payloadFor("PreToolUse", { tool_name: name })),
        deadlineMs: STALL_BOUND_MS,
      });
      expect(r.hung, `stalled on ${clip(name, 40)}`).to.equal(false);
      expectCleanCli(r, clip(name, 40));
      expect(r.code).to.equal(0);
      const outcome = JSON.parse(r.stdout) as Outcome;
      // The hooks that ran are those whose matcher says so (a few bombs match everything: `(\\d+)*$`).
      const ran = REGEX_BOMBS.filter((b) => matches(compileMatcher(b).matcher, name)).map(() => "echo matched");
      expect(outcome.hooks.map((h) => h.name)).to.deep.equal([...new Set(ran), ...(name === "Bash" ? ["fine"] : [])]);
    });
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
  });
});
