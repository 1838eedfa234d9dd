import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { logJson } from "../store/storeHelpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

const DENY_RM = `input=$(cat)
case "$input" in *"rm -rf"*) echo "rm -rf would be refused" >&2; exit 2;; esac
exit 0`;
const RM = payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } });
const LS = payloadFor("PreToolUse", { tool_input: { command: "ls" } });

/** Shadow mode with real hook processes and a real log: a new guard rolled out without changing any decision. */
describe("shadow hooks", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const configure = (extra: Record<string, unknown>[] = []) =>
    sb.projectSettings({
      hooks: {
        PreToolUse: [
          group(
            "Bash",
            { command: "cat >/dev/null; exit 0", name: "old-guard" },
            { command: sb.script("deny-rm.sh", DENY_RM), name: "new-guard", mode: "shadow" },
            ...extra,
          ),
        ],
      },
    });

  it("run and are logged with the verdict they would give, but never change the outcome", async () => {
    configure();
    const r = await sb.runEvent("PreToolUse", RM);
    expect(r.code, r.stderr).to.equal(0);
    const outcome = OutcomeSchema.parse(r.outcome);
    expect(outcome).to.deep.include({ decision: "none", blocked: false, reason: null });
    const shadow = outcome.hooks.find((h) => h.name === "new-guard")!;
    expect(shadow).to.deep.include({ outcome: "block", decision: "deny", reason: "rm -rf would be refused", shadow: true });
    expect(outcome.hooks.find((h) => h.name === "old-guard")!.shadow).to.equal(undefined);
    expect(outcome.shadow).to.deep.equal({
      hooks: ["new-guard"],
      decision: "deny",
      blocked: true,
      reason: "rm -rf would be refused",
      continue: true,
      changed: true,
    });

    const ls = OutcomeSchema.parse((await sb.runEvent("PreToolUse", LS)).outcome);
    expect(ls.shadow).to.deep.include({ decision: "none", changed: false });

    // The log keeps it: the listing's records carry the shadow verdict.
    const [newest, older] = await logJson(sb, ["--limit", "2"]);
    expect(newest!.shadow).to.deep.include({ changed: false });
    expect(older!.shadow).to.deep.include({ decision: "deny", changed: true });
  });

  it("cannot stop the agent, rewrite the input or add context", async () => {
    const json = JSON.stringify({
      continue: false,
      stopReason: "halt",
      systemMessage: "from the shadow",
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "echo safe" } },
    });
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: `cat >/dev/null; echo '${json}'`, name: "rewriter", mode: "shadow" })] } });
    const outcome = OutcomeSchema.parse((await sb.runEvent("PreToolUse", LS)).outcome);
    expect(outcome).to.deep.include({ decision: "none", continue: true, stopReason: null, updatedInput: null });
    expect(outcome.systemMessages).to.deep.equal([]);
    expect(outcome.shadow).to.deep.include({ decision: "allow", continue: false, changed: true });
  });

  it("qhooks log --shadow lists the events a shadow hook would have changed; replay --enforce-shadow shows what enforcing them changes", async () => {
    configure();
    await sb.runEvent("PreToolUse", LS);
    await sb.runEvent("PreToolUse", RM);
    await sb.runEvent("PreToolUse", LS);
    const all = await logJson(sb);
    const rm = all.find((r) => JSON.stringify(r.payload).includes("rm -rf"))!;
    expect((await logJson(sb, ["--shadow"])).map((r) => r.seq)).to.deep.equal([rm.seq]);

    const replay = await sb.run(["replay", "--event", "PreToolUse", "--enforce-shadow", "--yes", "--json"]);
    expect(replay.code, replay.stderr).to.equal(0);
    const report = JSON.parse(replay.stdout) as {
      changed: number;
      newlyBlocked: number;
      results: { seq: number; changed: boolean; before: { decision: string }; after: { decision: string } }[];
    };
    expect(report).to.deep.include({ changed: 1, newlyBlocked: 1 });
    expect(report.results.filter((r) => r.changed).map((r) => [r.seq, r.before.decision, r.after.decision])).to.deep.equal([[rm.seq, "none", "deny"]]);

    // Without the flag the shadow hook still does not count.
    const plain = await sb.run(["replay", "--event", "PreToolUse", "--yes", "--json"]);
    expect((JSON.parse(plain.stdout) as { changed: number }).changed).to.equal(0);

    const text = await sb.run(["replay", "--shadow", "--enforce-shadow", "--yes"]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.include("with shadow hooks enforced");
    expect(text.stdout).to.match(new RegExp(`#${rm.seq} PreToolUse Bash: none  ->  deny \\(rm -rf would be refused\\)`));
  });

  it("hooks add --shadow writes the handler in shadow mode; qhooks hooks says so", async () => {
    const add = await sb.run([
      "hooks",
      "add",
      "PreToolUse",
      "--matcher",
      "Bash",
      "--command",
      sb.script("deny-rm.sh", DENY_RM),
      "--name",
      "new-guard",
      "--level",
      "project",
      "--shadow",
    ]);
    expect(add.code, add.stderr).to.equal(0);
    const settings = JSON.parse(readFileSync(join(sb.project, ".qoder", "settings.json"), "utf8")) as {
      hooks: { PreToolUse: { hooks: { mode?: string }[] }[] };
    };
    expect(settings.hooks.PreToolUse[0]!.hooks[0]!.mode).to.equal("shadow");
    const listed = JSON.parse((await sb.run(["hooks", "--json"])).stdout) as { hooks: { name: string; mode: string }[] };
    expect(listed.hooks.map((h) => [h.name, h.mode])).to.deep.equal([["new-guard", "shadow"]]);
    const r = await sb.runEvent("PreToolUse", RM);
    expect(r.code, r.stderr).to.equal(0);
  });

  it('a bad mode is a warning about that hook; "enforce" is the default', async () => {
    sb.projectSettings({
      hooks: { PreToolUse: [group("Bash", { command: "exit 0", name: "a", mode: "audit" }, { command: "exit 0", name: "b", mode: "enforce" })] },
    });
    const r = await sb.runEvent("PreToolUse", LS);
    expect(r.stderr).to.include('hooks.PreToolUse[0].hooks[0].mode: expected "enforce" or "shadow"');
    const outcome = OutcomeSchema.parse(r.outcome);
    expect(outcome.hooks.map((h) => h.name)).to.deep.equal(["b"]);
    expect(outcome.shadow).to.equal(undefined);
  });
});
