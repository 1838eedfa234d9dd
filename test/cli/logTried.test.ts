import { expect } from "chai";
import { displayWidth } from "../../src/display/displayWidth.js";
import { LogRecordSchema } from "../../src/schema/logRecord.js";
import { nonEmptyLines, seedLog, type SeedEvent } from "../store/storeHelpers.js";
import { Sandbox } from "../support/sandbox.js";

/** Characters a terminal acts on; TSV may have tabs between cells, and output has line breaks between lines. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const SESSION = "7e1d0000-0000-4000-8000-000000000001";
const tool = (tool_name: string, tool_input: Record<string, unknown>) => ({ session_id: SESSION, hook_event_name: "PreToolUse", tool_name, tool_input });
const HOSTILE = "echo hi\u001b]0;pwned\u0007\tx\u009b2J \u202eevil\nrm -rf /";

/** One event for each kind of summary, and one whose command would act on a terminal. */
function history(): SeedEvent[] {
  const base = Date.parse("2026-01-13T01:00:00.000Z");
  const at = (minutes: number) => new Date(base + minutes * 60_000);
  const pre = (m: number, matchValue: string, payload: Record<string, unknown>): SeedEvent => ({
    ts: at(m),
    event: "PreToolUse",
    sessionId: SESSION,
    matchValue,
    decision: "none",
    payload,
    hooks: [{ name: "guard" }],
  });
  return [
    { ts: at(0), event: "SessionStart", sessionId: SESSION, matchValue: "startup", decision: "none" },
    pre(1, "Bash", tool("Bash", { command: "rm -rf /tmp/build", description: "clean" })),
    pre(2, "Write", tool("Write", { file_path: "/p/src/a.ts", content: "x".repeat(5000) })),
    pre(3, "WebFetch", tool("WebFetch", { url: "https://example.com/x", prompt: "read" })),
    pre(4, "mcp__github__create_issue", tool("mcp__github__create_issue", { repo: "a/b", title: "Bug", body: "long" })),
    {
      ts: at(5),
      event: "UserPromptSubmit",
      sessionId: SESSION,
      decision: "none",
      payload: { session_id: SESSION, hook_event_name: "UserPromptSubmit", prompt: "fix the tests" },
    },
    pre(6, "Bash", tool("Bash", { command: HOSTILE })),
    pre(7, "Bash", tool("Bash", { command: `echo ${"long ".repeat(40)}` })),
    { ts: at(8), event: "Stop", sessionId: SESSION, decision: "rejected", payload: "{not json", reason: "not JSON" },
  ];
}

