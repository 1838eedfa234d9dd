import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Sandbox } from "../support/sandbox.js";
import { logJson, mapLimit, minutesAgo, nonEmptyLines, seedLog, type SeedEvent } from "./storeHelpers.js";

/**
 * One known history, appended through the library's EventLog.append with controlled times (oldest first, so seq
 * order and time order agree), then queried through the real `qhooks log`. Every filter must both include what
 * it names and exclude the rest.
 */
describe("qhooks log filters (contract 5)", () => {
  let sb: Sandbox;
  let now: number;
  let history: (SeedEvent & { label: string })[];
  const seqOf = new Map<string, number>();
  const labelOf = new Map<number, string>();

  before(async () => {
    sb = new Sandbox();
    now = Date.now();
    history = [
      {
        label: "E1",
        ts: minutesAgo(10 * 24 * 60, now),
        event: "PreToolUse",
        sessionId: "a",
        matchValue: "Bash",
        decision: "deny",
        reason: "Dangerous command blocked: rm -rf /",
        payload: { session_id: "a", tool_name: "Bash", tool_input: { command: "rm -rf /" } },
        hooks: [{ name: "rm-guard", command: "/opt/hooks/block-rm.sh", decision: "deny", reason: "Dangerous command blocked: rm -rf /" }],
      },
      {
        label: "E2",
        ts: minutesAgo(3 * 24 * 60, now),
        event: "PreToolUse",
        sessionId: "b",
        matchValue: "Write",
        decision: "allow",
        payload: { session_id: "b", tool_name: "Write", tool_input: { file_path: "/src/a.ts" } },
        hooks: [{ name: "lint", command: "npx eslint --fix", decision: "allow" }],
      },
      {
        label: "E3",
        ts: minutesAgo(3 * 60, now),
        event: "PreToolUse",
        sessionId: "c",
        matchValue: "Bash",
        decision: "ask",
        payload: { session_id: "c", tool_name: "Bash", tool_input: { command: "git push --force" } },
        projectDir: "/other/project",
        hooks: [{ name: "asker", command: "/opt/hooks/ask.sh", decision: "ask" }],
      },
      {
        label: "E4",
        ts: minutesAgo(45, now),
        event: "Stop",
        sessionId: "a",
        decision: "block",
        reason: "Tests are FAILING",
        payload: { session_id: "a", stop_hook_active: false },
        hooks: [{ name: "tests-pass", command: "npm test", decision: "block", reason: "Tests are FAILING" }],
      },
      {
        label: "E5",
        ts: minutesAgo(20, now),
        event: "PostToolUse",
        sessionId: "b",
        matchValue: "Write",
        decision: "none",
        payload: { session_id: "b", tool_name: "Write", tool_input: { file_path: "/src/b.ts" }, tool_response: "ok" },
        hooks: [
          { name: "lint", command: "npx eslint --fix" },
          { name: "formatter", command: "prettier --write", outcome: "timeout" },
        ],
      },
      {
        label: "E6",
        ts: minutesAgo(10, now),
        event: "UserPromptSubmit",
        sessionId: "c",
        decision: "recorded",
        payload: { session_id: "c", prompt: "Please DELETE the build" },
      },
      {
        label: "E7",
        ts: minutesAgo(5, now),
        event: "PreToolUse",
        sessionId: "d",
        decision: "rejected",
        reason: "invalid PreToolUse payload: tool_input: missing",
        payload: { session_id: "d", tool_name: "Bash" },
      },
      {
        label: "E8",
        ts: minutesAgo(1, now),
        event: "PreToolUse",
        sessionId: "a",
        matchValue: "Bash",
        decision: "unfinished",
        payload: { session_id: "a", tool_name: "Bash", tool_input: { command: "sleep 10" } },
      },
    ];
    const seqs = await seedLog(sb.db, history);
    history.forEach((e, i) => {
      seqOf.set(e.label, seqs[i]!);
      labelOf.set(seqs[i]!, e.label);
    });
  });
  after(() => sb.cleanup());

  /** Runs every case (in parallel, a few at a time) and compares the labels listed, newest first. */
  async function check(cases: readonly (readonly [readonly string[], readonly string[]])[]) {
    const got = await mapLimit(cases, 4, async ([args]) => (await logJson(sb, [...args, "--limit", "1000"])).map((r) => labelOf.get(r.seq) ?? `seq ${r.seq}`));
    const failures = cases.flatMap(([args, expected], i) =>
      JSON.stringify(got[i]) === JSON.stringify(expected)
        ? []
        : [`qhooks log ${args.join(" ")}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got[i])}`],
    );
    expect(failures).to.deep.equal([]);
  }

  it("without filters lists every live event, newest first", () => check([[[], ["E8", "E7", "E6", "E5", "E4", "E3", "E2", "E1"]]]));

  it("--event", () =>
    check([
      [
        ["--event", "PreToolUse"],
        ["E8", "E7", "E3", "E2", "E1"],
      ],
      [["--event", "Stop"], ["E4"]],
      [["--event", "UserPromptSubmit"], ["E6"]],
      [["--event", "SessionEnd"], []],
    ]));

  it("--session, once and repeated", () =>
    check([
      [
        ["--session", "a"],
        ["E8", "E4", "E1"],
      ],
      [
        ["--session", "b"],
        ["E5", "E2"],
      ],
      [
        ["--session", "a", "--session", "c"],
        ["E8", "E6", "E4", "E3", "E1"],
      ],
      [["--session", "A"], []],
    ]));

  it("--tool (the exact match value)", () =>
    check([
      [
        ["--tool", "Bash"],
        ["E8", "E3", "E1"],
      ],
      [
        ["--tool", "Write"],
        ["E5", "E2"],
      ],
      [["--tool", "Bas"], []],
    ]));

  it("--decision, for every decision", () =>
    check([
      [["--decision", "allow"], ["E2"]],
      [["--decision", "deny"], ["E1"]],
      [["--decision", "ask"], ["E3"]],
      [["--decision", "block"], ["E4"]],
      [["--decision", "none"], ["E5"]],
      [["--decision", "recorded"], ["E6"]],
      [["--decision", "rejected"], ["E7"]],
      [["--decision", "unfinished"], ["E8"]],
    ]));

  it("--blocked (deny and block only)", () => check([[["--blocked"], ["E4", "E1"]]]));

  it("--errors: a hook failed (a timeout here); with another filter, both apply", () =>
    check([
      [["--errors"], ["E5"]],
      [["--errors", "--event", "PreToolUse"], []],
    ]));

  it("--project: the events of one project directory, made absolute", () =>
    check([
      [["--project", "/other/project"], ["E3"]],
      [["--project", "/other/project/"], ["E3"]],
      [
        ["--project", "/seeded/project", "--tool", "Bash"],
        ["E8", "E1"],
      ],
      [["--project", "/nowhere"], []],
    ]));

  it("--hook matches a hook's name or a substring of its command", () =>
    check([
      [
        ["--hook", "lint"],
        ["E5", "E2"],
      ],
      [["--hook", "tests-pass"], ["E4"]],
      [["--hook", "npm te"], ["E4"]],
      [["--hook", "block-rm"], ["E1"]],
      [
        ["--hook", "/opt/hooks/"],
        ["E3", "E1"],
      ],
      [["--hook", "prettier"], ["E5"]],
      [["--hook", "Lint"], []],
      [["--hook", "nothing-like-this"], []],
    ]));

  it("--grep is a case-sensitive substring of the payload or the reason", () =>
    check([
      [["--grep", "rm -rf"], ["E1"]],
      [["--grep", "RM -RF"], []],
      [["--grep", "DELETE the build"], ["E6"]],
      [["--grep", "delete the build"], []],
      // Only in the reason, not in the payload:
      [["--grep", "FAILING"], ["E4"]],
      [["--grep", "failing"], []],
      [["--grep", "tool_input: missing"], ["E7"]],
      [["--grep", "sleep 10"], ["E8"]],
      [
        ["--grep", '"file_path"'],
        ["E5", "E2"],
      ],
    ]));

  it("--since and --until with spans (30m, 2h, 7d)", () =>
    check([
      [
        ["--since", "30m"],
        ["E8", "E7", "E6", "E5"],
      ],
      [
        ["--since", "2h"],
        ["E8", "E7", "E6", "E5", "E4"],
      ],
      [
        ["--since", "7d"],
        ["E8", "E7", "E6", "E5", "E4", "E3", "E2"],
      ],
      [
        ["--until", "30m"],
        ["E4", "E3", "E2", "E1"],
      ],
      [
        ["--until", "2h"],
        ["E3", "E2", "E1"],
      ],
      [["--until", "7d"], ["E1"]],
      [
        ["--since", "7d", "--until", "2h"],
        ["E3", "E2"],
      ],
    ]));

  it("--since and --until with ISO times (since inclusive, until exclusive)", () => {
    const iso = (minutes: number) => minutesAgo(minutes, now).toISOString();
    const e4 = history.find((e) => e.label === "E4")!.ts.toISOString();
    return check([
      [
        ["--since", iso(4 * 60), "--until", iso(15)],
        ["E5", "E4", "E3"],
      ],
      [["--since", iso(2)], ["E8"]],
      [["--until", iso(5 * 24 * 60)], ["E1"]],
      [["--since", e4, "--until", iso(30)], ["E4"]],
      [["--until", e4, "--since", iso(4 * 60)], ["E3"]],
    ]);
  });

  it("filters combine (all must hold)", () =>
    check([
      [
        ["--event", "PreToolUse", "--session", "a"],
        ["E8", "E1"],
      ],
      [["--session", "a", "--blocked", "--since", "2h"], ["E4"]],
      [["--tool", "Bash", "--decision", "ask"], ["E3"]],
      [["--hook", "lint", "--event", "PostToolUse"], ["E5"]],
      [["--grep", "rm -rf", "--session", "b"], []],
    ]));

  it("--limit keeps the newest, also with a filter", async () => {
    const three = await logJson(sb, ["--limit", "3"]);
    expect(three.map((r) => labelOf.get(r.seq))).to.deep.equal(["E8", "E7", "E6"]);
    const two = await logJson(sb, ["--session", "a", "--limit", "2"]);
    expect(two.map((r) => labelOf.get(r.seq))).to.deep.equal(["E8", "E4"]);
  });
});

