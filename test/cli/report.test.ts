import { expect } from "chai";
import { existsSync, lstatSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nonEmptyLines, seedLog, type SeedEvent } from "../store/storeHelpers.js";
import { Sandbox } from "../support/sandbox.js";

const SESSION_A = "3f2a9b1c-04e1-4b7e-9d6a-aaaaaaaaaaaa";
const SESSION_B = "77e1c0de-0000-4000-8000-bbbbbbbbbbbb";

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
      reason: "Dangerous command blocked: rm -rf /tmp/build",
      hooks: [{ name: "block-rm", outcome: "block", decision: "deny", reason: "Dangerous command blocked: rm -rf /tmp/build" }],
    },
    { ts: at(2), event: "PreToolUse", sessionId: SESSION_B, matchValue: "Write", decision: "none", hooks: [{ name: "lint" }] },
    {
      ts: at(3),
      event: "Stop",
      sessionId: SESSION_B,
      decision: "block",
      reason: "run the tests first",
      hooks: [{ name: "tests", outcome: "block", decision: "block" }],
    },
  ];
}

describe("cli: qhooks report", () => {
  let sb: Sandbox;
  before(async () => {
    sb = new Sandbox();
    await seedLog(sb.db, history());
  });
  after(() => sb.cleanup());

  it("writes one HTML file (qhooks-report.html here by default, or -o FILE) and prints its path", async () => {
    const r = await sb.run(["report"]);
    expect(r.code, r.stderr).to.equal(0);
    const file = join(sb.project, "qhooks-report.html");
    expect(r.stdout).to.equal(`Wrote ${file} (4 events)\n`);
    const page = readFileSync(file, "utf8");
    expect(page).to.match(/^<!DOCTYPE html>/);
    expect(page).to.include("Dangerous command blocked: rm -rf /tmp/build");
    expect(page.match(/<details class="ev"/g)).to.have.length(4);

    const nested = await sb.run(["report", "-o", "out/dir/r.html"]);
    expect(nested.code, nested.stderr).to.equal(0);
    expect(existsSync(join(sb.project, "out", "dir", "r.html"))).to.equal(true);
  });

  it("-o - writes the page to stdout; filters select events as for qhooks log (a session by its prefix)", async () => {
    const r = await sb.run(["report", "-o", "-", "--session", "3f2a9b1c"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^<!DOCTYPE html>/);
    expect(r.stdout).to.include(`<title>qhooks report: session ${SESSION_A}</title>`);
    expect(r.stdout.match(/<details class="ev"/g)).to.have.length(2);
    expect(r.stdout).not.to.include("run the tests first");
  });

  it("times are local with their offset, or UTC with --utc, as in the tables", async () => {
    const local = await sb.run(["report", "-o", "-", "--blocked"], { env: { TZ: "Asia/Shanghai" } });
    expect(local.stdout).to.include("Times are local (+08:00)").and.include("<th>TIME (+08:00)</th>");
    expect(local.stdout).to.include("2026-01-13 09:01:00");
    const utc = await sb.run(["report", "-o", "-", "--blocked", "--utc"], { env: { TZ: "Asia/Shanghai" } });
    expect(utc.stdout).to.include("Times are in UTC").and.include("2026-01-13 01:01:00");
  });

  it("--limit reads only the newest events, and the page says how many there are", async () => {
    const r = await sb.run(["report", "-o", "-", "-n", "2"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include("The log has 4 matching events; this report reads the newest 2");
    expect(r.stdout.match(/<details class="ev"/g)).to.have.length(2);
  });

  it("nothing selected is a page that says so", async () => {
    const r = await sb.run(["report", "-o", "-", "--event", "SessionEnd"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include("No events match.");
  });

  it("mistakes are one line each, exit 1", async () => {
    sb.file("a-file", "x");
    const cases: [string[], RegExp][] = [
      [["report", "-n", "0"], /^qhooks: --limit: expected a whole number of at least 1, or all$/],
      [["report", "--event", "PreTool"], /^qhooks: .*did you mean PreToolUse\?/],
      [["report", "-o", join(sb.root, "a-file", "r.html")], /^qhooks: cannot write the report .*: (ENOTDIR|EEXIST)$/],
      [["--db", join(sb.root, "none.db"), "report"], /^qhooks: .*none\.db/],
    ];
    for (const [args, message] of cases) {
      const r = await sb.run(args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stdout, args.join(" ")).to.equal("");
      expect(nonEmptyLines(r.stderr), args.join(" ")).to.have.length(1);
      expect(r.stderr.trim(), args.join(" ")).to.match(message);
    }
  });

  it("the page is as private as the log (0600, an older 0644 report too) and replaces a symlink planted at its path instead of writing through it", async () => {
    const older = join(sb.project, "older.html");
    writeFileSync(older, "old", { mode: 0o644 });
    const r = await sb.run(["report", "-o", older]);
    expect(r.code, r.stderr).to.equal(0);
    expect(statSync(older).mode & 0o777).to.equal(0o600);
    expect(readFileSync(older, "utf8")).to.match(/^<!DOCTYPE html>/);

    const victim = sb.file("victim.txt", "keep me");
    const planted = join(sb.project, "planted.html");
    symlinkSync(victim, planted);
    const p = await sb.run(["report", "-o", planted]);
    expect(p.code, p.stderr).to.equal(0);
    expect(readFileSync(victim, "utf8")).to.equal("keep me");
    expect(lstatSync(planted).isSymbolicLink()).to.equal(false);
    expect(statSync(planted).mode & 0o777).to.equal(0o600);
    expect(readFileSync(planted, "utf8")).to.match(/^<!DOCTYPE html>/);
    // No temporary file is left beside it.
    expect(readdirSync(sb.project).filter((f) => f.endsWith(".tmp"))).to.deep.equal([]);
  });
});
