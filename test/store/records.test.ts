import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { CLI, Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, nonEmptyLines, qhooksLines, seedLog } from "./storeHelpers.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RECORD_EXTRAS = ["ts", "matchValue", "tried", "caller", "projectDir", "payload", "source", "replay", "asyncHooks", "origin"] as const;

/** A log record without the fields the log adds: what `qhooks run` printed for the event. */
function outcomePart(record: LogRecord): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  for (const k of RECORD_EXTRAS) delete copy[k];
  return copy;
}

describe("log records (contract 8)", () => {
  let sb: Sandbox;
  let capture: string;
  const runs: { event: string; payload: Record<string, unknown>; code: number | null; outcome: Record<string, unknown> | null }[] = [];
  let startedAt: number;
  let endedAt: number;

  before(async () => {
    sb = new Sandbox();
    capture = join(sb.root, "capture");
    mkdirSync(capture);
    // Each hook keeps exactly what it received on stdin, per session, so the log can be compared with it.
    const keep = sb.script("keep.sh", `cat > "${capture}/$QHOOKS_SESSION_ID.json"`);
    const guard = sb.script("guard.sh", `if grep -q 'rm -rf'; then echo "Dangerous command blocked" >&2; exit 2; fi; exit 0`);
    sb.projectSettings({
      hooks: {
        PreToolUse: [group("Bash", { command: keep, name: "keeper" }, { command: guard, name: "guard" })],
        UserPromptSubmit: [group(undefined, { command: keep, name: "keeper" })],
      },
    });
    startedAt = Date.now();
    const events: [string, Record<string, unknown>][] = [
      [
        "PreToolUse",
        payloadFor("PreToolUse", {
          session_id: "r1",
          tool_input: { command: "rm -rf /tmp/build" },
          tool_use_id: "t1",
          extra: { nested: [1, 2, { deep: null }] },
        }),
      ],
      ["PreToolUse", payloadFor("PreToolUse", { session_id: "r2", tool_input: { command: "ls -la" } })],
      ["UserPromptSubmit", payloadFor("UserPromptSubmit", { session_id: "r3", prompt: 'explain "quotes" and ünïcödé' })],
      // No hook matches a Notification: arrival and outcome are written in one step.
      ["Notification", payloadFor("Notification", { session_id: "r4" })],
    ];
    for (const [event, payload] of events) {
      const r = await sb.runEvent(event, payload);
      runs.push({ event, payload, code: r.code, outcome: r.outcome });
    }
    endedAt = Date.now();
  });
  after(() => sb.cleanup());

  it("the runs themselves behaved (one block, three passes)", () => {
    expect(runs.map((r) => r.code)).to.deep.equal([2, 0, 0, 0]);
    for (const r of runs) expect(r.outcome?.seq, `seq of ${r.event}`).to.be.a("number");
  });

  it("log --json is an array of records, newest first, each with every outcome field plus ts, matchValue, projectDir, payload, seq", async () => {
    const records = await logJson(sb);
    expect(records).to.have.length(4);
    expect(records.map((r) => r.sessionId)).to.deep.equal(["r4", "r3", "r2", "r1"]);
    const seqs = records.map((r) => r.seq);
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => b - a));
    expect(new Set(seqs).size).to.equal(4);
    for (const record of records) {
      // `shadow` is there only when shadow hooks ran.
      for (const key of Object.keys(OutcomeSchema.shape)) if (key !== "shadow") expect(record, `${record.sessionId}.${key}`).to.have.property(key);
      expect(record.ts).to.match(ISO);
      const t = Date.parse(record.ts);
      expect(t).to.be.within(startedAt - 1000, endedAt + 1000);
      expect(record.projectDir).to.equal(sb.project);
      expect(record.seq).to.be.a("number");
    }
    expect(records.map((r) => r.matchValue)).to.deep.equal(["permission", null, "Bash", "Bash"]);
    expect(records.map((r) => r.decision)).to.deep.equal(["none", "none", "none", "deny"]);
    expect(records[3]).to.include({ blocked: true, reason: "Dangerous command blocked", event: "PreToolUse" });
    expect(records[3]!.hooks.map((h) => [h.name, h.outcome])).to.deep.equal([
      ["keeper", "success"],
      ["guard", "block"],
    ]);
  });

  it("each record's outcome part is exactly what qhooks run printed, seq included", async () => {
    const records = (await logJson(sb)).reverse();
    records.forEach((record, i) => {
      expect(record.seq).to.equal(runs[i]!.outcome!.seq);
      expect(outcomePart(record), `${runs[i]!.event} of ${record.sessionId}`).to.deep.equal(runs[i]!.outcome);
    });
  });

  it("payload is the parsed payload exactly as the hooks received it", async () => {
    const records = await logJson(sb);
    for (const record of records.filter((r) => r.hooks.length > 0)) {
      const received = JSON.parse(readFileSync(join(capture, `${record.sessionId}.json`), "utf8"));
      expect(record.payload, record.sessionId!).to.deep.equal(received);
    }
    // The filled-in common fields are there, unknown fields are kept.
    const r1 = records.find((r) => r.sessionId === "r1")!;
    expect(r1.payload).to.deep.include({ hook_event_name: "PreToolUse", cwd: sb.project, tool_use_id: "t1", extra: { nested: [1, 2, { deep: null }] } });
    // The event without hooks: what the agent sent plus the filled-in fields.
    const r4 = records.find((r) => r.sessionId === "r4")!;
    expect(r4.payload).to.deep.equal({ ...runs[3]!.payload, hook_event_name: "Notification", cwd: sb.project });
  });

  it("--jsonl gives the same records, one JSON object per line", async () => {
    const json = await logJson(sb);
    const r = await sb.run(["log", "--jsonl"]);
    expect(r.code).to.equal(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    expect(lines).to.have.length(json.length);
    expect(lines.map((l) => JSON.parse(l))).to.deep.equal(json);
  });

  it("the text table has a header with the columns and one row per event", async () => {
    const r = await sb.run(["log", "--format", "table"]);
    expect(r.code).to.equal(0);
    const lines = nonEmptyLines(r.stdout);
    expect(lines).to.have.length(5);
    const header = lines[0]!.split(/\s+/);
    for (const column of ["TIME", "SESSION", "EVENT", "MATCH", "DECISION", "HOOKS", "MS", "REASON"]) expect(header).to.include(column);
    const blocked = lines.find((l) => /\br1\b/.test(l))!;
    expect(blocked)
      .to.match(/PreToolUse/)
      .and.match(/Bash/)
      .and.match(/deny/i)
      .and.match(/guard/)
      .and.match(/Dangerous command blocked/);
    const seq = String(runs[0]!.outcome!.seq);
    expect(blocked.split(/\s{2,}/)).to.include(seq);
    const prompt = lines.find((l) => /\br3\b/.test(l))!;
    expect(prompt)
      .to.match(/UserPromptSubmit/)
      .and.match(/keeper/)
      .and.match(/none/);
  });

  it("an empty selection prints [] with --json and a plain line without", async () => {
    expect(await logJson(sb, ["--session", "nobody"])).to.deep.equal([]);
    const r = await sb.run(["log", "--session", "nobody"]);
    expect(r.code).to.equal(0);
    expect(nonEmptyLines(r.stdout)).to.have.length(1);
  });
});

