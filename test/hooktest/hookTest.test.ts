import { expect } from "chai";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { HookTestCaseSchema } from "../../src/schema/hookTest.js";
import { logJson, nonEmptyLines, qhooksLines } from "../store/storeHelpers.js";
import { CLI, Sandbox, group, payloadFor } from "../support/sandbox.js";

/** A guard as people write them: blocks `rm -rf` with a reason on stderr, lets the rest through. */
const BLOCK_RM = `input=$(cat)
case "$input" in *"rm -rf"*) echo "Dangerous command blocked" >&2; exit 2;; esac
exit 0`;

const RM = payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } });
const LS = payloadFor("PreToolUse", { tool_input: { command: "ls" } });

/**
 * `qhooks test add` and `qhooks test`: hook tests made from real logged events, run as real processes against real
 * settings files in a temporary HOME and project, judged by real hooks.
 */
describe("qhooks test: hook tests made from the log", () => {
  let sb: Sandbox;
  let testFile: string;
  beforeEach(() => {
    sb = new Sandbox();
    testFile = join(sb.project, ".qoder", "hook-tests.jsonl");
  });
  afterEach(() => sb.cleanup());

  /** The project's guard, in its own settings; returns nothing: the project's settings are the ones in force. */
  const guardProject = (extra: Record<string, unknown> = {}) =>
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" })], ...extra } });

  /** Runs an event for real (logged), and returns its seq in the log: the newest live event (`filter` narrows it). */
  const logged = async (payload: Record<string, unknown>, event = "PreToolUse", args: string[] = [], filter: string[] = []) => {
    const r = await sb.runEvent(event, payload, args);
    expect(r.code, r.stderr).to.be.oneOf([0, 2]);
    const [newest] = await logJson(sb, [...filter, "--limit", "1"]);
    return newest!.seq;
  };

  const lines = (path = testFile) => nonEmptyLines(readFileSync(path, "utf8"));

  it("adds a logged block with its payload and decision, one readable line in the project's file, and runs it: pass", async () => {
    guardProject();
    const seq = await logged(RM);
    const [record] = await logJson(sb, ["--limit", "1"]);
    expect(record!.decision).to.equal("deny");

    const add = await sb.run(["test", "add", String(seq), "--name", "rm -rf is denied", "--ran", "block-rm", "--reason", "Dangerous"]);
    expect(add.code, add.stderr).to.equal(0);
    expect(add.stdout).to.equal(`Added "rm -rf is denied" to .qoder/hook-tests.jsonl, line 1: PreToolUse Bash expects deny\n`);

    const [line] = lines();
    const saved = JSON.parse(line!) as Record<string, unknown>;
    // Stable and reviewable: the schema's keys in its order, the payload exactly as logged, where it came from.
    expect(Object.keys(saved)).to.deep.equal(["name", "event", "expect", "payload", "from"]);
    expect(HookTestCaseSchema.parse(saved)).to.deep.equal(saved);
    expect(saved).to.deep.include({ name: "rm -rf is denied", event: "PreToolUse", expect: { decision: "deny", reason: "Dangerous", ran: ["block-rm"] } });
    expect(saved.payload).to.deep.equal(record!.payload);
    expect(saved.from).to.deep.equal({ seq, ts: record!.ts });

    const run = await sb.run(["test"]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal("ok    rm -rf is denied (line 1): deny\n1 passed, 0 failed\n");
    expect(run.stderr).to.equal("");
  });

  it("--expect overrides the logged decision; a case the settings no longer meet fails, exit 1, and the others still pass", async () => {
    guardProject();
    const rm = await logged(RM);
    const ls = await logged(LS);
    expect((await sb.run(["test", "add", String(rm)])).code).to.equal(0);
    expect((await sb.run(["test", "add", `#${ls}`, "--expect", "deny", "--name", "ls must be denied"])).code).to.equal(0);
    expect(lines().map((l) => (JSON.parse(l) as { expect: unknown }).expect)).to.deep.equal([{ decision: "deny" }, { decision: "deny" }]);

    const run = await sb.run(["test"]);
    expect(run.code).to.equal(1);
    expect(nonEmptyLines(run.stdout)).to.deep.equal([
      `ok    #${rm} PreToolUse Bash (line 1): deny`,
      "FAIL  ls must be denied (line 2): expected deny, got none",
      "1 passed, 1 failed",
    ]);
    expect(run.stderr).to.equal("");
  });

  it("checks the reason, the hooks that ran and those that did not; a settings warning is said once, not once per case", async () => {
    guardProject({ Stop: [{ hooks: [{ type: "command", command: "true", timout: 5 }] }] });
    const seq = await logged(RM);
    for (const args of [
      ["--reason", "Dangerous", "--ran", "block-rm", "--not-ran", "audit"],
      ["--reason", "nope", "--name", "reason"],
      ["--ran", "audit", "--name", "ran"],
      ["--not-ran", "block-rm", "--name", "not ran"],
    ]) {
      const r = await sb.run(["test", "add", String(seq), ...args]);
      expect(r.code, r.stderr).to.equal(0);
    }
    const run = await sb.run(["test"]);
    expect(run.code).to.equal(1);
    expect(nonEmptyLines(run.stdout)).to.deep.equal([
      `ok    #${seq} PreToolUse Bash (line 1): deny`,
      'FAIL  reason (line 2): the reason "Dangerous command blocked" does not contain "nope"',
      'FAIL  ran (line 3): hook "audit" did not run (ran: block-rm)',
      'FAIL  not ran (line 4): hook "block-rm" ran (block)',
      "1 passed, 3 failed",
    ]);
    expect(qhooksLines(run.stderr)).to.have.length(1);
    expect(qhooksLines(run.stderr)[0]).to.match(/^qhooks: warning: .*settings\.json: .*timout/);
  });

  it("a guard that trust skips fails its case, and the line says it was skipped", async () => {
    guardProject();
    const seq = await logged(RM);
    expect((await sb.run(["test", "add", String(seq), "--name", "guarded", "--ran", "block-rm"])).code).to.equal(0);
    const run = await sb.run(["test"], { env: { QHOOKS_REQUIRE_TRUST: "1" } });
    expect(run.code).to.equal(1);
    const [line] = nonEmptyLines(run.stdout);
    expect(line).to.match(
      /^FAIL {2}guarded \(line 1\): expected deny, got none; block-rm skipped \(untrusted\); hook "block-rm" did not run \(skipped: .*qhooks trust.*\)$/,
    );
    // Trusted, it runs under test as it would live.
    expect((await sb.run(["trust"], { env: { QHOOKS_REQUIRE_TRUST: "1" } })).code).to.equal(0);
    expect((await sb.run(["test"], { env: { QHOOKS_REQUIRE_TRUST: "1" } })).stdout).to.equal("ok    guarded (line 1): deny\n1 passed, 0 failed\n");
  });

  it("hooks see QHOOKS_TEST=1; nothing reaches the live log, not even from a qhooks record or run that a hook starts", async () => {
    const seen = join(sb.root, "seen.txt");
    const qhooks = `"${process.execPath}" "${CLI}"`;
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group(
            "Bash",
            { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" },
            { command: `echo "QHOOKS_TEST=$QHOOKS_TEST" >> "${seen}"`, name: "env" },
            { command: `${qhooks} record PreToolUse`, name: "recorder" },
            { command: `${qhooks} run Stop --settings "${sb.file("inner.json", { hooks: {} })}" > /dev/null`, name: "inner" },
          ),
        ],
      },
    });
    // Live, the recorder and the nested run log events of their own, after this one.
    const seq = await logged(RM, "PreToolUse", [], ["--blocked"]);
    expect(readFileSync(seen, "utf8")).to.equal("QHOOKS_TEST=\n");
    expect((await sb.run(["test", "add", String(seq), "--ran", "recorder", "--ran", "inner"])).code).to.equal(0);

    const files = () =>
      readdirSync(sb.root)
        .filter((f) => f.startsWith("events.db"))
        .map(
          (f) =>
            `${f} ${createHash("sha256")
              .update(readFileSync(join(sb.root, f)))
              .digest("hex")}`,
        );
    const before = { files: files(), verify: (await sb.run(["verify"])).stdout, log: await logJson(sb, ["--limit", "all"]) };
    const run = await sb.run(["test"]);
    expect(run.code, run.stdout + run.stderr).to.equal(0);
    expect(readFileSync(seen, "utf8")).to.equal("QHOOKS_TEST=\nQHOOKS_TEST=1\n");
    // The log's files are byte for byte as they were, and the log says the same.
    expect(files()).to.deep.equal(before.files);
    expect((await sb.run(["verify"])).stdout).to.equal(before.verify);
    expect(await logJson(sb, ["--limit", "all"])).to.deep.equal(before.log);
  });

  it("--junit writes JUnit XML that parses, with counts, times, unique names and a failure per failed case", async () => {
    guardProject();
    const seq = await logged(RM);
    expect((await sb.run(["test", "add", String(seq), "--name", "same"])).code).to.equal(0);
    expect((await sb.run(["test", "add", String(seq), "--name", "same", "--expect", "allow"])).code).to.equal(0);
    // A broken line, and a name that XML 1.0 cannot hold (a control character, half a surrogate pair: JSON allows both).
    const [first] = lines();
    sb.file(testFile, `${readFileSync(testFile, "utf8")}not json\n${first!.replace('"name":"same"', '"name":"bell\\u0007 \\ud800"')}\n`);
    // A hook that prints what XML cannot hold (control characters) and what it must escape.
    const noisy = sb.file("noisy.json", {
      hooks: {
        PreToolUse: [
          group("Bash", { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" }, { command: "printf '\\001\\033[31m<&>\"]]>' >&2", name: "noisy" }),
        ],
      },
    });

    const run = await sb.run(["test", "--settings", noisy, "--junit", "reports/hooks.xml"]);
    expect(run.code).to.equal(1);
    expect(nonEmptyLines(run.stdout).slice(-2)).to.deep.equal(["ok    bell\\u0007 \\ud800 (line 4): deny", "2 passed, 2 failed"]);
    const xml = readFileSync(join(sb.project, "reports", "hooks.xml"), "utf8");
    expect(XMLValidator.validate(xml)).to.equal(true);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).to.equal(true);

    type Failure = { "@_message": string; "@_type": string; "#text": string };
    type Case = { "@_name": string; "@_classname": string; "@_time": string; failure?: Failure };
    type Suite = Record<string, string> & { testcase: Case[] };
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "testcase" || name === "testsuite" }).parse(xml) as {
      testsuites: Record<string, string> & { testsuite: Suite[] };
    };
    const { testsuites } = doc;
    expect(testsuites).to.include({ "@_tests": "4", "@_failures": "2", "@_errors": "0" });
    expect(testsuites.testsuite).to.have.length(1);
    const suite = testsuites.testsuite[0]!;
    expect(suite).to.include({ "@_name": ".qoder/hook-tests.jsonl", "@_tests": "4", "@_failures": "2", "@_errors": "0", "@_skipped": "0" });
    // Seconds with at most three decimals; a timestamp without a zone, as the schemas of the readers want them.
    expect(suite["@_time"]).to.match(/^\d+\.\d{3}$/);
    expect(suite["@_timestamp"]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const cases = suite.testcase;
    expect(cases.map((c) => c["@_name"])).to.deep.equal(["same (line 1)", "same (line 2)", "line 3", "bell\\u0007 \\ud800"]);
    for (const c of cases) {
      expect(c["@_classname"]).to.equal("hook-tests");
      expect(c["@_time"]).to.match(/^\d+\.\d{3}$/);
    }
    expect(cases[0]!.failure).to.equal(undefined);
    expect(cases[1]!.failure).to.include({ "@_type": "decision", "@_message": "expected allow, got deny (Dangerous command blocked)" });
    expect(cases[1]!.failure!["#text"])
      .to.include("line 2 of .qoder/hook-tests.jsonl: PreToolUse")
      .and.include("hook noisy: success")
      .and.include('\\u0001\\u001b[31m<&>"]]>');
    expect(cases[2]!.failure).to.include({ "@_type": "broken-line" });
    expect(cases[2]!.failure!["@_message"]).to.match(/^not JSON \(column 2: /);
  });

  it("a case whose payload nests 5,000 levels fails alone; the cases after it run and the JUnit report is written", async () => {
    guardProject();
    const seq = await logged(RM);
    expect((await sb.run(["test", "add", String(seq), "--name", "first"])).code).to.equal(0);
    const good = lines()[0]!;
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    const withNesting = (name: string, levels: number) =>
      good.replace('"command":"rm -rf /tmp/build"', `"command":"rm -rf /tmp/build","deep":${nested(levels)}`).replace('"first"', `"${name}"`);
    sb.file(testFile, `${[good, withNesting("deep", 5_000), withNesting("within the limit", 500), good.replace('"first"', '"last"')].join("\n")}\n`);

    const run = await sb.run(["test", "--junit", "reports/hooks.xml"]);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.equal("");
    expect(nonEmptyLines(run.stdout)).to.deep.equal([
      "ok    first (line 1): deny",
      "FAIL  deep (line 2): nests deeper than 512 levels; a hook test cannot hold it",
      "ok    within the limit (line 3): deny",
      "ok    last (line 4): deny",
      "3 passed, 1 failed",
    ]);
    const xml = readFileSync(join(sb.project, "reports", "hooks.xml"), "utf8");
    expect(XMLValidator.validate(xml)).to.equal(true);
    expect(xml).to.include('tests="4" failures="1"').and.include('<testcase name="deep"');
  });

  it("a broken line fails with its line number and the other cases still run", async () => {
    guardProject();
    const seq = await logged(RM);
    expect((await sb.run(["test", "add", String(seq), "--name", "first"])).code).to.equal(0);
    const good = lines()[0]!;
    const typo = good.replace('"expect":{"decision":"deny"}', '"expect":{"decision":"deny","reson":"x"}').replace('"first"', '"typo"');
    const badEvent = good.replace('"event":"PreToolUse"', '"event":"PreTooluse"').replace('"first"', '"bad event"');
    const badPayload = good.replace(/"payload":\{.*\},"from"/, '"payload":{"tool_name":"Bash"},"from"').replace('"first"', '"no session"');
    sb.file(testFile, `${good}\n{"name": "cut off", "event": "PreToolUse"\n\r\n${typo}\r\n${badEvent}\n${badPayload}\n${good.replace('"first"', '"last"')}`);

    const run = await sb.run(["test"]);
    expect(run.code).to.equal(1);
    const out = nonEmptyLines(run.stdout);
    expect(out[0]).to.equal("ok    first (line 1): deny");
    expect(out[1]).to.match(/^FAIL {2}line 2: not JSON \(column \d+: .+\)$/);
    expect(out[2]).to.equal('FAIL  typo (line 4): not a hook test: expect: Unrecognized key: "reson"');
    expect(out[3]).to.match(/^FAIL {2}bad event \(line 5\): not a hook test: event: /);
    expect(out[4]).to.equal("FAIL  no session (line 6): the payload was rejected: invalid PreToolUse payload: session_id: missing (expected a string)");
    expect(out[5]).to.equal("ok    last (line 7): deny");
    expect(out[6]).to.equal("2 passed, 4 failed");
    expect(out).to.have.length(7);
  });

  it("a hanging hook is stopped at its timeout: the case fails saying so, and the run goes on", async () => {
    guardProject();
    const seq = await logged(RM);
    expect((await sb.run(["test", "add", String(seq), "--name", "guarded"])).code).to.equal(0);
    expect((await sb.run(["test", "add", String(seq), "--name", "again"])).code).to.equal(0);
    const hanging = sb.file("hanging.json", { hooks: { PreToolUse: [group("Bash", { command: "sleep 60", name: "hangs", timeout: 1 })] } });

    const run = await sb.run(["test", "--settings", hanging]);
    expect(run.code).to.equal(1);
    expect(nonEmptyLines(run.stdout)).to.deep.equal([
      "FAIL  guarded (line 1): expected deny, got none; hangs timed out after 1.0 s",
      "FAIL  again (line 2): expected deny, got none; hangs timed out after 1.0 s",
      "0 passed, 2 failed",
    ]);
    // Coarse: two cases of a 60 s hook ended by their 1 s timeout, far from waiting for the hook.
    expect(run.ms).to.be.below(30_000);
  });

  it("bad input is one clear line each: seqs that are no event, not judgeable ones, a missing file or log", async () => {
    guardProject();
    const rm = await logged(RM);
    expect((await sb.runEvent("PreToolUse", { session_id: "s1", tool_name: "Bash", tool_input: "not an object" })).code).to.equal(1);
    const rejected = (await logJson(sb, ["--limit", "1"]))[0]!.seq;
    expect((await sb.run(["record", "PreToolUse"], { input: JSON.stringify(LS) })).code).to.equal(0);
    const [recorded] = await logJson(sb, ["--limit", "1"]);
    const replay = await sb.run(["replay", "--session", "s1", "--settings", sb.file("none.json", { hooks: {} }), "--json"]);
    expect(replay.code, replay.stderr).to.equal(0);
    const { runId } = JSON.parse(replay.stdout) as { runId: string };
    const [replayed] = await logJson(sb, ["--replay", runId, "--limit", "1"]);
    const newest = Math.max(rm, rejected, recorded!.seq);

    const cases: [string[], RegExp][] = [
      [["test", "add", "abc"], /^qhooks: seq must be a whole number from 1 \(the SEQ column of qhooks log\), not "abc"$/],
      [["test", "add", "0"], /^qhooks: seq must be a whole number/],
      [["test", "add", String(rm + 1)], new RegExp(`^qhooks: #${rm + 1} is not an event but another record of the log .*; qhooks log shows each event's SEQ$`)],
      [["test", "add", "999999"], new RegExp(`^qhooks: no event #999999: the newest event in the log is #${newest}; qhooks log shows each event's SEQ$`)],
      [
        ["test", "add", String(rejected)],
        new RegExp(`^qhooks: #${rejected} was rejected \\(its payload was not valid\\), so no hook ever judged it: it cannot be a test$`),
      ],
      [
        ["test", "add", String(recorded!.seq)],
        new RegExp(
          `^qhooks: #${recorded!.seq} was only recorded \\(qhooks record\\), never judged: give the decision to expect with --expect allow\\|deny\\|ask\\|block\\|none$`,
        ),
      ],
      [
        ["test", "add", String(replayed!.seq)],
        new RegExp(
          `^qhooks: #${replayed!.seq} is an event of replay run ${runId}, which re-judged #${replayed!.replay!.of}: add #${replayed!.replay!.of} instead$`,
        ),
      ],
      [["test", "add", String(rm), "--expect", "maybe"], /^qhooks: .*'maybe' is invalid\. Allowed choices are allow, deny, ask, block, none\.$/],
      [["test", "add", String(rm), "--junit", "x.xml"], /^qhooks: test add: --junit belongs to qhooks test, not to test add$/],
      [["test"], /^qhooks: no hook tests at \.qoder\/hook-tests\.jsonl \(qhooks test add SEQ saves a logged event there\)$/],
      [["test", "--file", "elsewhere.jsonl"], /^qhooks: no hook tests at elsewhere\.jsonl /],
      [["test", "--file", "."], /^qhooks: \/.* is not a file$/],
      [["test", "add", String(rm), "--db", join(sb.root, "none.db")], /^qhooks: no event log at .*none\.db yet/],
      [["test", "add", String(rm), "--project-dir", join(sb.root, "typo")], /^qhooks: project directory .*typo does not exist /],
    ];
    for (const [args, line] of cases) {
      const r = await sb.run(args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stdout, args.join(" ")).to.equal("");
      expect(r.stderr.trimEnd(), args.join(" ")).to.match(line).and.not.include("\n");
    }
    expect(existsSync(testFile)).to.equal(false);
    expect(existsSync(join(sb.root, "typo"))).to.equal(false);

    // A recorded event is judgeable once told what to expect.
    const ok = await sb.run(["test", "add", String(recorded!.seq), "--expect", "none"]);
    expect(ok.code, ok.stderr).to.equal(0);
    const missing = await sb.run(["test", "--settings", "gone.json"]);
    expect(missing.code).to.equal(1);
    expect(qhooksLines(missing.stderr)).to.deep.equal(["qhooks: --settings gone.json: no such file"]);
    expect(missing.stdout).to.equal("");
    const run = await sb.run(["test"]);
    expect(run.stdout).to.equal(`ok    #${recorded!.seq} PreToolUse Bash (line 1): none\n1 passed, 0 failed\n`);
  });

  it("with --dialect claude the file is .claude/hook-tests.jsonl; --file names another; an empty file passes with a warning", async () => {
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [group("Bash", { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" })] },
    });
    const seq = await logged(RM, "PreToolUse", ["--dialect", "claude"]);
    expect((await sb.run(["test", "add", String(seq), "--dialect", "claude"])).code).to.equal(0);
    expect(lines(join(sb.project, ".claude", "hook-tests.jsonl"))).to.have.length(1);
    expect(existsSync(testFile)).to.equal(false);
    const run = await sb.run(["test", "--dialect", "claude"]);
    expect(run.stdout).to.equal(`ok    #${seq} PreToolUse Bash (line 1): deny\n1 passed, 0 failed\n`);

    // `test add --file` given after `add` or before it names the same file.
    expect((await sb.run(["test", "add", String(seq), "--file", "ci/a.jsonl", "--dialect", "claude"])).code).to.equal(0);
    expect((await sb.run(["test", "--file", "ci/a.jsonl", "add", String(seq), "--dialect", "claude"])).code).to.equal(0);
    expect(lines(join(sb.project, "ci", "a.jsonl"))).to.have.length(2);

    sb.file(join(sb.project, "empty.jsonl"), "\n");
    const empty = await sb.run(["test", "--file", "empty.jsonl"]);
    expect(empty.code).to.equal(0);
    expect(empty.stdout).to.equal("0 passed, 0 failed\n");
    expect(qhooksLines(empty.stderr)).to.deep.equal(["qhooks: warning: no test cases in empty.jsonl"]);
  });

  it("test add saves to the test file of the host the event was judged for, unless --dialect names another", async () => {
    guardProject();
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [group("Bash", { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" })] },
    });
    const claudeTests = join(sb.project, ".claude", "hook-tests.jsonl");
    const byClaude = await logged(RM, "PreToolUse", ["--dialect", "claude"]);
    const add = await sb.run(["test", "add", String(byClaude)]);
    expect(add.code, add.stderr).to.equal(0);
    expect(add.stdout).to.contain(".claude/hook-tests.jsonl, line 1: PreToolUse Bash expects deny");
    expect(lines(claudeTests)).to.have.length(1);
    expect(existsSync(testFile)).to.equal(false);
    // Named, the host wins over the event's own.
    expect((await sb.run(["test", "add", String(byClaude), "--dialect", "qoder"])).code).to.equal(0);
    expect(lines(testFile)).to.have.length(1);
    // An event judged for Qoder goes to .qoder/.
    const byQoder = await logged(LS, "PreToolUse", ["--dialect", "qoder"]);
    expect((await sb.run(["test", "add", String(byQoder)])).code).to.equal(0);
    expect(lines(testFile)).to.have.length(2);
    expect(lines(claudeTests)).to.have.length(1);
  });

  it("qhooks schema hook-test describes the lines qhooks test add writes (checked with a JSON Schema validator)", async () => {
    guardProject();
    const seq = await logged(RM);
    expect((await sb.run(["test", "add", String(seq), "--reason", "Dangerous", "--ran", "block-rm", "--not-ran", "x"])).code).to.equal(0);
    const r = await sb.run(["schema", "hook-test"]);
    expect(r.code, r.stderr).to.equal(0);
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(r.stdout) as object);
    const [line] = lines();
    expect(validate(JSON.parse(line!)), JSON.stringify(validate.errors)).to.equal(true);
    for (const mistake of [
      { ...JSON.parse(line!), expect: { decision: "maybe" } },
      { ...JSON.parse(line!), extra: 1 },
      { ...JSON.parse(line!), payload: [] },
    ]) {
      expect(validate(mistake), JSON.stringify(mistake)).to.equal(false);
    }
  });
});
