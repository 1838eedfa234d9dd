import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { displayWidth } from "../../src/display/displayWidth.js";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { nonEmptyLines, seedLog, type SeedEvent } from "../store/storeHelpers.js";
import { CLI, Sandbox } from "../support/sandbox.js";

/** Characters a terminal acts on; human output may contain line breaks between lines and tabs between TSV cells. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const SESSION_A = "3f2a9b1c-04e1-4b7e-9d6a-aaaaaaaaaaaa";
const SESSION_B = "3f2a9b1c-77e1-4b7e-9d6a-bbbbbbbbbbbb";
const SESSION_C = "c0ffee00-0000-4000-8000-000000000000";

/** A log whose events have known times (Jan 13 2026, 01:00 UTC and later) and CJK, emoji and long reasons. */
function history(): SeedEvent[] {
  const base = Date.parse("2026-01-13T01:00:00.000Z");
  const at = (minutes: number) => new Date(base + minutes * 60_000);
  return [
    { ts: at(0), event: "SessionStart", sessionId: SESSION_A, matchValue: "startup", decision: "none" },
    {
      ts: at(1),
      event: "PreToolUse",
      sessionId: SESSION_A,
      matchValue: "Bash",
      decision: "deny",
      reason: "危险命令已阻止: rm -rf /tmp/build 🚫",
      hooks: [{ name: "block-rm", outcome: "block", decision: "deny", reason: "危险命令已阻止" }],
    },
    { ts: at(2), event: "PreToolUse", sessionId: SESSION_B, matchValue: "Write", decision: "none", hooks: [{ name: "lint" }] },
    {
      ts: at(3),
      event: "Stop",
      sessionId: SESSION_B,
      decision: "block",
      reason: `keep going: ${"the tests still fail; ".repeat(20)}`,
      hooks: [{ name: "tests", outcome: "block", decision: "block" }],
    },
    { ts: at(4), event: "Notification", sessionId: SESSION_C, matchValue: "idle", decision: "recorded" },
  ];
}