describe("decisions recorded, rejected and unfinished (contract 8)", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  it("qhooks record: silent, exit 0, listed as recorded with its payload and seq", async () => {
    const payload = payloadFor("PostToolUse", { session_id: "rec1" });
    const r = await sb.run(["record"], { input: JSON.stringify({ ...payload, hook_event_name: "PostToolUse" }) });
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal("");
    expect(r.stderr).to.equal("");
    const r2 = await sb.run(["record", "Stop"], { input: JSON.stringify({ session_id: "rec1" }) });
    expect([r2.code, r2.stdout, r2.stderr]).to.deep.equal([0, "", ""]);

    const records = await logJson(sb);
    expect(records.map((x) => [x.event, x.decision, x.source, x.sessionId])).to.deep.equal([
      ["Stop", "recorded", "record", "rec1"],
      ["PostToolUse", "recorded", "record", "rec1"],
    ]);
    expect(records[1]).to.include({ blocked: false, matchValue: "Write", configHash: null });
    expect(records[1]!.hooks).to.deep.equal([]);
    expect(records[1]!.payload).to.deep.include({ ...payload, hook_event_name: "PostToolUse" });
    expect(records[0]!.payload).to.deep.include({ session_id: "rec1", hook_event_name: "Stop", stop_hook_active: false });
    expect((await logJson(sb, ["--decision", "recorded"])).map((x) => x.seq)).to.deep.equal(records.map((x) => x.seq));
    expect(await logJson(sb, ["--decision", "none"])).to.deep.equal([]);
  });

  it("a payload rejected by qhooks run and by qhooks record is listed as rejected, with its session", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("*", "exit 0")] } });
    const viaRun = await sb.runEvent("PreToolUse", { session_id: "bad-run", tool_name: "Bash" });
    expect(viaRun.code).to.equal(1);
    expect(qhooksLines(viaRun.stderr)).to.have.length(1);
    expect(qhooksLines(viaRun.stderr)[0]).to.match(/^qhooks: invalid PreToolUse payload: tool_input: /);
    const viaRecord = await sb.run(["record", "PreToolUse"], { input: JSON.stringify({ session_id: "bad-rec", tool_name: "Bash", tool_input: "ls" }) });
    expect(viaRecord.code).to.equal(1);
    expect(viaRecord.stdout).to.equal("");
    const line = nonEmptyLines(viaRecord.stderr);
    expect(line).to.have.length(1);
    expect(line[0]).to.match(/^qhooks: invalid PreToolUse payload: tool_input: /);
    const notJson = await sb.run(["record", "Stop"], { input: "{not json" });
    expect(notJson.code).to.equal(1);

    const rejected = await logJson(sb, ["--decision", "rejected"]);
    expect(rejected.map((x) => [x.event, x.sessionId, x.source])).to.deep.equal([
      ["Stop", null, "record"],
      ["PreToolUse", "bad-rec", "record"],
      ["PreToolUse", "bad-run", "dispatch"],
    ]);
    expect(rejected[1]!.reason).to.equal(line[0]!.slice("qhooks: ".length));
    expect(rejected[2]!.reason).to.equal(qhooksLines(viaRun.stderr)[0]!.slice("qhooks: ".length));
    expect(rejected[0]!.payload).to.equal("{not json");
    for (const x of rejected) expect(x).to.include({ blocked: false, decision: "rejected" });
    expect((await logJson(sb, ["--session", "bad-run"])).map((x) => x.decision)).to.deep.equal(["rejected"]);
    expect(await logJson(sb, ["--decision", "unfinished"])).to.deep.equal([]);
  });

  it("an arrival without an outcome is listed as unfinished", async () => {
    const now = Date.now();
    const [arrivedOnly, judged] = await seedLog(sb.db, [
      { ts: new Date(now - 2000), event: "PreToolUse", sessionId: "u1", matchValue: "Bash", decision: "unfinished", hooks: [] },
      { ts: new Date(now - 1000), event: "PreToolUse", sessionId: "u1", matchValue: "Bash", decision: "allow", hooks: [{ name: "ok", decision: "allow" }] },
    ]);
    const all = await logJson(sb);
    expect(all.map((x) => [x.seq, x.decision])).to.deep.equal([
      [judged, "allow"],
      [arrivedOnly, "unfinished"],
    ]);
    expect(all[1]).to.include({ blocked: false, durationMs: null, configHash: "seeded-config" });
    expect(all[1]!.hooks).to.deep.equal([]);
    expect((await logJson(sb, ["--decision", "unfinished"])).map((x) => x.seq)).to.deep.equal([arrivedOnly]);
  });
});

