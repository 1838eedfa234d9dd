import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ReplayResultSchema, ReplaySummarySchema } from "../../src/schema/replay.js";
import { CLI, Sandbox, group } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";
import { capture, usageError } from "./harness.js";

/**
 * A replay runs hooks for real: it says what it will run, asks on a terminal and needs --yes elsewhere; events
 * (--skip-event) and hooks (qhooks.replay in the settings) with side effects can be left out or stubbed. Every hook
 * with a side effect here appends a line to a file: whether the file grew is whether the hook ran.
 */
describe("qhooks replay never surprises: it asks, and skips or stubs what it is told to", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  /** Lines each side-effect hook appended, by file name. */
  const lines = (name: string) => (existsSync(join(sb.root, name)) ? readFileSync(join(sb.root, name), "utf8").split("\n").filter(Boolean).length : 0);
  const append = (name: string) => `echo ran >> '${join(sb.root ?? "", name)}'`;
  const bash = (command: string) => JSON.stringify({ session_id: "s", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } });
  const notification = JSON.stringify({ session_id: "s", hook_event_name: "Notification", message: "done" });

  /** Settings whose hooks each leave a trace: `notify` on Notification, `audit` and `guard` on PreToolUse. */
  const settings = (qhooks?: unknown) =>
    sb.file("replay-settings.json", {
      hooks: {
        PreToolUse: [
          group("Bash", { name: "audit", command: append("audit.txt") }, { name: "guard", command: `${append("guard.txt")}; echo 'no rm' >&2; exit 2` }),
        ],
        Notification: [group(undefined, { name: "notify", command: append("notify.txt") })],
      },
      ...(qhooks === undefined ? {} : { qhooks }),
    });

  /** Parses `replay --json` against the schemas the library exports: every result, and the counts after them. */
  const parseJson = (stdout: string) => {
    const { runId, results, ...counts } = JSON.parse(stdout) as { runId: string; results: unknown[] };
    return {
      results: results.map((r) => ReplayResultSchema.strict().parse(r)),
      counts: ReplaySummarySchema.omit({ runId: true }).strict().parse(counts),
      runId,
    };
  };

  beforeEach(async () => {
    sb = new Sandbox();
    await capture(sb, [{ record: bash("rm -rf /tmp/x") }, { record: notification }, { record: bash("ls") }]);
  });
  afterEach(() => sb.cleanup());

  it("not on a terminal and without --yes: one line naming --yes and --match-only, exit 1, no hook runs, no run is logged", async () => {
    const file = settings();
    for (const json of [[], ["--json"]]) {
      const r = await sb.run(["replay", "--session", "s", "--settings", file, ...json]);
      const line = usageError(r);
      expect(line).to.equal(
        "qhooks: replay would run 3 hooks (audit, guard, notify) on 3 events, 5 runs in all, for real: pass --yes to run them, or --match-only to see which hooks match without running any",
      );
      expect(r.stdout).to.equal("");
    }
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([0, 0, 0]);
    expect(JSON.parse((await sb.run(["replay", "--list", "--json"])).stdout)).to.deep.equal([]);
  });

  it("--yes runs every hook, after one line saying what will run; --match-only needs no --yes and runs nothing", async () => {
    const file = settings();
    const matched = await sb.run(["replay", "--session", "s", "--settings", file, "--match-only"]);
    expect(matched.code, matched.stderr).to.equal(0);
    expect(matched.stderr).to.equal("");
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([0, 0, 0]);

    const r = await sb.run(["replay", "--session", "s", "--settings", file, "--yes", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal("Replay runs 3 hooks (audit, guard, notify) on 3 events, 5 runs in all.\n");
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([2, 2, 1]);
    const { results, counts } = parseJson(r.stdout);
    expect(results.map((x) => x.after.decision)).to.deep.equal(["deny", "none", "deny"]);
    expect(counts).to.include({ events: 3, changed: 2, newlyBlocked: 2, skippedEvents: 0, hooksSkipped: 0, hooksStubbed: 0 });
  });

  it("a replay whose selection runs no hook needs no --yes", async () => {
    const none = sb.file("none.json", { hooks: { Stop: [group(undefined, append("stop.txt"))] } });
    const r = await sb.run(["replay", "--session", "s", "--settings", none]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain("3 events replayed, 0 changed");
  });

  it("--skip-event E: those events' hooks do not run; they are reported skipped, and counted apart", async () => {
    const file = settings();
    const refused = usageError(await sb.run(["replay", "--session", "s", "--settings", file, "--skip-event", "Notification"]));
    expect(refused).to.contain("replay would run 2 hooks (audit, guard) on 2 of 3 events, 4 runs in all; 1 event skipped (--skip-event), for real");

    const r = await sb.run(["replay", "--session", "s", "--settings", file, "--skip-event", "Notification", "--yes", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([2, 2, 0]);
    const { results, counts } = parseJson(r.stdout);
    expect(results[1]).to.include({ event: "Notification", skipped: "--skip-event Notification", skipEvent: true, changed: false });
    expect(results[1]!.after.hooks).to.deep.equal([]);
    expect(counts).to.include({ events: 3, skipped: 0, skippedEvents: 1 });

    // Every event skipped: nothing runs, nothing to agree to.
    const text = await sb.run(["replay", "--session", "s", "--settings", file, "--skip-event", "Notification", "--skip-event", "PreToolUse"]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.contain("3 events replayed, 0 changed (0 newly blocked, 0 newly allowed), 3 skipped (--skip-event); 0 hook errors, 0 timeouts.");
    expect(text.stdout).not.to.match(/#\d+ /);
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([2, 2, 0]);

    expect(usageError(await sb.run(["replay", "--session", "s", "--skip-event", "Notifcation", "--yes"]))).to.equal(
      'qhooks: --skip-event: unknown event "Notifcation"; did you mean Notification?',
    );
  });

  it("qhooks.replay.skip: the named hooks do not run (under any name their command has); the rest do, and the replay says which were skipped", async () => {
    const file = sb.file("skip.json", {
      hooks: {
        PreToolUse: [group("Bash", { name: "audit", command: append("audit.txt") }, { name: "guard", command: `${append("guard.txt")}; exit 0` })],
        // The same command under another name: the same side effect.
        Notification: [group(undefined, { name: "notify", command: append("notify.txt") }, { name: "audit-again", command: append("audit.txt") })],
      },
      qhooks: { replay: { skip: ["audit", "notify"] } },
    });
    const refused = usageError(await sb.run(["replay", "--session", "s", "--settings", file]));
    expect(refused).to.contain("replay would run 1 hook (guard) on 2 of 3 events, 2 runs in all; skipped: audit, notify, audit-again, for real");

    const r = await sb.run(["replay", "--session", "s", "--settings", file, "--yes", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([0, 2, 0]);
    const { results, counts } = parseJson(r.stdout);
    expect(results.map((x) => [x.after.hooks, x.hooksSkipped])).to.deep.equal([
      [["guard"], ["audit"]],
      [[], ["notify", "audit-again"]],
      [["guard"], ["audit"]],
    ]);
    expect(counts).to.include({ hooksSkipped: 4, hooksStubbed: 0 });

    const text = await sb.run(["replay", "--session", "s", "--settings", file, "--yes"]);
    expect(text.stdout).to.contain("Hook runs not made (qhooks.replay in the settings): 4 skipped.");
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([0, 4, 0]);
  });

  it("qhooks.replay.stub: the hook gives its stub answer instead of running, read as its output would be", async () => {
    const file = settings({ replay: { stub: { guard: { exitCode: 2, stderr: "stubbed: no rm" }, audit: {} }, skip: ["notify"] } });
    // Nothing runs for real: no question.
    const r = await sb.run(["replay", "--session", "s", "--settings", file, "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect([lines("audit.txt"), lines("guard.txt"), lines("notify.txt")]).to.deep.equal([0, 0, 0]);
    const { results, counts } = parseJson(r.stdout);
    expect(results[0]).to.deep.include({ hooksStubbed: ["audit", "guard"], changed: true, changes: ["decision", "blocked"] });
    expect(results[0]!.after).to.deep.equal({ decision: "deny", blocked: true, reason: "stubbed: no rm", hooks: ["audit", "guard"] });
    expect(counts).to.include({ hooksStubbed: 4, hooksSkipped: 1 });

    const text = await sb.run(["replay", "--session", "s", "--settings", file]);
    expect(text.stdout).to.match(/#\d+ PreToolUse Bash: recorded {2}-> {2}deny \(stubbed: no rm\) {2}\[stubbed: audit, guard\]/);
    expect(text.stdout).to.contain("Hook runs not made (qhooks.replay in the settings): 1 skipped, 4 answered by their stub.");
  });

  it("a misspelt name in qhooks.replay is warned about before the question; a bad value is one warning and is ignored", async () => {
    const typo = settings({ replay: { skip: ["notfy"] } });
    const r = await sb.run(["replay", "--session", "s", "--settings", typo]);
    expect(r.code).to.equal(1);
    const stderr = r.stderr.trim().split("\n");
    expect(stderr).to.have.length(2);
    expect(stderr[0]).to.equal('qhooks: warning: qhooks.replay: no hook is named "notfy"; nothing is skipped or stubbed for it');
    expect(stderr[1]).to.match(/^qhooks: replay would run 3 hooks/);

    const bad = settings({ replay: { skip: "notify" } });
    const b = await sb.run(["replay", "--session", "s", "--settings", bad, "--match-only"]);
    expect(b.code, b.stderr).to.equal(0);
    expect(warningLines(b.stderr)).to.deep.equal([`${bad}: qhooks.replay.skip: expected an array of hook names; ignored`]);
  });

  it("the summary lists the hooks that failed (event seq, hook, first line of why); unchanged events are neither counted nor listed", async () => {
    const file = sb.file("failing.json", {
      hooks: {
        PreToolUse: [group("Bash", { name: "broken", command: "printf 'first line\\nsecond line\\n' >&2; exit 1" })],
        Notification: [group(undefined, { name: "slow", command: "sleep 5", timeout: 0.3 })],
      },
    });
    const r = await sb.run(["replay", "--session", "s", "--settings", file, "--yes"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain("3 events replayed, 0 changed (0 newly blocked, 0 newly allowed); 2 hook errors, 1 timeouts.");
    const failed = r.stdout.slice(r.stdout.indexOf("Hooks that failed:")).split("\n").slice(1, 4);
    expect(failed[0]).to.match(/^ {2}#\d+ broken: error: .*first line$/);
    expect(failed[1]).to.match(/^ {2}#\d+ slow: timed out after 0\.3 s$/);
    expect(failed[2]).to.match(/^ {2}#\d+ broken: error: .*first line$/);
    expect(r.stdout).not.to.contain("second line");
    expect(r.stdout.split("\n").filter((l) => /^ {2}#\d+ \S+ /.test(l) && l.includes("->"))).to.deep.equal([]);
    const json = parseJson((await sb.run(["replay", "--session", "s", "--settings", file, "--yes", "--json"])).stdout);
    expect(json.results[1]!.hookFailures).to.deep.equal([{ name: "slow", outcome: "timeout", error: "timed out after 0.3 s" }]);
  });
});

describe("qhooks replay: what counts as a change", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const hookSaying = (output: unknown) => `cat >/dev/null; echo '${JSON.stringify(output)}'`;

  it("an event whose decision, blocked, continue and updatedInput are the same is unchanged; continue or updatedInput alone is a change", async () => {
    const stopping = { hooks: { Stop: [group(undefined, { name: "halt", command: hookSaying({ continue: false, stopReason: "enough" }) })] } };
    const rewriting = (command: string) => ({
      hooks: {
        PreToolUse: [
          group("Bash", {
            name: "rewrite",
            command: hookSaying({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command } } }),
          }),
        ],
      },
    });
    const liveStop = sb.file("live-stop.json", stopping);
    const liveRewrite = sb.file("live-rewrite.json", rewriting("ls -la"));
    await capture(sb, [JSON.stringify({ session_id: "stop", hook_event_name: "Stop", stop_hook_active: false })], { settingsFiles: [liveStop] });
    await capture(sb, [JSON.stringify({ session_id: "pre", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } })], {
      settingsFiles: [liveRewrite],
    });

    const replay = async (session: string, file: string) => {
      const r = await sb.run(["replay", "--session", session, "--settings", file, "--yes", "--json"]);
      expect(r.code, r.stderr).to.equal(0);
      const out = JSON.parse(r.stdout) as { changed: number; results: unknown[] };
      return { changed: out.changed, result: ReplayResultSchema.strict().parse(out.results[0]) };
    };
    // The same hooks: nothing changed, though the outcome is not the default one.
    for (const [session, file] of [
      ["stop", liveStop],
      ["pre", liveRewrite],
    ] as const) {
      const same = await replay(session, file);
      expect(same.changed, session).to.equal(0);
      expect(same.result.changed).to.equal(false);
      expect(same.result).not.to.have.property("changes");
      const text = await sb.run(["replay", "--session", session, "--settings", file, "--yes"]);
      expect(text.stdout).to.contain("1 events replayed, 0 changed");
      expect(text.stdout).not.to.match(/#\d+ /);
    }
    // Only `continue` differs: the agent would now go on.
    const goesOn = await replay("stop", sb.file("quiet.json", { hooks: { Stop: [group(undefined, { name: "halt", command: "cat >/dev/null" })] } }));
    expect(goesOn.result).to.deep.include({ changed: true, changes: ["continue"] });
    expect(goesOn.result.before.decision).to.equal(goesOn.result.after.decision);
    // Only `updatedInput` differs: the tool would get another input.
    const other = await replay("pre", sb.file("other-rewrite.json", rewriting("ls -l")));
    expect(other.result).to.deep.include({ changed: true, changes: ["updatedInput"] });
    const text = await sb.run(["replay", "--session", "pre", "--settings", sb.file("other-rewrite.json", rewriting("ls -l")), "--yes"]);
    expect(text.stdout).to.match(/#\d+ PreToolUse Bash: allow {2}-> {2}allow {2}\[updatedInput changed\]/);
    expect(text.stdout).to.contain("1 events replayed, 1 changed");
  });
});

describe("qhooks replay on a terminal: asks before running hooks", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  before(async () => {
    sb = new Sandbox();
    await capture(sb, [{ record: JSON.stringify({ session_id: "tty", hook_event_name: "Notification", message: "done" }) }]);
  });
  after(() => sb.cleanup());

  /** Runs a replay under `script`, which gives it a terminal (stdin and stderr), typing `answer` into it. */
  const onTerminal = (settings: string, answer: string) => {
    const command = `'${process.execPath}' '${CLI}' replay --session tty --settings '${settings}'`;
    const argv = process.platform === "darwin" ? ["-q", "/dev/null", "/bin/sh", "-c", command] : ["-q", "-e", "-c", command, "/dev/null"];
    return new Promise<{ code: number | null; shown: string }>((resolve, reject) => {
      const child = spawn("script", argv, { cwd: sb.project, env: sb.env(), stdio: ["pipe", "pipe", "pipe"] });
      const chunks: Buffer[] = [];
      let answered = false;
      child.stdout.on("data", (c: Buffer) => {
        chunks.push(c);
        // Typed once the question is on the screen, as a person would.
        if (!answered && Buffer.concat(chunks).toString("utf8").includes("[y/N]")) {
          answered = true;
          child.stdin.write(answer);
        }
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, shown: Buffer.concat(chunks).toString("utf8") }));
    });
  };

  it('"y" runs the hooks; anything else (or Enter) runs none and exits 1', async () => {
    const trace = join(sb.root, "notify.txt");
    const settings = sb.file("notify.json", { hooks: { Notification: [group(undefined, { name: "notify", command: `echo ran >> '${trace}'` })] } });
    const no = await onTerminal(settings, "\r");
    expect(no.shown).to.contain("Replay will run 1 hook (notify) on 1 event, 1 run in all.");
    expect(no.shown).to.contain("Run 1 hook on 1 event? [y/N]");
    expect(no.shown).to.contain("qhooks: replay cancelled; no hook ran");
    expect(no.code).to.equal(1);
    expect(existsSync(trace)).to.equal(false);

    const yes = await onTerminal(settings, "y\r");
    expect(yes.code, yes.shown).to.equal(0);
    expect(yes.shown).to.contain("1 events replayed");
    expect(readFileSync(trace, "utf8")).to.equal("ran\n");
  });
});
