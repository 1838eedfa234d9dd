import { expect } from "chai";
import { hostname, userInfo } from "node:os";
import pg from "pg";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { readOnly } from "../store/storeHelpers.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";

/** Values that differ between two runs of the same events (times, durations, run ids): blanked. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = /^(ts|durationMs|runId|startedAt|finishedAt|firstTs|lastTs|lastRun|p50Ms|p95Ms|p99Ms|maxMs)$/.test(k) ? "*" : normalized(v);
  }
  // Each backend names its own log as the writer (a SQLite file its log id; PostgreSQL the machine's chain): the
  // test "log --json: each names its own writer" checks them.
  if (isOrigin(value)) out.writer = "*";
  return out;
}
// A session's origin has no seq; an event's has.
const isOrigin = (value: object): boolean => "writer" in value && "machine" in value && "user" in value;
/** Tab-separated rows (in sections under their own headers) with the named columns blanked. */
const blankColumns = (text: string, headers: readonly string[]): string =>
  text
    .split("\n\n")
    .map((section) => blankSection(section, headers))
    .join("\n\n");
const blankSection = (text: string, headers: readonly string[]): string => {
  const lines = text.split("\n");
  const head = lines[0]!.split("\t");
  const blank = head.map((h, i) => (headers.some((name) => h.startsWith(name)) ? i : -1)).filter((i) => i >= 0);
  return lines
    .map((l, n) =>
      n === 0
        ? l
        : l
            .split("\t")
            .map((c, i) => (blank.includes(i) ? "*" : c))
            .join("\t"),
    )
    .join("\n");
};

const SESSION = "5e55-parity";