describe("qhooks record as a hook (contract 5)", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const EVENTS = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SubagentStart",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
  ];

  it("--print-settings prints valid settings JSON with qhooks record on all twelve events", async () => {
    const r = await sb.run(["record", "--print-settings"]);
    expect(r.code).to.equal(0);
    const settings = JSON.parse(r.stdout) as { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> };
    expect(Object.keys(settings.hooks).sort()).to.deep.equal([...EVENTS].sort());
    for (const event of EVENTS) {
      const commands = settings.hooks[event]!.flatMap((g) => g.hooks.map((h) => h.command));
      expect(commands, event).to.have.length(1);
      expect(commands[0]).to.match(/^qhooks record\b/);
    }
    // qhooks itself accepts the snippet without a single warning.
    const file = sb.file("recorder.json", r.stdout);
    const hooks = await sb.run(["hooks", "--settings", file, "--json"]);
    expect(hooks.code).to.equal(0);
    expect(hooks.stderr).to.equal("");
    const effective = JSON.parse(hooks.stdout) as { hooks: { event: string }[] };
    expect(effective.hooks.map((h) => h.event).sort()).to.deep.equal([...EVENTS].sort());
  });

  it("the printed snippet, pasted into an agent's settings, records the events it sees", async () => {
    const printed = await sb.run(["record", "--print-settings"]);
    sb.projectSettings(printed.stdout);
    // `qhooks` on PATH, as the README tells users to arrange.
    const bin = join(sb.root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "qhooks"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const r = await sb.runEvent("SessionStart", payloadFor("SessionStart", { session_id: "agent-1" }), [], env);
    expect(r.code).to.equal(0);
    expect((r.outcome!.hooks as { outcome: string; exitCode: number; stdout: string }[]).map((h) => [h.outcome, h.exitCode, h.stdout])).to.deep.equal([
      ["success", 0, ""],
    ]);
    const records = await logJson(sb, ["--session", "agent-1"]);
    // Run by qhooks' own run as a hook of the event that run judges and logs, the recorder steps aside: one row.
    expect(records.map((x) => [x.event, x.decision, x.source])).to.deep.equal([["SessionStart", "none", "dispatch"]]);
  });

  it("invalid input exits 1 with one line, never 2, and prints nothing on stdout", async () => {
    for (const [args, input] of [
      [["record", "PreToolUse"], JSON.stringify({ session_id: "x", tool_name: "Bash" })],
      [["record"], JSON.stringify({ session_id: "x" })],
      [["record", "Stop"], "[]"],
      [["record", "Stop"], ""],
      [["record", "Stop"], JSON.stringify({ session_id: "x", hook_event_name: "PreToolUse" })],
    ] as const) {
      const r = await sb.run(args, { input });
      expect(r.code, `${args.join(" ")} <<< ${input}`).to.equal(1);
      expect(r.stdout).to.equal("");
      expect(nonEmptyLines(r.stderr), r.stderr).to.have.length(1);
      expect(r.stderr).to.match(/^qhooks: /);
    }
  });
});
