import { expect } from "chai";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ExplanationSchema, type ExplainedHook, type Explanation } from "../../src/schema/explanation.js";
import { logJson, qhooksLines } from "../store/storeHelpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

const BLOCK_RM = `input=$(cat)
case "$input" in *"rm -rf"*) echo "Dangerous command blocked" >&2; exit 2;; esac
exit 0`;
const RM = payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } });

/**
 * `qhooks explain`: real settings files in a temporary HOME and project, real hook processes, a real log; the
 * explanation comes from the configuration logged with the event, whatever the files say afterwards.
 */
describe("qhooks explain", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const explainJson = async (args: string[], input?: string): Promise<Explanation> => {
    const r = await sb.run(["explain", ...args, "--json"], input === undefined ? {} : { input });
    expect(r.code, r.stderr).to.equal(0);
    return ExplanationSchema.parse(JSON.parse(r.stdout));
  };
  const named = (x: Explanation, name: string): ExplainedHook[] => x.hooks.filter((h) => h.name === name);
  const newestSeq = async () => (await logJson(sb, ["--limit", "1"]))[0]!.seq;

  /** A configuration with one hook of each verdict for a PreToolUse Bash event. */
  const configure = () => {
    const blockRm = sb.script("block-rm.sh", BLOCK_RM);
    const marker = join(sb.root, "ran-audit");
    const audit = sb.script("audit.sh", `cat >/dev/null; touch ${marker}; exit 0`);
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", { command: blockRm, name: "block-rm-user" })] } });
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group("Bash", { command: blockRm, name: "block-rm" }, { command: audit, name: "audit" }),
          group("Write|Edit", { command: "echo fmt", name: "format" }),
          group("Bash", { type: "command", name: "no-command" }),
          group("Bash", { command: "echo shadowed; exit 2", name: "deny-all", mode: "shadow" }),
        ],
        Stop: [group(undefined, { command: "echo stop", name: "stop-check" })],
        PreTool: [group(undefined, { command: "echo typo", name: "typo-event" })],
      },
    });
    return { marker };
  };

  it("gives every hook of the logged configuration one verdict, with its source, and says which hook decided by which rule", async () => {
    configure();
    const r = await sb.runEvent("PreToolUse", RM);
    expect(r.code, r.stderr).to.equal(2);
    const seq = await newestSeq();
    const x = await explainJson([String(seq)]);

    expect(x).to.deep.include({ seq, event: "PreToolUse", matchField: "tool_name", matchValue: "Bash", basis: "log", decision: "deny", blocked: true });
    expect(x.unknown).to.deep.equal([]);

    const [rm] = named(x, "block-rm");
    expect(rm!.source).to.deep.equal({ level: "project", file: ".qoder/settings.json", plugin: null, path: "hooks.PreToolUse[0].hooks[0]" });
    expect(rm!.verdict).to.deep.include({ kind: "ran", outcome: "block", decision: "deny", reason: "Dangerous command blocked", shadow: false, decided: true });

    // The same command in the user's file matched too: it ran once, under the project's entry (higher priority).
    expect(named(x, "block-rm-user")[0]!.verdict).to.deep.equal({
      kind: "deduplicated",
      with: { name: "block-rm", source: { level: "project", file: ".qoder/settings.json", plugin: null, path: "hooks.PreToolUse[0].hooks[0]" } },
    });
    expect(named(x, "block-rm-user")[0]!.source).to.deep.include({ level: "user", file: "~/.qoder-cn/settings.json" });
    expect(named(x, "audit")[0]!.verdict).to.deep.include({ kind: "ran", outcome: "success", decision: "none", decided: false });
    expect(named(x, "format")[0]!.verdict).to.deep.equal({ kind: "no-match", matcher: "Write|Edit", value: "Bash", field: "tool_name" });
    const invalid = named(x, "no-command")[0]!.verdict;
    expect(invalid.kind).to.equal("invalid");
    expect(invalid.kind === "invalid" && invalid.warning).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[2\]\.hooks\[0\]\.command: .*skipped/);
    expect(named(x, "typo-event")[0]!.verdict).to.deep.include({ kind: "invalid" });
    expect(named(x, "stop-check")[0]!.verdict).to.deep.equal({ kind: "other-event", event: "Stop" });

    // The shadow hook ran and would have denied, but did not count.
    const [shadow] = named(x, "deny-all");
    expect(shadow!.mode).to.equal("shadow");
    expect(shadow!.verdict).to.deep.include({ kind: "ran", outcome: "block", decision: "deny", shadow: true, decided: false });
    expect(x.shadow).to.deep.equal({ decision: "deny", changed: false, hooks: ["deny-all"] });

    expect(x.formed!.decidedBy).to.deep.equal(["block-rm"]);
    expect(x.formed!.rule).to.include("deny > ask > allow > none");
    expect(x.hooks).to.have.length(8);
  });

  it("explains from the log, not from today's files; the text form lists each verdict and the rule", async () => {
    configure();
    await sb.runEvent("PreToolUse", RM);
    const seq = await newestSeq();
    rmSync(join(sb.project, ".qoder", "settings.json"));
    rmSync(join(sb.home, ".qoder-cn", "settings.json"));

    const x = await explainJson([String(seq)]);
    expect(named(x, "block-rm")[0]!.verdict.kind).to.equal("ran");
    expect(named(x, "format")[0]!.verdict.kind).to.equal("no-match");

    const r = await sb.run(["explain", `#${seq}`]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`#${seq}  PreToolUse  Bash`);
    expect(r.stdout).to.include("decision: DENY  (Dangerous command blocked)");
    expect(r.stdout).to.match(
      /ran +block-rm {2}\(project \.qoder\/settings\.json hooks\.PreToolUse\[0\]\.hooks\[0\]\)\n +block: deny, \d+ ms, decided the outcome: Dangerous command blocked/,
    );
    expect(r.stdout).to.match(/no match +format .*\n +matcher "Write\|Edit" does not match tool_name "Bash"/);
    expect(r.stdout).to.match(/deduplicated +block-rm-user/);
    expect(r.stdout).to.match(/invalid +no-command/);
    expect(r.stdout).to.match(/ran +deny-all \[shadow\]/);
    expect(r.stdout).to.match(/other event +1 hook of other events: stop-check \(Stop\)/);
    expect(r.stdout).to.include("decided by: block-rm");
    expect(r.stderr).to.equal("");
  });

  it("explain EVENT --payload FILE|-: which hooks would run with the settings now, without running any", async () => {
    const { marker } = configure();
    const file = sb.file("call.json", RM);
    const x = await explainJson(["PreToolUse", "--payload", file]);
    expect(x).to.deep.include({ seq: null, basis: "settings", decision: null, formed: null });
    expect(named(x, "block-rm")[0]!.verdict).to.deep.equal({ kind: "would-run", shadow: false });
    expect(named(x, "audit")[0]!.verdict).to.deep.equal({ kind: "would-run", shadow: false });
    expect(named(x, "deny-all")[0]!.verdict).to.deep.equal({ kind: "would-run", shadow: true });
    expect(named(x, "format")[0]!.verdict.kind).to.equal("no-match");
    expect(existsSync(marker), "no hook ran").to.equal(false);

    const write = await explainJson(["PreToolUse", "--payload", "-"], JSON.stringify(payloadFor("PreToolUse", { tool_name: "Write" })));
    expect(named(write, "format")[0]!.verdict.kind).to.equal("would-run");
    expect(named(write, "block-rm")[0]!.verdict).to.deep.include({ kind: "no-match", value: "Write" });
    expect(existsSync(sb.db), "nothing logged").to.equal(false);
  });

  it("an untrusted project hook is skipped, with why", async () => {
    sb.userSettings({ qhooks: { requireTrust: true } });
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sb.script("block-rm.sh", BLOCK_RM), name: "block-rm" })] } });
    await sb.runEvent("PreToolUse", RM);
    const x = await explainJson([String(await newestSeq())]);
    const v = named(x, "block-rm")[0]!.verdict;
    expect(v.kind).to.equal("skipped");
    expect(v.kind === "skipped" && v.reason).to.equal("untrusted");
    expect(x.decision).to.equal("none");
    expect(x.formed!.rule).to.include("no hook ran");
  });

  it("bad input: one line each, no stack", async () => {
    configure();
    await sb.runEvent("PreToolUse", RM);
    const seq = await newestSeq();
    await sb.runEvent("PreToolUse", RM);
    const cases: [string[], RegExp][] = [
      [[String(seq + 50)], /^qhooks: no event #\d+: the newest event in the log is #\d+/],
      [[String(seq + 1)], /is not an event but another record of the log/],
      [["abc"], /seq must be a whole number from 1/],
      [["PreToolUse"], /explain PreToolUse needs --payload FILE/],
      [["PreToolUse", "--payload", join(sb.root, "missing.json")], /--payload .*missing\.json: no such file/],
      [["PreToolUse", "--payload", sb.file("bad.json", "{not json")], /invalid|not valid JSON/],
      [["PreTool", "--payload", "-"], /unknown event "PreTool"; did you mean PreToolUse\?/],
    ];
    for (const [args, message] of cases) {
      const r = await sb.run(["explain", ...args], { input: "{}" });
      expect(r.code, args.join(" ")).to.equal(1);
      expect(qhooksLines(r.stderr), r.stderr).to.have.length(1);
      expect(r.stderr, args.join(" ")).to.match(message);
      expect(r.stderr).not.to.include("    at ");
    }
  });

  it("an event logged without a configuration (recorded) says what it cannot know", async () => {
    const r = await sb.run(["record", "PreToolUse"], { input: JSON.stringify(RM) });
    expect(r.code, r.stderr).to.equal(0);
    const x = await explainJson([String(await newestSeq())]);
    expect(x.decision).to.equal("recorded");
    expect(x.hooks).to.deep.equal([]);
    expect(x.formed).to.equal(null);
    expect(x.unknown).to.have.length(1);
    expect(x.unknown[0]).to.include("no configuration was logged");
  });
});