describe("cli: what the agent tried (log's TRIED column, show, log --json)", () => {
  let sb: Sandbox;
  let seqs: number[];
  before(async () => {
    sb = new Sandbox();
    seqs = await seedLog(sb.db, history());
  });
  after(() => sb.cleanup());

  const EXPECTED = [
    null,
    "rm -rf /tmp/build",
    "/p/src/a.ts",
    "https://example.com/x",
    'github.create_issue repo="a/b" title="Bug"',
    "fix the tests",
    // Line breaks become a visible mark; other C0 controls spaces; C1 and bidirectional marks are left to the output.
    "echo hi ]0;pwned  x\u009b2J \u202eevil ⏎ rm -rf /",
    `${`echo ${"long ".repeat(40)}`.slice(0, 79)}…`,
    null,
  ];

  it("log --json: each record has `tried`, valid against LogRecordSchema, null when the payload says nothing", async () => {
    const r = await sb.run(["log", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const records = (JSON.parse(r.stdout) as unknown[]).map((x) => {
      const parsed = LogRecordSchema.parse(x);
      expect(parsed).to.deep.equal(x);
      return parsed;
    });
    expect(records.map((x) => x.seq)).to.deep.equal([...seqs].reverse());
    expect(records.map((x) => x.tried).reverse()).to.deep.equal(EXPECTED);
    const jsonl = await sb.run(["log", "--jsonl"]);
    expect(nonEmptyLines(jsonl.stdout).map((l) => (JSON.parse(l) as { tried: unknown }).tried)).to.deep.equal([...EXPECTED].reverse());
  });

  it("tab-separated: TRIED is the last column (the older ones keep their places), one line per event, escaped", async () => {
    const r = await sb.run(["log"]);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.split("\n").slice(0, -1);
    expect(lines[0]).to.equal("TIME\tSEQ\tSESSION\tEVENT\tMATCH\tDECISION\tHOOKS\tMS\tREASON\tTRIED");
    expect(lines).to.have.length(seqs.length + 1);
    for (const line of lines) expect(line.split("\t")).to.have.length(10);
    expect(r.stdout.replace(/[\t\n]/g, "")).not.to.match(TERMINAL_CONTROLS);
    const tried = new Map(lines.slice(1).map((l) => [Number(l.split("\t")[1]), l.split("\t")[9]!]));
    expect(tried.get(seqs[1]!)).to.equal("rm -rf /tmp/build");
    expect(tried.get(seqs[4]!)).to.equal('github.create_issue repo="a/b" title="Bug"');
    expect(tried.get(seqs[6]!)).to.equal("echo hi ]0;pwned  x\\u009b2J \\u202eevil ⏎ rm -rf /");
    expect(tried.get(seqs[0]!)).to.equal("");
    // The same log gives the same rows twice.
    expect((await sb.run(["log"])).stdout).to.equal(r.stdout);
  });

  it("table: TRIED next to MATCH, cut to 40 columns, escaped; on a narrow terminal no row is wider than it", async () => {
    const r = await sb.run(["log", "--format", "table"], { env: { COLUMNS: "220" } });
    expect(r.code, r.stderr).to.equal(0);
    const lines = nonEmptyLines(r.stdout);
    expect(lines[0]).to.match(/ MATCH +TRIED +DECISION /);
    const row = (seq: number) => lines.find((l) => l.split(/ {2,}/)[1] === String(seq))!;
    expect(row(seqs[1]!)).to.match(/ Bash +rm -rf \/tmp\/build +none /);
    expect(row(seqs[3]!)).to.include("https://example.com/x");
    expect(row(seqs[4]!)).to.include(`github.create_issue repo="a/b" title="B…`);
    expect(row(seqs[5]!)).to.include("fix the tests");
    expect(row(seqs[7]!)).to.include(`echo ${"long ".repeat(6)}long… `);
    expect(r.stdout).not.to.match(TERMINAL_CONTROLS);
    expect(row(seqs[6]!)).to.include("\\u009b2J \\u202eevil");
    for (const columns of ["120", "90", "60"]) {
      const narrow = await sb.run(["log", "--format", "table"], { env: { COLUMNS: columns } });
      for (const l of nonEmptyLines(narrow.stdout)) expect(displayWidth(l), `${columns}: ${l}`).to.be.at.most(Number(columns));
    }
    // At 120 columns it still says what was tried, cut rather than left out.
    const mid = nonEmptyLines((await sb.run(["log", "--format", "table"], { env: { COLUMNS: "120" } })).stdout);
    expect(mid[0]).to.include("TRIED");
    expect(mid.join("\n")).to.include("rm -rf /tmp/build");
  });

  it("show: a `tried` line, escaped; none for an event that tried nothing", async () => {
    const bash = await sb.run(["show", String(seqs[1])]);
    expect(bash.code, bash.stderr).to.equal(0);
    expect(bash.stdout).to.match(/^ {2}tried +rm -rf \/tmp\/build$/m);
    const hostile = await sb.run(["show", String(seqs[6])]);
    expect(hostile.stdout).to.match(/^ {2}tried +echo hi \]0;pwned {2}x\\u009b2J \\u202eevil ⏎ rm -rf \/$/m);
    expect(hostile.stdout).not.to.match(TERMINAL_CONTROLS);
    const start = await sb.run(["show", String(seqs[0])]);
    expect(start.stdout).not.to.match(/^ {2}tried /m);
  });

  it("report: the timeline's row says what was tried", async () => {
    const r = await sb.run(["report", "-o", "-"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('<span class="muted tried">rm -rf /tmp/build</span>');
    expect(r.stdout).to.include("\\u202eevil ⏎ rm -rf /");
    expect(r.stdout).not.to.match(/[\u001b\u009b\u202e]/);
  });
});