describe("cli: listings (log, sessions, stats)", () => {
  let sb: Sandbox;
  let seqs: number[];
  before(async () => {
    sb = new Sandbox();
    seqs = await seedLog(sb.db, history());
  });
  after(() => sb.cleanup());

  describe("formats", () => {
    it("piped, a listing is tab-separated rows under a header, with whole ids and ISO times with their zone", async () => {
      const r = await sb.run(["log"], { env: { TZ: "Asia/Shanghai" } });
      expect(r.code, r.stderr).to.equal(0);
      const lines = r.stdout.split("\n").slice(0, -1);
      expect(lines[0]).to.equal("TIME\tSEQ\tSESSION\tEVENT\tMATCH\tDECISION\tHOOKS\tMS\tREASON\tTRIED");
      expect(lines).to.have.length(6);
      const blocked = lines.find((l) => l.split("\t")[1] === String(seqs[1]))!.split("\t");
      expect(blocked[0]).to.equal("2026-01-13T09:01:00.000+08:00");
      expect(blocked[2]).to.equal(SESSION_A);
      expect(blocked[8]).to.equal("危险命令已阻止: rm -rf /tmp/build 🚫");
      for (const line of lines) expect(line.split("\t")).to.have.length(10);
    });

    it("--format json is --json, --format jsonl is --jsonl, and the table is there when asked for", async () => {
      const [json, formatJson, jsonl, formatJsonl, table] = await Promise.all([
        sb.run(["log", "--json"]),
        sb.run(["log", "--format", "json"]),
        sb.run(["log", "--jsonl"]),
        sb.run(["log", "--format", "jsonl"]),
        sb.run(["log", "--format", "table"]),
      ]);
      expect(formatJson.stdout).to.equal(json.stdout);
      expect(formatJsonl.stdout).to.equal(jsonl.stdout);
      expect((JSON.parse(json.stdout) as LogRecord[]).map((r) => r.seq)).to.deep.equal([...seqs].reverse());
      expect(nonEmptyLines(table.stdout)[0]).to.match(/^TIME \(\+\d\d:\d\d\) +SEQ +SESSION/);
    });

    it("formats that disagree are one usage line", async () => {
      for (const args of [
        ["log", "--json", "--format", "tsv"],
        ["log", "--json", "--jsonl"],
        ["log", "--format", "xml"],
        ["stats", "--format", "jsonl"],
        ["hooks", "--json", "--format", "tsv"],
      ]) {
        const r = await sb.run(args);
        expect(r.code, args.join(" ")).to.equal(1);
        expect(r.stdout).to.equal("");
        expect(nonEmptyLines(r.stderr), r.stderr).to.have.length(1);
        expect(r.stderr).to.match(/^qhooks: /);
      }
    });

    it("sessions and stats take the same formats", async () => {
      const sessions = await sb.run(["sessions"]);
      expect(nonEmptyLines(sessions.stdout)[0]).to.equal("SESSION\tFIRST\tLAST\tEVENTS\tBLOCKED\tPROJECT");
      expect(sessions.stdout).to.include(`${SESSION_A}\t2026-01-13T`);
      const jsonl = await sb.run(["sessions", "--format", "jsonl"]);
      expect(nonEmptyLines(jsonl.stdout).map((l) => (JSON.parse(l) as { sessionId: string }).sessionId)).to.have.members([SESSION_A, SESSION_B, SESSION_C]);
      const stats = await sb.run(["stats"]);
      expect(nonEmptyLines(stats.stdout)[0]).to.equal("EVENT\tDECISION\tCOUNT");
      expect(stats.stdout).to.include("HOOK\tLEVEL\tRUNS\tBLOCKS\tERRORS\tBAD OUTPUT\tTIMEOUTS\tP50 MS\tP95 MS");
    });

    it("on a terminal, the default is a table that fits its width", function () {
      if (!existsSync("/usr/bin/script")) this.skip();
      // util-linux script(1) gives the command a pseudo-terminal, 40 columns wide.
      const r = spawnSync("/usr/bin/script", ["-qec", `stty cols 40; ${process.execPath} ${CLI} log`, "/dev/null"], {
        env: sb.env(),
        encoding: "utf8",
        cwd: sb.project,
      });
      expect(r.status, r.stderr).to.equal(0);
      const lines = r.stdout.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.includes("stty"));
      expect(lines[0]).to.match(/SEQ/).and.not.include("\t");
      for (const line of lines) expect(displayWidth(line), line).to.be.at.most(40);
    });
  });

  describe("tables for people", () => {
    it("fit any width, down to 20 columns: cells cut with an ellipsis, the important columns kept", async () => {
      for (const columns of ["120", "60", "30", "20"]) {
        const r = await sb.run(["log", "--format", "table"], { env: { COLUMNS: columns } });
        expect(r.code, r.stderr).to.equal(0);
        const lines = nonEmptyLines(r.stdout);
        expect(lines).to.have.length(6);
        for (const line of lines) expect(displayWidth(line), `${columns}: ${line}`).to.be.at.most(Number(columns));
        expect(lines[0], columns).to.include("SEQ").and.include("DECISION");
        expect(
          lines.find((l) => l.includes("DENY")),
          columns,
        ).to.match(new RegExp(`\\b${seqs[1]}\\b`));
      }
      const wide = await sb.run(["log", "--format", "table"], { env: { COLUMNS: "200" } });
      expect(wide.stdout).to.include("…").and.include("危险命令已阻止");
    });

    it("align CJK and emoji by their display width", async () => {
      const r = await sb.run(["log", "--format", "table"], { env: { COLUMNS: "200" } });
      const lines = nonEmptyLines(r.stdout);
      const columnOf = (line: string, text: string) => displayWidth(line.slice(0, line.indexOf(text)));
      const reason = columnOf(lines[0]!, "REASON");
      expect(columnOf(lines.find((l) => l.includes("危险"))!, "危险")).to.equal(reason);
      expect(columnOf(lines.find((l) => l.includes("keep going"))!, "keep going")).to.equal(reason);
    });

    it("show local time with its offset, UTC with --utc, whatever TZ is (unset, odd, far east)", async () => {
      const row = (stdout: string) => nonEmptyLines(stdout).find((l) => l.includes("DENY"))!;
      const shanghai = await sb.run(["log", "--format", "table"], { env: { TZ: "Asia/Shanghai" } });
      expect(nonEmptyLines(shanghai.stdout)[0]).to.match(/^TIME \(\+08:00\)/);
      expect(row(shanghai.stdout)).to.match(/^2026-01-13 09:01:00 /);
      const utc = await sb.run(["log", "--format", "table", "--utc"], { env: { TZ: "Asia/Shanghai" } });
      expect(nonEmptyLines(utc.stdout)[0]).to.match(/^TIME \(UTC\)/);
      expect(row(utc.stdout)).to.match(/^2026-01-13 01:01:00 /);
      for (const TZ of [undefined, "", "Not/AZone", ":/nonexistent", "UTC+3"]) {
        const r = await sb.run(["log", "--format", "table"], { env: { TZ } });
        expect(r.code, `TZ=${TZ}: ${r.stderr}`).to.equal(0);
        expect(r.stderr).to.equal("");
        expect(nonEmptyLines(r.stdout)[0]).to.match(/^TIME \([+-]\d\d:\d\d\)/);
      }
    });

    it("in a locale that is not UTF-8, are plain ASCII: other characters as escapes, '...' for the ellipsis", async () => {
      for (const env of [{ LANG: "C" }, { LANG: undefined }, { LC_ALL: "en_US.ISO-8859-1" }]) {
        const r = await sb.run(["log", "--format", "table"], { env: { ...env, COLUMNS: "100" } });
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout, JSON.stringify(env)).to.match(/^[\x20-\x7e\n]*$/);
        expect(r.stdout).to.include("\\u5371").and.include("...");
      }
    });
  });

  describe("--since and --until read a time without a zone as tables show it", () => {
    it("a time copied from a table in UTC+8 selects from that moment", async () => {
      const env = { TZ: "Asia/Shanghai" };
      const since = await sb.run(["log", "--json", "--since", "2026-01-13 09:02:00"], { env });
      expect((JSON.parse(since.stdout) as LogRecord[]).map((r) => r.seq)).to.deep.equal(seqs.slice(2).reverse());
      const utc = await sb.run(["log", "--json", "--utc", "--since", "2026-01-13 01:02:00", "--until", "2026-01-13 01:04"], { env });
      expect((JSON.parse(utc.stdout) as LogRecord[]).map((r) => r.seq)).to.deep.equal([seqs[3], seqs[2]]);
      const sessions = await sb.run(["sessions", "--json", "--since", "2026-01-13T09:03+08:00"], { env: { TZ: "America/New_York" } });
      expect((JSON.parse(sessions.stdout) as { sessionId: string }[]).map((s) => s.sessionId)).to.have.members([SESSION_B, SESSION_C]);
    });

    it("--since 99999999999d and other times out of range are a usage error: one line, exit 1", async () => {
      for (const args of [
        ["log", "--since", "99999999999d"],
        ["log", "--until", "99999999999d"],
        ["sessions", "--since", "99999999999d"],
        ["stats", "--since", "99999999999d"],
        ["replay", "--since", "99999999999d", "--match-only"],
      ]) {
        const r = await sb.run(args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = nonEmptyLines(r.stderr);
        expect(lines, r.stderr).to.have.length(1);
        expect(lines[0])
          .to.match(/^qhooks: --(since|until) "99999999999d": /)
          .and.not.include("internal error");
      }
    });
  });

  describe("--limit", () => {
    it("a cut is said on stderr, for every format; a listing that is whole says nothing", async () => {
      for (const format of ["table", "tsv", "json", "jsonl"]) {
        const cut = await sb.run(["log", "--format", format, "--limit", "2"]);
        expect(cut.code).to.equal(0);
        expect(nonEmptyLines(cut.stderr), format).to.deep.equal([
          "qhooks: showing the newest 2 matching events; there are more (-n N for another number, --limit all for every one)",
        ]);
        const whole = await sb.run(["log", "--format", format, "--limit", "5"]);
        expect(whole.stderr, format).to.equal("");
      }
      const json = await sb.run(["log", "--json", "-n", "2"]);
      expect((JSON.parse(json.stdout) as LogRecord[]).map((r) => r.seq)).to.deep.equal([seqs[4], seqs[3]]);
    });

    it("--limit all lists every event, past the default of 50", async () => {
      const many = new Sandbox();
      try {
        await seedLog(
          many.db,
          Array.from({ length: 60 }, (_, i) => ({
            ts: new Date(Date.UTC(2026, 0, 1, 0, i)),
            event: "Notification" as const,
            sessionId: `n${i}`,
            decision: "recorded" as const,
          })),
        );
        const byDefault = await many.run(["log", "--jsonl"]);
        expect(nonEmptyLines(byDefault.stdout)).to.have.length(50);
        expect(byDefault.stderr).to.include("showing the newest 50");
        const all = await many.run(["log", "--jsonl", "--limit", "all"]);
        expect(nonEmptyLines(all.stdout)).to.have.length(60);
        expect(all.stderr).to.equal("");
      } finally {
        await many.cleanup();
      }
    });
  });

  describe("--session takes a unique prefix of an id, as tables show them", () => {
    it("a prefix, with or without the table's ellipsis, selects that session", async () => {
      for (const given of ["c0ffee00", "c0ffee00…", "c0ffee00-0000", SESSION_C]) {
        const r = await sb.run(["log", "--json", "--session", given]);
        expect(r.code, r.stderr).to.equal(0);
        expect(
          (JSON.parse(r.stdout) as LogRecord[]).map((e) => e.sessionId),
          given,
        ).to.deep.equal([SESSION_C]);
      }
    });

    it("the table shows ids cut where they stop being alike, and that prefix selects the session", async () => {
      const table = await sb.run(["log", "--format", "table"], { env: { COLUMNS: "200" } });
      const shown = /3f2a9b1c-0\S*…/.exec(table.stdout)?.[0];
      expect(shown, table.stdout).to.equal("3f2a9b1c-0…");
      const r = await sb.run(["log", "--json", "--session", shown!]);
      expect((JSON.parse(r.stdout) as LogRecord[]).every((e) => e.sessionId === SESSION_A)).to.equal(true);
    });

    it("an ambiguous prefix is a usage error naming the sessions; an unknown one matches nothing", async () => {
      const r = await sb.run(["log", "--session", "3f2a"]);
      expect(r.code).to.equal(1);
      expect(nonEmptyLines(r.stderr)).to.have.length(1);
      expect(r.stderr)
        .to.match(/^qhooks: --session 3f2a: 2 sessions start with it/)
        .and.include(SESSION_A)
        .and.include(SESSION_B);
      const none = await sb.run(["log", "--json", "--session", "zzz"]);
      expect(JSON.parse(none.stdout)).to.deep.equal([]);
    });
  });

  describe("hostile text in human output (terminal escape sequences)", () => {
    let hostile: Sandbox;
    const ESC_TITLE = "\u001b]0;pwned\u0007";
    before(async () => {
      hostile = new Sandbox();
      // A tool name with a line break and escape sequences, a reason that paints the screen, a bidi override.
      await seedLog(hostile.db, [
        {
          ts: new Date("2026-01-13T01:00:00Z"),
          event: "PreToolUse",
          sessionId: `s\u001b[2Jx`,
          matchValue: `Bash\n  #999 PreToolUse Bash: deny  ->  none${ESC_TITLE}`,
          payload: {
            session_id: `s\u001b[2Jx`,
            hook_event_name: "PreToolUse",
            tool_name: `Bash\n  #999 PreToolUse Bash: deny  ->  none${ESC_TITLE}`,
            tool_input: { command: "x" },
          },
          decision: "deny",
          reason: "Dangerous \u001b[31mred\u001b[0m\r\nblocked \u202eevil",
          hooks: [{ name: `guard\u001b[1m`, outcome: "block", decision: "deny" }],
        },
      ]);
    });
    after(() => hostile.cleanup());

    it("log, sessions and stats show control characters escaped, in tables and TSV", async () => {
      for (const args of [["log"], ["sessions"], ["stats"], ["log", "--format", "table"], ["sessions", "--format", "table"], ["stats", "--format", "table"]]) {
        const r = await hostile.run(args);
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout, args.join(" ")).not.to.match(TERMINAL_CONTROLS);
        expect(r.stdout, args.join(" ")).not.to.match(/\n {2}#999/);
      }
      const table = await hostile.run(["log", "--format", "table"], { env: { COLUMNS: "300" } });
      expect(table.stdout).to.include("Dangerous \\u001b[31mred\\u001b[0m\\r\\nblocked \\u202eevil");
    });

    it("JSON output stays exact", async () => {
      const r = await hostile.run(["log", "--json"]);
      const [record] = JSON.parse(r.stdout) as LogRecord[];
      expect(record!.reason).to.equal("Dangerous \u001b[31mred\u001b[0m\r\nblocked \u202eevil");
      expect(record!.matchValue).to.equal(`Bash\n  #999 PreToolUse Bash: deny  ->  none${ESC_TITLE}`);
      expect(record!.sessionId).to.equal("s\u001b[2Jx");
    });

    it("a tool name with a line break cannot forge replay lines", async () => {
      const settings = hostile.file("allow.json", { hooks: {} });
      const r = await hostile.run(["replay", "--event", "PreToolUse", "--settings", settings, "--yes"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).not.to.match(TERMINAL_CONTROLS);
      const lines = r.stdout.split("\n");
      // One line for the one changed event: the forged "#999" stays inside it, escaped.
      expect(lines.filter((l) => l.includes("#999"))).to.have.length(1);
      expect(lines.filter((l) => /^ {2}#\d+ /.test(l))).to.have.length(1);
      expect(r.stdout).to.include("Bash\\n  #999");
    });
  });
});
