import { expect } from "chai";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { Sandbox, group } from "../support/sandbox.js";
import { bashLine, capture, cliJson, liveEvents, replayJson, usageError, type LogRow } from "./harness.js";

/**
 * Which events a replay takes (`--session`, the log filters) and which settings judge them (the ones on disk
 * now for each event's project, or `--settings`).
 */
describe("qhooks replay: selection and default settings", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let p2: string;
  let p3: string;
  let denyRm: string;
  let empty: string;
  /** Between the first and the second batch of events. */
  let middle: string;
  let live: LogRow[];

  before(async () => {
    sb = new Sandbox();
    p2 = join(sb.root, "p2");
    p3 = join(sb.root, "p3");
    mkdirSync(p2);
    mkdirSync(p3);
    denyRm = sb.script("deny-rm.sh", `case "$(cat)" in *'rm -rf'*) echo "$1 says no" >&2; exit 2 ;; esac`);
    empty = sb.file("empty.json", { hooks: {} });
    sb.projectSettings({ hooks: { PreToolUse: [group("*", { name: "v1-audit", command: "cat >/dev/null" })] } });
    sb.file(join(p2, ".qoder", "settings.json"), { hooks: { PreToolUse: [group("Bash", { name: "p2-guard", command: `${denyRm} p2` })] } });

    await capture(sb, [
      bashLine("s1", "ls"),
      JSON.stringify({ session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Read", tool_input: { file_path: "/a" } }),
    ]);
    await capture(sb, [bashLine("s2", "rm -rf y")], { projectDir: p2 });
    await sleep(30);
    middle = new Date().toISOString();
    await sleep(30);
    await capture(sb, [bashLine("s1", "rm -rf x"), JSON.stringify({ session_id: "s1", hook_event_name: "Stop" })]);
    await capture(sb, [bashLine("s2", "ls")], { projectDir: p2 });
    await capture(sb, [{ record: bashLine("s3", "rm -rf z") }], { projectDir: p3 });
    live = await liveEvents(sb);
    expect(live.map((e) => [e.sessionId, e.decision])).to.deep.equal([
      ["s1", "none"],
      ["s1", "none"],
      ["s2", "deny"],
      ["s1", "none"],
      ["s1", "none"],
      ["s2", "none"],
      ["s3", "recorded"],
    ]);
  });
  after(() => sb.cleanup());

  const seqs = (rows: { seq: number }[]) => rows.map((r) => r.seq);
  const liveWhere = (keep: (e: LogRow) => boolean) => seqs(live.filter(keep));

  it("refuses to run without a selector, in one line, before anything is logged", async () => {
    for (const args of [["replay"], ["replay", "--settings", empty], ["replay", "--match-only", "--json"]]) {
      const message = usageError(await sb.run(args));
      expect(message).to.contain("--session");
    }
    expect(await cliJson(sb, ["replay", "--list", "--json"])).to.deep.equal([]);
    // A log that does not exist is not created by a replay.
    const missing = join(sb.root, "nowhere.db");
    expect(usageError(await sb.run(["--db", missing, "replay", "--session", "s1"]))).to.contain(missing);
    expect(existsSync(missing)).to.equal(false);
  });

  it("selects with --session (repeatable) and every log filter, oldest first", async () => {
    const cases: [string[], number[]][] = [
      [["--session", "s1"], liveWhere((e) => e.sessionId === "s1")],
      [["--session", "s3", "--session", "s2"], liveWhere((e) => e.sessionId !== "s1")],
      [["--event", "Stop"], liveWhere((e) => e.event === "Stop")],
      [["--tool", "Read"], liveWhere((e) => e.matchValue === "Read")],
      [["--decision", "deny"], liveWhere((e) => e.decision === "deny")],
      [["--decision", "recorded"], liveWhere((e) => e.decision === "recorded")],
      [["--blocked"], liveWhere((e) => e.blocked)],
      [["--grep", "rm -rf"], liveWhere((e) => JSON.stringify(e.payload).includes("rm -rf"))],
      [["--hook", "p2-guard"], liveWhere((e) => e.hooks.some((h) => h.name === "p2-guard"))],
      [["--since", middle], liveWhere((e) => e.seq > live[2]!.seq)],
      [["--until", middle], liveWhere((e) => e.seq <= live[2]!.seq)],
      [["--session", "s1", "--event", "PreToolUse", "--since", middle], [live[3]!.seq]],
      [["--since", "1h"], seqs(live)],
      [["--until", "1h"], []],
      [["--session", "nobody"], []],
    ];
    const results = await Promise.all(cases.map(([args]) => replayJson(sb, [...args, "--match-only", "--settings", empty])));
    for (const [i, [args, expected]] of cases.entries()) {
      expect(seqs(results[i]!.results), args.join(" ")).to.deep.equal(expected);
      expect(results[i]!.events, args.join(" ")).to.equal(expected.length);
    }
  });

  it("takes every matching event, with no default limit", async () => {
    const log = openSqliteLog(sb.db);
    const entries = Array.from({ length: 130 }, (_, i) => ({
      kind: "event" as const,
      ts: new Date(),
      source: "record" as const,
      event: "SessionStart" as const,
      sessionId: "many",
      matchValue: "startup",
      projectDir: sb.project,
      payload: JSON.stringify({ session_id: "many", hook_event_name: "SessionStart", cwd: sb.project, source: "startup", i }),
      snapshot: null,
      rejection: null,
      replay: null,
      outcome: null,
    }));
    const appended = await log.append(entries);
    await log.close();
    const r = await replayJson(sb, ["--session", "many", "--match-only", "--settings", empty]);
    expect(r.events).to.equal(130);
    expect(seqs(r.results)).to.deep.equal(appended);
  });

  it("judges each event with the settings on disk now for its project; a deleted project is not replayable without --settings", async () => {
    // Edited after the capture: the project now denies rm -rf; a user-level hook appears for every project.
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { name: "v2-no-rm", command: `${denyRm} v2` })] } });
    sb.userSettings({ hooks: { PreToolUse: [group("*", { name: "user-note", command: "cat >/dev/null" })] } });
    rmSync(p3, { recursive: true });

    const r = await replayJson(sb, ["--session", "s1", "--session", "s2", "--session", "s3"]);
    expect(seqs(r.results)).to.deep.equal(seqs(live));
    expect(r.results.map((x) => [x.sessionId, x.matchValue, x.after.decision, x.after.hooks])).to.deep.equal([
      ["s1", "Bash", "none", ["user-note", "v2-no-rm"]],
      ["s1", "Read", "none", ["user-note"]],
      ["s2", "Bash", "deny", ["user-note", "p2-guard"]],
      ["s1", "Bash", "deny", ["user-note", "v2-no-rm"]],
      ["s1", null, "none", []],
      ["s2", "Bash", "none", ["user-note", "p2-guard"]],
      ["s3", "Bash", null, []],
    ]);
    expect(r.results[3]!.after.reason).to.equal("v2 says no");
    expect(r.results[2]!.after.reason).to.equal("p2 says no");
    expect(r.results.map((x) => x.changed)).to.deep.equal([false, false, false, true, false, false, false]);
    const gone = r.results[6]!;
    expect(gone.skipped).to.be.a("string").and.contain(p3);
    expect(r.results.slice(0, 6).every((x) => x.skipped === null)).to.equal(true);
    expect(r).to.include({ events: 7, changed: 1, newlyBlocked: 1, skipped: 1 });

    const text = await sb.run(["replay", "--session", "s3"]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(new RegExp(`#${gone.seq} PreToolUse Bash: not replayable: .*${p3}`));
    expect(text.stdout).to.contain("1 not replayable");

    // With --settings, the same event is judged by that file alone.
    const file = sb.file("guard.json", { hooks: { PreToolUse: [group("Bash", { name: "file-guard", command: `${denyRm} file` })] } });
    const judged = await replayJson(sb, ["--session", "s3", "--settings", file]);
    expect(judged.results).to.have.length(1);
    expect(judged.results[0]).to.deep.include({ seq: gone.seq, skipped: null, changed: true });
    expect(judged.results[0]!.after).to.deep.equal({ decision: "deny", blocked: true, reason: "file says no", hooks: ["file-guard"] });
  });
});