describe("cli: the same commands on SQLite and PostgreSQL", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let db: TestDatabase;
  const sqliteEnv = () => ({ QHOOKS_DB: sb.db });
  const pgEnv = () => ({ QHOOKS_DB: db.url });
  const runs: Record<string, { code: number | null; stdout: string }[]> = { sqlite: [], postgres: [] };

  before(async () => {
    sb = new Sandbox();
    db = await createTestDatabase();
    const guard = sb.script("guard.sh", `if grep -q 'rm -rf'; then echo "rm -rf refused" >&2; exit 2; fi\nexit 0`);
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", guard)], Stop: [group(undefined, "true")], PostToolUse: [group(undefined, "exit 1")] } });
    const steps: [string[], string][] = [
      [["run", "SessionStart"], JSON.stringify(payloadFor("SessionStart", { session_id: SESSION }))],
      [["run", "PreToolUse"], JSON.stringify(payloadFor("PreToolUse", { session_id: SESSION }))],
      [["run", "PreToolUse"], JSON.stringify({ ...payloadFor("PreToolUse"), session_id: SESSION, tool_input: { command: "rm -rf /" } })],
      [["run", "PreToolUse"], JSON.stringify({ session_id: SESSION, tool_name: "Read", tool_input: { file_path: "/etc/hosts" } })],
      [["record", "Notification"], JSON.stringify(payloadFor("Notification", { session_id: "other" }))],
      [["run", "Stop"], "{not json"],
      [["run", "Stop"], JSON.stringify(payloadFor("Stop", { session_id: SESSION }))],
      [["run", "PostToolUse"], JSON.stringify(payloadFor("PostToolUse", { session_id: SESSION }))],
    ];
    for (const [backend, env] of [
      ["sqlite", sqliteEnv],
      ["postgres", pgEnv],
    ] as const) {
      for (const [args, input] of steps) {
        const r = await sb.run(args, { input, env: env() });
        runs[backend]!.push({ code: r.code, stdout: JSON.stringify(normalized(r.stdout.trim() ? JSON.parse(r.stdout) : null)) });
        expect(r.stderr, `${backend} ${args.join(" ")}`).to.not.match(/event log/);
      }
    }
  });
  after(async () => {
    await sb.cleanup();
    await db.drop();
  });

  it("run and record decide the same, with the same exit status", () => {
    expect(runs.postgres).to.deep.equal(runs.sqlite);
    expect(runs.sqlite!.map((r) => r.code)).to.deep.equal([0, 0, 2, 0, 0, 1, 0, 0]);
  });

  const both = async (args: string[]) => {
    const [s, p] = await Promise.all([sb.run(args, { env: sqliteEnv() }), sb.run(args, { env: pgEnv() })]);
    expect(s.code, s.stderr).to.equal(0);
    expect(p.code, p.stderr).to.equal(0);
    return [s.stdout, p.stdout] as const;
  };

  for (const args of [
    ["log", "--json"],
    ["log", "--json", "--blocked"],
    ["log", "--json", "--event", "PreToolUse", "--tool", "Bash"],
    ["log", "--jsonl", "--grep", "rm -rf"],
    ["log", "--json", "--errors"],
    ["sessions", "--json"],
    ["stats", "--json"],
    ["log", "--json", "--session", SESSION, "--limit", "2"],
  ]) {
    it(`qhooks ${args.join(" ")}: the same records`, async () => {
      const [s, p] = await both(args);
      const parse = (text: string) =>
        args.includes("--jsonl")
          ? text
              .trim()
              .split("\n")
              .map((l) => JSON.parse(l))
          : JSON.parse(text);
      expect(normalized(parse(p))).to.deep.equal(normalized(parse(s)));
      expect(parse(s)).to.not.be.empty;
    });
  }

  it("qhooks log --json: the same `tried` (what the agent tried) from both backends", async () => {
    const [s, p] = await both(["log", "--json", "--session", SESSION]);
    const tried = (text: string) => (JSON.parse(text) as { tried: string | null }[]).map((r) => r.tried);
    expect(tried(p)).to.deep.equal(tried(s));
    expect(tried(s)).to.include("rm -rf /").and.include("/etc/hosts");
  });

  it("qhooks log --json: each event's origin is this machine and user, the writer each backend's own log", async () => {
    const [s, p] = await both(["log", "--json", "--session", SESSION]);
    type Origin = { machine: string; user: string; writer: string; seq: number; host: string | null };
    const origins = (text: string) => (JSON.parse(text) as { seq: number; origin: Origin }[]).map((r) => ({ ...r.origin, at: r.seq }));
    const logId = readOnly(sb.db, (d) => (d.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value);
    expect(origins(s)).to.not.be.empty;
    for (const o of origins(s)) {
      expect(o).to.include({ machine: hostname(), user: userInfo().username, writer: logId, seq: o.at, host: "qoder" });
    }
    for (const o of origins(p)) expect(o).to.include({ machine: hostname(), user: userInfo().username, writer: `host:${hostname()}`, host: "qoder" });
  });

  it("qhooks log --project: the same records, and none of another project", async () => {
    const [s, p] = await both(["log", "--json", "--project", sb.project]);
    expect(normalized(JSON.parse(p))).to.deep.equal(normalized(JSON.parse(s)));
    expect(JSON.parse(s)).to.not.be.empty;
    const [none] = await both(["log", "--json", "--project", sb.root]);
    expect(JSON.parse(none)).to.deep.equal([]);
  });

  it("log, sessions and stats as tab-separated rows: the same but for times and durations", async () => {
    for (const [args, blank] of [
      [
        ["log", "--utc"],
        ["TIME", "MS"],
      ],
      [
        ["sessions", "--utc"],
        ["FIRST", "LAST"],
      ],
      [["stats"], ["P50", "P95", "P99"]],
    ] as const) {
      const [s, p] = await both([...args]);
      expect(blankColumns(p, blank), args.join(" ")).to.equal(blankColumns(s, blank));
    }
  });

  it("show of the blocked event: the same but for the chain (each names its own log)", async () => {
    const [blocked] = JSON.parse((await both(["log", "--json", "--blocked"]))[0]) as { seq: number }[];
    const [s, p] = await both(["show", String(blocked!.seq), "--json"]);
    const withoutChain = (text: string) => {
      const { chain, ...rest } = JSON.parse(text) as { chain: unknown };
      expect(chain).to.be.an("object");
      return normalized(rest);
    };
    expect(withoutChain(p)).to.deep.equal(withoutChain(s));
  });

  it("explain of the blocked event, and the usage ledger: the same on both", async () => {
    const [blocked] = JSON.parse((await both(["log", "--json", "--blocked"]))[0]) as { seq: number }[];
    const [s, p] = await both(["explain", String(blocked!.seq), "--json"]);
    expect(normalized(JSON.parse(p))).to.deep.equal(normalized(JSON.parse(s)));
    const [us, up] = await both(["hooks", "--usage", "--json"]);
    // Per-turn time is measured, so it differs by backend; the rest of the ledger is the same.
    const untimed = (text: string) => JSON.parse(text, (key, value) => (key === "msPerTurn" ? undefined : value));
    expect(normalized(untimed(up))).to.deep.equal(normalized(untimed(us)));
  });

  it("verify: the same", async () => {
    const [s, p] = await both(["verify"]);
    // Records written to PostgreSQL directly have no key: verify says their chain is checked by its links only.
    expect(p).to.equal(s.replace("records\n", "records (1 chain with no signed head: links only)\n"));
    expect(s).to.match(/^ok: \d+ records\n$/);
  });

  it("replay of a session against other settings: the same changes", async () => {
    const other = sb.file("allow-all.json", { hooks: {} });
    const [s, p] = await both(["replay", "--session", SESSION, "--settings", other, "--yes", "--json"]);
    expect(normalized(JSON.parse(p))).to.deep.equal(normalized(JSON.parse(s)));
    const [ls, lp] = await both(["replay", "--list", "--json"]);
    expect(normalized(JSON.parse(lp))).to.deep.equal(normalized(JSON.parse(ls)));
  });

  it("erase and prune: the same on both, and verify then says the same", async () => {
    const [s, p] = await both(["erase", "--session", SESSION, "--json"]);
    // What may be left differs by nature: a SQLite file is rewritten; PostgreSQL keeps old row versions (issue 21).
    const { leftovers: sqliteLeft, ...sqliteErased } = JSON.parse(s) as { leftovers: unknown[] };
    const { leftovers: pgLeft, ...pgErased } = JSON.parse(p) as { leftovers: unknown[] };
    expect(pgErased).to.deep.equal(sqliteErased);
    expect(JSON.parse(s).events).to.be.greaterThan(0);
    expect(sqliteLeft).to.deep.equal([]);
    expect(pgLeft).to.deep.equal([{ kind: "server-copies" }]);
    const [ls, lp] = await both(["log", "--json", "--limit", "all"]);
    expect(normalized(JSON.parse(lp))).to.deep.equal(normalized(JSON.parse(ls)));
    expect(lp).to.not.include("rm -rf /");
    const pick = (text: string) => {
      const { records, events } = JSON.parse(text) as { records: number; events: number };
      return { records, events };
    };
    const [ps, pp] = await both(["prune", "--before", "1d", "--json"]);
    expect(pick(pp)).to.deep.equal(pick(ps)).and.deep.equal({ records: 0, events: 0 });
    const [vs, vp] = await both(["verify"]);
    expect(vp).to.equal(vs.replace(" erased)", " erased; 1 chain with no signed head: links only)"));
    expect(vs).to.match(/^ok: \d+ records \(\d+ erased\)\n$/);
  });

  it("verify names the chain that breaks, and where: a record edited in the database", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ writer_id: string; seq: string }>(
        "SELECT writer_id, seq FROM qhooks_journal WHERE kind = 'event' ORDER BY gid LIMIT 1 OFFSET 2",
      );
      // A column every record's link covers, erased or not.
      await client.query("UPDATE qhooks_journal SET session_id = convert_to('edited', 'UTF8') WHERE writer_id = $1 AND seq = $2", [
        rows[0]!.writer_id,
        rows[0]!.seq,
      ]);
      const r = await sb.run(["verify", "--json"], { env: pgEnv() });
      expect(r.code).to.equal(3);
      const result = JSON.parse(r.stdout.split("\n")[0]!) as { ok: boolean; firstBad: number; chain: string; problem: string };
      expect(result).to.include({ ok: false, firstBad: Number(rows[0]!.seq), chain: rows[0]!.writer_id });
      expect(r.stderr.trim().split("\n")).to.have.length(1);
      expect(r.stderr).to.include(`chain ${rows[0]!.writer_id}`).and.include(`record ${rows[0]!.seq}`);
    } finally {
      await client.end();
    }
  });
});

