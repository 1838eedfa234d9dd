import { expect } from "chai";
import { spawn } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import { shipLog } from "../../src/store/ship.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { makeOutcome, seedLog, sqlite3, waitFor, type SeedEvent } from "../store/storeHelpers.js";
import { OtlpReceiver } from "../support/otlpReceiver.js";
import { createTestDatabase } from "../support/postgres.js";
import { CLI, Sandbox } from "../support/sandbox.js";

const t0 = Date.parse("2026-03-02T09:00:00.000Z");
const at = (minutes: number) => new Date(t0 + minutes * 60_000);
const HISTORY: SeedEvent[] = [
  { ts: at(0), event: "SessionStart", sessionId: "s-1", matchValue: "startup", decision: "none" },
  {
    ts: at(1),
    event: "PreToolUse",
    sessionId: "s-1",
    matchValue: "Bash",
    decision: "deny",
    reason: "rm -rf refused",
    payload: { session_id: "s-1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /tmp/build" } },
    hooks: [
      { name: "block-rm", command: "~/block-rm.sh", decision: "deny", reason: "rm -rf refused", durationMs: 12.5 },
      { name: "audit", durationMs: 3 },
    ],
  },
  { ts: at(2), event: "Notification", sessionId: "s-2", matchValue: "idle", decision: "recorded" },
  { ts: at(3), event: "Stop", sessionId: "s-2", decision: "rejected", reason: "payload is not valid JSON", payload: "{nope" },
];

