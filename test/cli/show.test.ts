import { expect } from "chai";
import { EventDetailSchema } from "../../src/schema/eventDetail.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { nonEmptyLines } from "../store/storeHelpers.js";
import { group, payloadFor, Sandbox } from "../support/sandbox.js";

/** Characters a terminal acts on; human output may contain line breaks between lines. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("cli: qhooks show <seq>", () => {
  let sb: Sandbox;
  let settings: string;
  let blockedSeq: number;
  let configHash: string;
  before(async () => {
    sb = new Sandbox();
    const guard = sb.script("guard.sh", 'cat >/dev/null\necho "checked the command" \necho "危险命令: rm -rf is not allowed" >&2\nexit 2');
    const note = sb.script("note.sh", 'cat >/dev/null\nprintf "line one\\nline two\\n"\nexit 0');
    settings = sb.file("settings.json", { hooks: { PreToolUse: [group("Bash", { command: guard, name: "guard" }, { command: note, name: "note" })] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/x" } }), ["--settings", settings]);
    expect(r.code, r.stderr).to.equal(2);
    blockedSeq = r.outcome!.seq as number;
    configHash = r.outcome!.configHash as string;
  });
  after(() => sb.cleanup());

  it("shows the event in full: payload, each hook's command, exit, duration and output, the outcome, config hash, chain", async () => {
    const r = await sb.run(["show", String(blockedSeq)], { env: { TZ: "Asia/Shanghai" } });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).to.equal(`#${blockedSeq}  PreToolUse  Bash  DENY`);
    expect(r.stdout).to.match(/^ {2}time {6}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+08:00$/m);
    expect(r.stdout).to.match(/^ {2}decision {2}DENY \(blocked\): 危险命令: rm -rf is not allowed$/m);
    expect(r.stdout).to.include(`  config    ${configHash}\n`);
    // The event's record and its outcome's, each with its hash, in the log with its id.
    expect(r.stdout).to.match(new RegExp(`^ {2}chain {5}#${blockedSeq} event \\(format \\d\\) [0-9a-f]{64}$`, "m"));
    expect(r.stdout).to.match(new RegExp(`^ {12}#${blockedSeq + 1} outcome \\(format \\d\\) [0-9a-f]{64}$`, "m"));
    expect(r.stdout).to.match(/^ {2}log id {4}\S+$/m);
    // The payload, indented for reading.
    expect(r.stdout).to.include("\nPayload\n  {\n");
    expect(r.stdout).to.include('    "session_id": "s1",');
    expect(r.stdout).to.include('      "command": "rm -rf /tmp/x"');
    // Each hook: how it ended, its command, where it came from, its decision and both outputs, line by line.
    expect(r.stdout).to.include("Hooks: 2 ran");
    expect(r.stdout).to.match(/^ {2}guard: block \(exit 2, [\d.]+ ms\)$/m);
    expect(r.stdout).to.include(`    command   ${sb.root}/scripts/guard.sh\n`);
    expect(r.stdout).to.include(`    from      ${settings}, matcher Bash\n`);
    expect(r.stdout).to.include("    stdout    checked the command\n");
    expect(r.stdout).to.include("    stderr    危险命令: rm -rf is not allowed\n");
    expect(r.stdout).to.match(/^ {2}note: success \(exit 0, [\d.]+ ms\)$/m);
    expect(r.stdout).to.include("    stdout   line one\n             line two\n");
  });

  it("--utc shows the time in UTC; #SEQ as qhooks prints it is taken too", async () => {
    const r = await sb.run(["show", `#${blockedSeq}`, "--utc"], { env: { TZ: "Asia/Shanghai" } });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^ {2}time {6}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/m);
  });

  it("--json is the event as the log holds it, valid against the EventDetail schema", async () => {
    const r = await sb.run(["show", String(blockedSeq), "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const shown = JSON.parse(r.stdout) as unknown;
    // The schema strips keys it does not know: equal after parsing means nothing more and nothing less.
    expect(EventDetailSchema.parse(shown)).to.deep.equal(shown);
    const log = openSqliteLog(sb.db, { mustExist: true });
    try {
      expect(shown).to.deep.equal(JSON.parse(JSON.stringify(await log.event(blockedSeq))));
    } finally {
      await log.close();
    }
    const detail = EventDetailSchema.parse(shown);
    expect(detail.outcome?.hooks.map((h) => [h.name, h.exitCode])).to.deep.equal([
      ["guard", 2],
      ["note", 0],
    ]);
    expect(detail.snapshot?.hash).to.equal(configHash);
    expect(detail.chain.records.map((c) => c.kind)).to.deep.equal(["event", "outcome"]);
  });

  it("a recorded event and a rejected payload say what became of them", async () => {
    const recorded = await sb.run(["record", "Notification"], { input: JSON.stringify(payloadFor("Notification", { session_id: "rec-1" })) });
    expect(recorded.code, recorded.stderr).to.equal(0);
    const rejected = await sb.run(["run", "PreToolUse", "--settings", settings], { input: '{"session_id": "s2", "tool_name": 42' });
    expect(rejected.code).to.equal(1);
    const log = openSqliteLog(sb.db, { mustExist: true });
    const seqs: number[] = [];
    try {
      for await (const r of log.events({}, 10)) seqs.push(r.seq);
    } finally {
      await log.close();
    }
    const [rejectedSeq, recordedSeq] = seqs;
    const rec = await sb.run(["show", String(recordedSeq)]);
    expect(rec.code, rec.stderr).to.equal(0);
    expect(rec.stdout).to.include("decision  recorded (qhooks record: no hook judged it)");
    expect(rec.stdout).to.include("source    record");
    expect(rec.stdout).not.to.include("Hooks:");
    const rej = await sb.run(["show", String(rejectedSeq)]);
    expect(rej.code, rej.stderr).to.equal(0);
    expect(rej.stdout).to.match(/^ {2}decision {2}rejected: .+$/m);
    expect(rej.stdout).to.include('Payload (as it arrived)\n  {"session_id": "s2", "tool_name": 42\n');
  });

  it("text from the payload and the hooks cannot act on the terminal; without a UTF-8 locale it is ASCII", async () => {
    const evil = sb.script("evil.sh", 'cat >/dev/null\nprintf "\\033]0;pwned\\007 \\033[2J cleared\\n" >&2\nexit 2');
    const file = sb.file("evil.json", { hooks: { PreToolUse: [group("Bash", { command: evil, name: "evil\u202ename" })] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "echo \u001b[31mred\u001b[0m 中文" } }), ["--settings", file]);
    expect(r.code, r.stderr).to.equal(2);
    const seq = String(r.outcome!.seq);
    const shown = await sb.run(["show", seq]);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).not.to.match(TERMINAL_CONTROLS);
    expect(shown.stdout).to.include("\\u001b]0;pwned\\u0007");
    expect(shown.stdout).to.include("evil\\u202ename");
    const ascii = await sb.run(["show", seq], { env: { LANG: "C" } });
    expect(ascii.code, ascii.stderr).to.equal(0);
    expect(ascii.stdout).to.match(/^[\x0a\x20-\x7e]*$/);
    expect(ascii.stdout).to.include("\\u4e2d\\u6587");
  });

  it("a seq that is no event is one clear line each, exit 1, nothing on stdout", async () => {
    const cases: [string[], RegExp][] = [
      [["show", "abc"], /^qhooks: seq must be a whole number from 1 \(the SEQ column of qhooks log\), not "abc"$/],
      [["show", "0"], /^qhooks: seq must be a whole number/],
      [["show", String(blockedSeq + 1)], new RegExp(`^qhooks: #${blockedSeq + 1} is not an event but another record of the log`)],
      [["show", "99999"], /^qhooks: no event #99999: the newest event in the log is #\d+; qhooks log shows each event's SEQ$/],
      [["show"], /^qhooks: missing required argument 'seq'$/],
      [["--db", `${sb.root}/nothing-here.db`, "show", "1"], /^qhooks: .*nothing-here\.db/],
    ];
    for (const [args, message] of cases) {
      const r = await sb.run(args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stdout, args.join(" ")).to.equal("");
      expect(nonEmptyLines(r.stderr), args.join(" ")).to.have.length(1);
      expect(r.stderr.trim(), args.join(" ")).to.match(message);
    }
  });
});
