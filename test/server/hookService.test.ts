import { expect } from "chai";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import type { SqliteEventLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { hookService, type HookService } from "../../src/server/hookService.js";
import { Sandbox, group } from "../support/sandbox.js";

/**
 * The server's hook service over days of projects and sessions: it keeps a bounded number of project streams warm,
 * and a session whose project's stream was dropped meanwhile is judged as if nothing had happened (its once-hooks,
 * its Stop-loop count, the order of its events). In process, with a real log, real hooks and real settings files.
 */
describe("qhooks serve's hook service: bounded memory, and right for a session that comes back", function () {
  this.timeout(60_000);
  const KEPT = 3;
  let sb: Sandbox;
  let log: SqliteEventLog;
  let service: HookService;
  const warnings: string[] = [];

  const projectDir = (i: number) => join(sb.root, `p${i}`);
  const payload = (i: number, session: string, name: string, extra: Record<string, unknown>) => ({
    session_id: session,
    transcript_path: "/tmp/t.jsonl",
    cwd: projectDir(i),
    hook_event_name: name,
    ...extra,
  });
  const send = (i: number, session: string, name: string, extra: Record<string, unknown> = {}) =>
    service.handle({ dialect: "claude", project: projectDir(i), settings: [], plugins: [], body: JSON.stringify(payload(i, session, name, extra)) });
  const bash = (i: number, session: string, command: string) =>
    send(i, session, "PreToolUse", { tool_name: "Bash", tool_input: { command }, tool_use_id: "t" });
  const stop = (i: number, session: string) => send(i, session, "Stop", { stop_hook_active: false, last_assistant_message: "done" });
  /** Other projects, each with an event of its own session: enough to push every earlier stream out. */
  const churn = async (from: number, to: number) => {
    for (let i = from; i < to; i++) expect((await bash(i, `other-${i}`, "ls")).status).to.equal(200);
  };

  beforeEach(() => {
    sb = new Sandbox();
    warnings.length = 0;
    const guard = sb.script(
      "guard.sh",
      `input=$(cat)
case "$input" in
  *order-1*) sleep 0.8 ;; *order-2*) sleep 0.6 ;; *order-3*) sleep 0.4 ;; *order-4*) sleep 0.2 ;;
  *slow*) sleep 1.5; echo 'slow and no' >&2; exit 2 ;;
  *rm\\ -rf*) echo 'no rm -rf here' >&2; exit 2 ;;
esac
exit 0`,
    );
    const onceMarks = join(sb.root, "once-runs");
    const onceHook = sb.script("once.sh", `cat >/dev/null; echo run >> '${onceMarks}'`);
    const stopGuard = sb.script("stop.sh", `cat >/dev/null; echo 'not yet' >&2; exit 2`);
    for (let i = 0; i < 12; i++) {
      mkdirSync(join(projectDir(i), ".claude"), { recursive: true });
      writeFileSync(
        join(projectDir(i), ".claude", "settings.json"),
        JSON.stringify({ hooks: { PreToolUse: [group("Bash", guard, { command: onceHook, once: true })], Stop: [group(undefined, stopGuard)] } }),
      );
    }
    log = openSqliteLog(sb.db);
    service = hookService({
      homeDir: sb.home,
      env: sb.env({ QHOOKS_STOP_BLOCK_CAP: "2" }),
      log,
      onceDir: join(sb.root, "once"),
      noticesDir: join(sb.root, "notices"),
      standing: [],
      warn: (line) => warnings.push(line),
      streamsKept: KEPT,
    });
  });
  afterEach(async () => {
    await service.close();
    await log.close();
    await sb.cleanup();
  });

  it("keeps at most its bound of project streams, and a session whose stream was dropped keeps its once-hook and Stop-loop count", async () => {
    const deny = await bash(0, "alive", "rm -rf /tmp/x");
    expect(JSON.parse(deny.body).hookSpecificOutput.permissionDecisionReason).to.equal("no rm -rf here");
    for (let n = 0; n < 2; n++) expect(JSON.parse((await stop(0, "alive")).body)).to.deep.equal({ decision: "block", reason: "not yet" });

    await churn(1, 12);
    expect(service.streams, "the streams kept after 12 projects").to.equal(KEPT);

    // Back on project 0, on a stream made anew: the guard still blocks, the once-hook does not run again for this
    // session, and the Stop-loop guard still counts the two blocks before (it reads them from the log).
    const again = await bash(0, "alive", "rm -rf /tmp/y");
    expect(JSON.parse(again.body).hookSpecificOutput.permissionDecision).to.equal("deny");
    const third = JSON.parse((await stop(0, "alive")).body) as { decision?: string; systemMessage?: string };
    expect(third.decision, "the third Stop block in a row is let through").to.equal(undefined);
    expect(third.systemMessage).to.match(/2 Stop hooks in a row blocked session alive; letting the agent stop this time/);
    const onceRuns = readFileSync(join(sb.root, "once-runs"), "utf8").trim().split("\n");
    expect(onceRuns.length, "once per session: alive and the 11 others").to.equal(12);
    expect(service.streams).to.be.at.most(KEPT);
  });

  it("never drops a stream whose event is under way, and judges a returning session's events in the order they came", async () => {
    const slow = bash(0, "alive", "slow");
    await churn(1, 8);
    expect(service.streams, "the busy stream counted among those kept").to.equal(KEPT);
    expect(JSON.parse((await slow).body).hookSpecificOutput.permissionDecisionReason, "its hook ran to the end").to.equal("slow and no");

    await churn(8, 12);
    // Five events of the returning session at once, the first one's hook the slowest: logged in arrival order.
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => bash(0, "alive", `order-${n}`)));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200]);
    const logged: { seq: number; tried: string | null }[] = [];
    for await (const r of log.events({}, 1000)) if (r.sessionId === "alive" && r.tried?.startsWith("order-")) logged.push({ seq: r.seq, tried: r.tried });
    logged.sort((a, b) => a.seq - b.seq);
    expect(logged.map((r) => r.tried)).to.deep.equal(["order-1", "order-2", "order-3", "order-4", "order-5"]);
    expect(warnings).to.deep.equal([]);
  });
});