describe("export --otlp: the log as OpenTelemetry log records", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let receiver: OtlpReceiver;
  let url: string;
  beforeEach(async () => {
    sb = new Sandbox();
    await seedLog(sb.db, HISTORY, "/work/project");
    receiver = new OtlpReceiver();
    url = await receiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
    await sb.cleanup();
  });

  it("one record per event, oldest first, with its outcome's attributes, its origin, and the exporter as resource (protobuf)", async () => {
    const r = await sb.run(["export", "--otlp", url]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`exported 4 events to ${url}/v1/logs\n`);
    expect(receiver.contentTypes[0]).to.equal("application/x-protobuf");
    expect(receiver.records.map((x) => x.attributes["qhooks.event"])).to.deep.equal(["SessionStart", "PreToolUse", "Notification", "Stop"]);
    const blocked = receiver.records[1]!;
    expect(blocked.timeUnixNano).to.equal(BigInt(at(1).getTime()) * 1_000_000n);
    expect(blocked.severityText).to.equal("WARN");
    expect(blocked.body).to.equal("PreToolUse deny: rm -rf refused");
    expect(blocked.attributes).to.deep.include({
      "qhooks.decision": "deny",
      "qhooks.blocked": true,
      "session.id": "s-1",
      "qhooks.tool": "Bash",
      "qhooks.tool_input": "rm -rf /tmp/build",
      "qhooks.reason": "rm -rf refused",
      "qhooks.project_dir": "/work/project",
      "qhooks.hook.names": ["block-rm", "audit"],
      "qhooks.hook.outcomes": ["block", "success"],
      "qhooks.hook.durations_ms": [12.5, 3],
    });
    expect(blocked.attributes["qhooks.seq"]).to.be.a("number");
    // The machine the event happened on is the record's; the resource names the exporter apart.
    expect(blocked.resource).to.deep.include({ "service.name": "qhooks", "qhooks.exporter.host.name": hostname() });
    expect(blocked.resource).not.to.have.property("host.name");
    expect(blocked.attributes).to.deep.include({ "host.name": hostname(), "user.name": userInfo().username });
    expect(blocked.attributes["qhooks.origin_seq"]).to.equal(blocked.attributes["qhooks.seq"]);
    expect(blocked.attributes["qhooks.writer"]).to.equal(blocked.attributes["qhooks.log_id"]);
    expect(receiver.records[3]!).to.deep.include({ severityText: "ERROR", body: "Stop rejected: payload is not valid JSON" });
    expect(receiver.records[2]!.attributes).to.deep.include({ "qhooks.decision": "recorded", "qhooks.hook.names": [] });
    // Nothing tried, nothing to summarise; an unparsable payload neither.
    expect(receiver.records[2]!.attributes).not.to.have.property("qhooks.tool_input");
    expect(receiver.records[3]!.attributes).not.to.have.property("qhooks.tool_input");
  });

  it("each record names the machine and user its event came from, not the exporting machine's", async () => {
    // As a central log holds them: written elsewhere, by someone else (the export reads; it does not verify).
    sqlite3(sb.db, "UPDATE journal SET machine = 'laptop-7', os_user = 'ana', judged_by = 'claude' WHERE kind = 'event' AND event = 'PreToolUse'");
    const r = await sb.run(["export", "--otlp", url]);
    expect(r.code, r.stderr).to.equal(0);
    const other = receiver.records[1]!;
    const rest = receiver.records.filter((x) => x !== other);
    expect(rest).to.have.length(3);
    expect(other.attributes).to.deep.include({ "host.name": "laptop-7", "user.name": "ana", "qhooks.host": "claude" });
    expect(other.resource["qhooks.exporter.host.name"]).to.equal(hostname());
    for (const x of rest) expect(x.attributes["host.name"]).to.equal(hostname());
  });

  it("--protocol json sends the same records; --since selects by time", async () => {
    expect((await sb.run(["export", "--otlp", url])).code).to.equal(0);
    const protobuf = receiver.records.splice(0);
    const r = await sb.run(["export", "--otlp", `${url}/v1/logs`, "--protocol", "json"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(receiver.contentTypes.at(-1)).to.equal("application/json");
    expect(receiver.records).to.deep.equal(protobuf);
    receiver.records.splice(0);
    expect((await sb.run(["export", "--otlp", url, "--since", at(2).toISOString()])).stdout).to.equal(`exported 2 events to ${url}/v1/logs\n`);
    expect(receiver.records.map((x) => x.attributes["qhooks.event"])).to.deep.equal(["Notification", "Stop"]);
  });

  it("from the central PostgreSQL log: the same records, each naming the chain it came from", async () => {
    const db = await createTestDatabase();
    try {
      const shipped = await shipLog({ from: sb.db, to: db.url });
      expect((await sb.run(["export", "--otlp", url])).code).to.equal(0);
      const fromFile = receiver.records.splice(0);
      const r = await sb.run(["export", "--otlp", url], { env: { QHOOKS_DB: db.url } });
      expect(r.code, r.stderr).to.equal(0);
      expect(receiver.records).to.deep.equal(fromFile);
      expect(receiver.records[0]!.attributes["qhooks.log_id"]).to.equal(shipped.logId);
      expect(receiver.records.map((x) => [x.attributes["qhooks.writer"], x.attributes["qhooks.origin_seq"]])).to.deep.equal(
        fromFile.map((x) => [shipped.logId, x.attributes["qhooks.seq"]]),
      );
    } finally {
      await db.drop();
    }
  });

  it("a collector that refuses the records, or is not there: one line, exit 1", async () => {
    receiver.refuse = true;
    const refused = await sb.run(["export", "--otlp", url]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim().split("\n")).to.have.length(1);
    expect(refused.stderr).to.match(/^qhooks: the collector at http:\/\/127\.0\.0\.1:\d+\/v1\/logs did not take the records/);
    const bad = await sb.run(["export", "--otlp", "ftp://example"]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/^qhooks: --otlp "ftp:\/\/example": expected an http/);
  });

  it("--watch sends each event once, new ones as they come, until stopped", async () => {
    const child = spawn(process.execPath, [CLI, "export", "--otlp", url, "--watch", "--interval", "200ms"], {
      env: sb.env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await waitFor("the history", () => receiver.records.length >= 4, 30_000);
    await seedLog(sb.db, [
      { ts: new Date(), event: "Stop", sessionId: "s-3", decision: "block", reason: "tests fail", hooks: [{ name: "tests", decision: "block" }] },
    ]);
    await waitFor("the new event", () => receiver.records.length >= 5, 30_000);
    await new Promise((r) => setTimeout(r, 600));
    child.kill("SIGTERM");
    expect(await done).to.equal(0);
    const seqs = receiver.records.map((x) => x.attributes["qhooks.seq"]);
    expect(new Set(seqs).size, "each once").to.equal(seqs.length);
    expect(receiver.records.map((x) => x.attributes["session.id"]).at(-1)).to.equal("s-3");
  });

  const watch = () => {
    const child = spawn(process.execPath, [CLI, "export", "--otlp", url, "--watch", "--interval", "200ms"], {
      env: sb.env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    return { stop: async () => (child.kill("SIGTERM"), { code: await done, stderr }) };
  };
  const seqsSent = () => receiver.records.map((x) => x.attributes["qhooks.seq"] as number);

  it("--watch keeps a cursor: stopped and started again, it goes on after the last event sent, however old the new ones are; an event held for its outcome is sent once it has it", async () => {
    const first = watch();
    await waitFor("the history", () => receiver.records.length >= 4, 30_000);
    // Waiting for its outcome when the export stops.
    const [waiting] = await seedLog(sb.db, [{ ts: new Date(), event: "PreToolUse", sessionId: "s-4", matchValue: "Bash", decision: "unfinished" }]);
    await new Promise((r) => setTimeout(r, 600));
    expect(await first.stop()).to.deep.equal({ code: 0, stderr: "" });
    expect(receiver.records).to.have.length(4);
    const cursors = readdirSync(join(sb.home, ".qhooks", "export-cursors"));
    expect(cursors).to.have.length(1);

    // Logged while no export ran, with times long before the last one sent (a laptop that ships late).
    await seedLog(sb.db, [
      { ts: at(-600), event: "Stop", sessionId: "late", decision: "none" },
      { ts: at(-599), event: "Stop", sessionId: "late", decision: "recorded" },
    ]);
    const second = watch();
    await waitFor("the late events", () => receiver.records.length >= 6, 30_000);
    const log = openSqliteLog(sb.db);
    try {
      await log.append([
        {
          kind: "outcome",
          ts: new Date(),
          eventSeq: waiting!,
          outcome: { ...makeOutcome({ ts: new Date(), event: "PreToolUse", sessionId: "s-4", decision: "allow" }), seq: waiting! },
        },
      ]);
    } finally {
      await log.close();
    }
    await waitFor("the event judged meanwhile", () => receiver.records.length >= 7, 30_000);
    await new Promise((r) => setTimeout(r, 600));
    expect(await second.stop()).to.deep.equal({ code: 0, stderr: "" });
    expect(new Set(seqsSent()).size, "each once").to.equal(7);
    expect(receiver.records.slice(4).map((x) => [x.attributes["session.id"], x.attributes["qhooks.decision"]])).to.deep.equal([
      ["late", "none"],
      ["late", "recorded"],
      ["s-4", "allow"],
    ]);
  });

  it("--cursor FILE: each run sends what came since the one before; a cursor of another log or collector is refused, one of a replaced log starts over", async () => {
    const cursor = join(sb.root, "cursor.json");
    expect((await sb.run(["export", "--otlp", url, "--cursor", cursor])).stdout).to.equal(`exported 4 events to ${url}/v1/logs\n`);
    expect((await sb.run(["export", "--otlp", url, "--cursor", cursor])).stdout).to.equal(`exported 0 events to ${url}/v1/logs\n`);
    await seedLog(sb.db, [{ ts: at(10), event: "Stop", sessionId: "s-5", decision: "none" }]);
    expect((await sb.run(["export", "--otlp", url, "--cursor", cursor])).stdout).to.equal(`exported 1 event to ${url}/v1/logs\n`);
    expect(new Set(seqsSent()).size).to.equal(5);

    const other = await sb.run(["export", "--otlp", `${url}/other`, "--cursor", cursor]);
    expect(other.code).to.equal(1);
    expect(other.stderr.trim().split("\n")).to.have.length(1);
    expect(other.stderr).to.include(`the export cursor ${cursor} is for`);

    rmSync(sb.db);
    await seedLog(sb.db, [{ ts: at(20), event: "Stop", sessionId: "s-6", decision: "none" }]);
    const replaced = await sb.run(["export", "--otlp", url, "--cursor", cursor]);
    expect(replaced.code, replaced.stderr).to.equal(0);
    expect(replaced.stderr).to.include("does not match this log");
    expect(replaced.stdout).to.equal(`exported 1 event to ${url}/v1/logs\n`);
    expect(receiver.records.at(-1)!.attributes["session.id"]).to.equal("s-6");
  });
});
