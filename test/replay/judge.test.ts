import { expect } from "chai";
import { readFileSync } from "node:fs";
import { Sandbox, group } from "../support/sandbox.js";
import { cliJson, demoSession, installDemo, liveEvents, recordLine, replayJson, runLine, type LogRow, type ReplayJson, type Result } from "./harness.js";

/**
 * A session captured for real (the demo session through `qhooks run` with the demo's hook scripts as project
 * settings, plus a second session captured with `qhooks record`, interleaved), then re-judged with other configs.
 */
describe("qhooks replay: re-judging captured sessions", function () {
  this.timeout(60_000);

  const DEMO = "demo-7f3a";
  const RECORDED = "rec-b";
  /** The recorded session, each line sent after the demo event of the same index in the key. */
  const recordedAfter: Record<number, string> = {
    1: JSON.stringify({ session_id: RECORDED, hook_event_name: "SessionStart", cwd: "/srv/b", source: "resume" }),
    4: JSON.stringify({
      session_id: RECORDED,
      hook_event_name: "PreToolUse",
      cwd: "/srv/b",
      tool_name: "Bash",
      tool_input: { command: "git push -f origin feature" },
    }),
    8: JSON.stringify({ session_id: RECORDED, hook_event_name: "UserPromptSubmit", cwd: "/srv/b", prompt: "ok, password: hunter2" }),
    11: JSON.stringify({
      session_id: RECORDED,
      hook_event_name: "PreToolUse",
      cwd: "/srv/b",
      tool_name: "Write",
      tool_input: { file_path: "/srv/b/notes.md", content: "x" },
    }),
  };

  let sb: Sandbox;
  let stricter: string;
  let looser: string;
  /** The live events of each session, oldest first, as `qhooks log` lists them. */
  let demoEvents: LogRow[];
  let recordedEvents: LogRow[];
  /** What `log`, `sessions` and `stats` said about live history right after the capture. */
  let liveBefore: { log: LogRow[]; sessions: unknown; stats: unknown };

  before(async () => {
    sb = new Sandbox();
    const demo = installDemo(sb);
    stricter = demo.stricter;
    sb.projectSettings(readFileSync(demo.settings, "utf8"));
    // Looser: rm -rf under /tmp is explicitly allowed, prompts and Stop are no longer checked.
    const allowTmp = sb.script(
      "allow-tmp-cleanup.sh",
      `command=$(jq -r '.tool_input.command')
case "$command" in
  "rm -rf /tmp/"*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"cleaning /tmp is fine"}}\\n' ;;
esac
exit 0`,
    );
    const hook = (name: string) => ({ name, command: `$QODERCN_PROJECT_DIR/demo/hooks/${name}.sh` });
    looser = sb.file("looser.json", {
      hooks: {
        SessionStart: [group(undefined, hook("session-context"))],
        PreToolUse: [
          group("Bash", { name: "allow-tmp-cleanup", command: allowTmp }, hook("confirm-force-push")),
          group("*", { ...hook("audit-note"), timeout: 5 }),
        ],
        PostToolUse: [group("Write|Edit", hook("lint-reminder"))],
      },
    });
    // A third session, never selected.
    await recordLine(
      sb,
      JSON.stringify({ session_id: "unrelated", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git push --force" } }),
    );
    const lines = demoSession();
    for (const [i, line] of lines.entries()) {
      await runLine(sb, line);
      if (recordedAfter[i] !== undefined) await recordLine(sb, recordedAfter[i]);
    }
    liveBefore = { log: await liveEvents(sb), sessions: await cliJson(sb, ["sessions", "--json"]), stats: await cliJson(sb, ["stats", "--json"]) };
    demoEvents = liveBefore.log.filter((e) => e.sessionId === DEMO);
    recordedEvents = liveBefore.log.filter((e) => e.sessionId === RECORDED);
  });
  after(() => sb.cleanup());

  it("captured the sessions as expected (the premise of the other tests)", () => {
    expect(demoEvents.map((e) => e.decision)).to.deep.equal([
      "none",
      "none",
      "none",
      "none",
      "deny",
      "none",
      "none",
      "none",
      "none",
      "block",
      "ask",
      "block",
      "none",
      "none",
    ]);
    expect(demoEvents.every((e) => e.source === "dispatch")).to.equal(true);
    expect(recordedEvents.map((e) => [e.decision, e.source])).to.deep.equal(Array(4).fill(["recorded", "record"]));
  });

  /** The result of the demo event at this index of the session. */
  const at = (r: ReplayJson, i: number): Result => {
    const found = r.results.find((x) => x.seq === demoEvents[i]!.seq);
    expect(found, `no result for demo event ${i}`).to.not.equal(undefined);
    return found!;
  };

  it("a stricter config turns exactly the expected events into denials, and changes nothing else", async () => {
    const r = await replayJson(sb, ["--session", DEMO, "--settings", stricter]);
    expect(r.results.map((x) => x.seq)).to.deep.equal(demoEvents.map((e) => e.seq));
    // Index 7 edits src/checkout.ts (protect-paths), index 10 force-pushes (deny-force-push instead of an ask).
    const changed = r.results.filter((x) => x.changed).map((x) => demoEvents.findIndex((e) => e.seq === x.seq));
    expect(changed).to.deep.equal([7, 10]);
    expect(at(r, 7).before).to.deep.equal({ decision: "none", blocked: false, reason: null, hooks: ["audit-note"] });
    expect(at(r, 7).after).to.deep.equal({
      decision: "deny",
      blocked: true,
      reason: "/home/dev/shop/src/checkout.ts is owned by the payments team: open a ticket instead of editing it",
      hooks: ["protect-paths", "audit-note"],
    });
    expect(at(r, 10).before).to.include({ decision: "ask", blocked: false });
    expect(at(r, 10).after).to.deep.equal({
      decision: "deny",
      blocked: true,
      reason: "Force pushes are not allowed here: git push --force origin main",
      hooks: ["block-rm", "deny-force-push", "audit-note"],
    });
    for (const [i, live] of demoEvents.entries()) {
      if (i === 7 || i === 10) continue;
      const x = at(r, i);
      expect(x.changed, `event ${i}`).to.equal(false);
      // The same decision, for the same reason, as the live run (the hooks are the same ones).
      expect(x.after.decision, `event ${i}`).to.equal(live.decision);
      expect(x.after.blocked, `event ${i}`).to.equal(live.blocked);
      expect(x.after.reason, `event ${i}`).to.equal(live.reason);
      expect(x.before).to.deep.equal({ decision: live.decision, blocked: live.blocked, reason: live.reason, hooks: live.hooks.map((h) => h.name) });
    }
    expect(r).to.include({ events: 14, changed: 2, newlyBlocked: 2, newlyAllowed: 0, skipped: 0, hookErrors: 0, timeouts: 0 });
  });

  it("a looser config turns denials and blocks into allows", async () => {
    const r = await replayJson(sb, ["--session", DEMO, "--settings", looser]);
    const changed = r.results.filter((x) => x.changed).map((x) => demoEvents.findIndex((e) => e.seq === x.seq));
    expect(changed).to.deep.equal([4, 9, 11]);
    expect(at(r, 4).before).to.include({ decision: "deny", blocked: true, reason: "Dangerous command blocked: rm -rf /tmp/build" });
    expect(at(r, 4).after).to.deep.equal({
      decision: "allow",
      blocked: false,
      reason: "cleaning /tmp is fine",
      hooks: ["allow-tmp-cleanup", "confirm-force-push", "audit-note"],
    });
    expect(at(r, 9).before).to.include({ decision: "block", blocked: true });
    expect(at(r, 9).after).to.deep.equal({ decision: "none", blocked: false, reason: null, hooks: [] });
    expect(at(r, 11).before).to.include({ decision: "block", blocked: true });
    expect(at(r, 11).after).to.deep.equal({ decision: "none", blocked: false, reason: null, hooks: [] });
    // The force push still asks: confirm-force-push is in the looser config too.
    expect(at(r, 10).after).to.include({ decision: "ask", blocked: false });
    expect(r).to.include({ events: 14, changed: 3, newlyBlocked: 0, newlyAllowed: 3 });
  });

  it("says so in its text summary, listing only the changed events", async () => {
    // A relative --settings path is read from the working directory (the project, here).
    const r = await sb.run(["replay", "--session", DEMO, "--settings", "../looser.json", "--yes"]);
    expect(r.code, r.stderr).to.equal(0);
    // One line on stderr before anything runs: what will run (--yes: without asking).
    expect(r.stderr).to.match(/^Replay runs \d+ hooks? \(.*\) on \d+ of 14 events, \d+ runs? in all\.\n$/);
    expect(r.stdout.split("\n")[0]).to.match(/^Replaying 14 events against \.\.\/looser\.json, run replay-/);
    expect(r.stdout).to.contain("14 events replayed, 3 changed (0 newly blocked, 3 newly allowed)");
    const lines = r.stdout.split("\n").filter((l) => /^\s+#\d+ /.test(l));
    expect(lines).to.have.length(3);
    expect(lines[0]).to.contain(
      `#${demoEvents[4]!.seq} PreToolUse Bash: deny (Dangerous command blocked: rm -rf /tmp/build)  ->  allow (cleaning /tmp is fine)`,
    );
    expect(lines[1]).to.contain(`#${demoEvents[9]!.seq} UserPromptSubmit`);
    expect(lines[2]).to.contain(`#${demoEvents[11]!.seq} Stop`);
  });

  it("replays recorded events: before is `recorded`, compared as none", async () => {
    const r = await replayJson(sb, ["--session", RECORDED, "--settings", stricter]);
    expect(r.results.map((x) => x.seq)).to.deep.equal(recordedEvents.map((e) => e.seq));
    for (const x of r.results) expect(x.before).to.deep.equal({ decision: "recorded", blocked: false, reason: null, hooks: [] });
    expect(r.results.map((x) => [x.event, x.after.decision, x.changed])).to.deep.equal([
      ["SessionStart", "none", false], // recorded vs none: no change
      ["PreToolUse", "deny", true],
      ["UserPromptSubmit", "block", true],
      ["PreToolUse", "none", false],
    ]);
    expect(r.results[0]!.after.hooks).to.deep.equal(["session-context"]);
    expect(r.results[3]!.after.hooks).to.deep.equal(["protect-paths", "audit-note"]); // notes.md is not protected
    expect(r).to.include({ events: 4, changed: 2, newlyBlocked: 2, newlyAllowed: 0 });
  });

  it("--json lists every selected event of both sessions, in log order, with the contract's fields", async () => {
    const r = await replayJson(sb, ["--session", RECORDED, "--session", DEMO, "--settings", stricter]);
    const expected = [...demoEvents, ...recordedEvents].sort((a, b) => a.seq - b.seq);
    expect(r.runId)
      .to.be.a("string")
      .and.match(/^replay-/);
    expect(r.events).to.equal(18);
    expect(r.results).to.have.length(18);
    expect(r.results.map((x) => x.seq)).to.deep.equal(expected.map((e) => e.seq));
    expect(r.results.map((x) => x.sessionId)).to.deep.equal(expected.map((e) => e.sessionId));
    // Interleaved as captured: demo events 0,1, then the first recorded one, ...
    expect(r.results.slice(0, 3).map((x) => x.sessionId)).to.deep.equal([DEMO, DEMO, RECORDED]);
    for (const [i, x] of r.results.entries()) {
      expect(x).to.include.keys("seq", "event", "matchValue", "before", "after", "changed");
      expect(x.event).to.equal(expected[i]!.event);
      expect(x.matchValue).to.equal(expected[i]!.matchValue);
      for (const side of [x.before, x.after]) expect(side).to.have.all.keys("decision", "blocked", "reason", "hooks");
    }
    expect(r.changed).to.equal(r.results.filter((x) => x.changed).length);
    expect(r.changed).to.equal(4);
  });

  it("leaves live history untouched: log, sessions and stats say the same; the replay is listed apart; verify passes", async () => {
    const r = await replayJson(sb, ["--session", DEMO, "--session", RECORDED, "--settings", stricter]);
    expect(r.events).to.equal(18);
    // Compared after every replay made so far in this suite, this one included.
    expect(await liveEvents(sb)).to.deep.equal(liveBefore.log);
    expect(await cliJson(sb, ["sessions", "--json"])).to.deep.equal(liveBefore.sessions);
    expect(await cliJson(sb, ["stats", "--json"])).to.deep.equal(liveBefore.stats);

    // The replayed events are listed under their run, each pointing at the live event it re-judged.
    const replayed = (await cliJson<LogRow[]>(sb, ["log", "--replay", r.runId, "--json", "--limit", "1000"])).reverse();
    expect(replayed.map((e) => e.replay)).to.deep.equal(r.results.map((x) => ({ runId: r.runId, of: x.seq })));
    expect(replayed.map((e) => e.decision)).to.deep.equal(r.results.map((x) => x.after.decision));
    expect(replayed.map((e) => e.sessionId)).to.deep.equal(r.results.map((x) => x.sessionId));
    expect(replayed.every((e) => e.source === "replay")).to.equal(true);
    for (const e of replayed) expect(liveBefore.log.map((l) => l.seq)).not.to.include(e.seq);

    const runs = await cliJson<
      { runId: string; finishedAt: string | null; matchOnly: boolean; settings: string[] | null; summary: Record<string, unknown> | null }[]
    >(sb, ["replay", "--list", "--json"]);
    const run = runs.find((x) => x.runId === r.runId);
    expect(run, "the run is listed").to.not.equal(undefined);
    expect(runs[0]!.runId, "newest first").to.equal(r.runId);
    expect(run!.matchOnly).to.equal(false);
    expect(run!.settings).to.deep.equal([stricter]);
    expect(run!.finishedAt).to.be.a("string");
    expect(run!.summary).to.include({ events: 18, changed: r.changed, newlyBlocked: r.newlyBlocked, newlyAllowed: r.newlyAllowed });

    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout).to.match(/^ok: \d+ records/);
  });
});