describe("qhooks log --limit default and bad values", () => {
  let sb: Sandbox;
  before(() => {
    sb = new Sandbox();
  });
  after(() => sb.cleanup());

  it("lists the 50 newest by default, newest first", async () => {
    const base = Date.now() - 60 * 60_000;
    const seqs = await seedLog(
      sb.db,
      Array.from({ length: 60 }, (_, i) => ({
        ts: new Date(base + i * 1000),
        event: "Notification" as const,
        sessionId: `n${i}`,
        decision: "recorded" as const,
      })),
    );
    const listed = await logJson(sb);
    expect(listed.map((r) => r.seq)).to.deep.equal(seqs.slice(-50).reverse());
    expect(listed[0]!.sessionId).to.equal("n59");
    expect((await logJson(sb, ["--limit", "60"])).map((r) => r.seq)).to.deep.equal([...seqs].reverse());
    const table = await sb.run(["log"]);
    expect(nonEmptyLines(table.stdout)).to.have.length(51);
  });

  it("invalid values are one qhooks: line and exit 1", async () => {
    const cases: [string[], RegExp][] = [
      [["--decision", "maybe"], /decision/],
      [["--decision", "BLOCK"], /decision/],
      [["--since", "the day before"], /--since/],
      [["--since", "99999999999d"], /--since/],
      [["--until", "2x"], /--until/],
      [["--since", "13/01/2026"], /--since/],
      [["--limit", "0"], /limit/],
      [["--limit", "-3"], /limit/],
      [["--limit", "ten"], /limit/],
      [["--event", "PreTool"], /event/],
    ];
    const results = await mapLimit(cases, 4, ([args]) => sb.run(["log", ...args]));
    cases.forEach(([args, mentions], i) => {
      const r = results[i]!;
      const what = `qhooks log ${args.join(" ")}`;
      expect(r.code, what).to.equal(1);
      expect(r.stdout, what).to.equal("");
      const lines = nonEmptyLines(r.stderr);
      expect(lines, what).to.have.length(1);
      expect(lines[0], what)
        .to.match(/^qhooks: /)
        .and.match(mentions);
      expect(lines[0], what).not.to.match(/\bat .*\.js:\d+/);
    });
  });

  it("a bad --decision says which values are allowed", async () => {
    const r = await sb.run(["log", "--decision", "maybe"]);
    expect(r.code).to.equal(1);
    for (const d of ["allow", "deny", "ask", "block", "none", "recorded", "rejected", "unfinished"]) expect(r.stderr).to.include(d);
  });
});

describe("audit commands on a missing log", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  for (const command of [["log"], ["log", "--json"], ["sessions"], ["stats", "--json"], ["verify"]]) {
    it(`qhooks ${command.join(" ")}: one clear line, exit 1, and no file created`, async () => {
      const dir = join(sb.root, "not-yet");
      const path = join(dir, "events.db");
      const before = readdirSync(sb.root).sort();
      const viaFlag = await sb.run(["--db", path, ...command]);
      const viaEnv = command[0] === "log" && command.length === 1 ? [await sb.run(command, { env: { QHOOKS_DB: path } })] : [];
      for (const r of [viaFlag, ...viaEnv]) {
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = nonEmptyLines(r.stderr);
        expect(lines).to.have.length(1);
        expect(lines[0])
          .to.match(/^qhooks: /)
          .and.include(path);
      }
      expect(existsSync(dir)).to.equal(false);
      expect(readdirSync(sb.root).sort()).to.deep.equal(before);
    });
  }
});