describe("cli: PostgreSQL faults", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  before(() => {
    sb = new Sandbox();
    const guard = sb.script("guard.sh", `echo "refused" >&2; exit 2`);
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", guard)] } });
  });
  after(() => sb.cleanup());

  it("a server that is down: run still decides (a block stays a block), and says once that the log was not written", async () => {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "down" }), [], { QHOOKS_DB: "postgres://postgres@127.0.0.1:1/qhooks" });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include("refused");
    const allowed = await sb.runEvent("Stop", payloadFor("Stop", { session_id: "down" }), [], { QHOOKS_DB: "postgres://postgres@127.0.0.1:1/qhooks" });
    expect(allowed.code).to.equal(0);
    const lines = allowed.stderr.trim().split("\n");
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^qhooks: .*connection refused/);
  });

  it("a missing database, an unknown user, an empty database: one line each, exit 1", async () => {
    const empty = await createTestDatabase();
    try {
      for (const [url, says] of [
        ["postgres://postgres@127.0.0.1:5432/qhooks_no_such_db", /database "qhooks_no_such_db" does not exist/],
        ["postgres://no_such_user:secret@127.0.0.1:5432/postgres", /authentication failed/],
        [empty.url, /holds no qhooks log yet/],
      ] as const) {
        const r = await sb.run(["log"], { env: { QHOOKS_DB: url } });
        expect(r.code, url).to.equal(1);
        const lines = r.stderr.trim().split("\n");
        expect(lines, r.stderr).to.have.length(1);
        expect(lines[0]).to.match(says);
        expect(r.stderr, "no password shown").to.not.include("secret");
      }
    } finally {
      await empty.drop();
    }
  });
});
