import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { isAlive, killQuietly, logJson, readOnly, startCli, waitFor, type Started } from "./storeHelpers.js";

/** Contract 8, "Arrival first": the event is in the log before its hooks run, so a crash mid-run leaves evidence. */
describe("arrival first", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let engine: Started | null = null;
  let hookPid: number | null = null;

  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    engine?.stop();
    killQuietly(hookPid);
    engine = null;
    hookPid = null;
    await sb.cleanup();
  });

  it("a qhooks run killed with SIGKILL while its hook sleeps leaves its event, unfinished, in a valid log", async () => {
    const pidFile = join(sb.root, "hook.pid");
    // The hook becomes the sleeping process itself, so its PID is the one to watch.
    const sleeper = sb.script("sleeper.sh", `echo $$ > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"\nexec sleep 10`);
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sleeper, name: "sleeper", timeout: 30 })] } });

    engine = startCli(sb, ["run", "PreToolUse"], JSON.stringify(payloadFor("PreToolUse", { session_id: "crash-1", tool_input: { command: "make deploy" } })));
    hookPid = Number(await waitFor("the hook to start", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim()));
    expect(isAlive(hookPid)).to.equal(true);

    // While the hook runs: the event is already in the file, without an outcome (read independently of qhooks).
    const during = readOnly(sb.db, (db) => ({
      events: db.prepare("SELECT seq, event, session_id, body FROM journal WHERE kind = 'event'").all() as {
        seq: number;
        event: string;
        session_id: string;
        body: string;
      }[],
      outcomes: (db.prepare("SELECT count(*) AS n FROM journal WHERE kind IN ('outcome', 'hook')").get() as { n: number }).n,
    }));
    expect(during.events).to.have.length(1);
    expect(during.events[0]).to.include({ event: "PreToolUse", session_id: "crash-1" });
    expect(JSON.parse(during.events[0]!.body)).to.deep.include({ tool_input: { command: "make deploy" } });
    expect(during.outcomes).to.equal(0);
    const seq = during.events[0]!.seq;

    engine.child.kill("SIGKILL");
    const ended = await engine.done;
    expect(ended.signal).to.equal("SIGKILL");
    // The engine's watchdog takes the hook down with it (SIGTERM, then SIGKILL after a 0.5 s grace): well before
    // the 10 s sleep could end on its own, which is what this deadline tells apart.
    await waitFor("the orphaned hook to be killed", () => !isAlive(hookPid!), 6_000);

    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.match(/^ok: \d+ records$/);

    const records = await logJson(sb);
    expect(records).to.have.length(1);
    expect(records[0]).to.include({ seq, event: "PreToolUse", sessionId: "crash-1", decision: "unfinished", blocked: false, matchValue: "Bash" });
    expect(records[0]!.hooks).to.deep.equal([]);
    expect((await logJson(sb, ["--decision", "unfinished"])).map((r) => r.seq)).to.deep.equal([seq]);

    // The log is still writable: the next event is judged and logged after it.
    const next = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "crash-1", tool_name: "Read" }));
    expect(next.code).to.equal(0);
    expect(next.outcome!.seq).to.be.greaterThan(seq);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("an event whose hooks finish has its arrival and its outcome (every hook result in it), the outcome after the arrival", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "echo checked >&2; exit 0", name: "quick" })] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "fine" }));
    expect(r.code).to.equal(0);
    const rows = readOnly(
      sb.db,
      (db) =>
        db.prepare("SELECT seq, kind, ref, body, outcome FROM journal WHERE kind <> 'snapshot' ORDER BY seq").all() as {
          seq: number;
          kind: string;
          ref: number | null;
          body: string;
          outcome: string | null;
        }[],
    );
    expect(rows.map((x) => x.kind)).to.deep.equal(["event", "outcome"]);
    expect(rows[0]!.seq).to.equal(r.outcome!.seq);
    expect(rows[0]!.outcome).to.equal(null);
    expect(rows[1]!.ref).to.equal(rows[0]!.seq);
    expect(JSON.parse(rows[1]!.body)).to.deep.equal(r.outcome);
  });

  it("an event no hook matched is one record, arrival and outcome together", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Write", "exit 0")] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "alone" }));
    expect(r.code).to.equal(0);
    const rows = readOnly(
      sb.db,
      (db) =>
        db.prepare("SELECT seq, kind, decision, outcome FROM journal WHERE kind <> 'snapshot' ORDER BY seq").all() as {
          seq: number;
          kind: string;
          decision: string;
          outcome: string;
        }[],
    );
    expect(rows.map((x) => [x.seq, x.kind, x.decision])).to.deep.equal([[r.outcome!.seq, "event", "none"]]);
    expect(JSON.parse(rows[0]!.outcome)).to.deep.equal({ ...r.outcome, seq: null });
  });
});
