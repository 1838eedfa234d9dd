import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { freezableProxy, type FreezableProxy } from "../support/freezableProxy.js";

type Json = Record<string, unknown>;

const RM = { ...payloadFor("PreToolUse"), tool_input: { command: "rm -rf /" } };
const fallbackLines = (outcome: Json | null): string[] => ((outcome?.warnings as string[] | undefined) ?? []).filter((w) => w.includes("fallback"));

/**
 * `qhooks run` with a central PostgreSQL log that stops answering: a real server behind a loopback proxy the test
 * freezes, and a second session that holds the chain's head. The guard's decision comes back within the deadline,
 * with one warning, and the event is kept in the local fallback log.
 */
describe("cli: a central PostgreSQL log that does not answer never holds a decision up", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let db: TestDatabase;
  let proxy: FreezableProxy;
  let admin: pg.Client;
  let fallback: string;
  const central = async (sql: string, values: unknown[] = []) => (await admin.query(sql, values)).rows as Json[];

  beforeEach(async () => {
    sb = new Sandbox();
    db = await createTestDatabase();
    const u = new URL(db.url);
    proxy = await freezableProxy({ host: u.hostname, port: Number(u.port || 5432) });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    fallback = join(sb.home, ".qhooks", "fallback.db");
    // The guard blocks `rm -rf`; it says when it starts (so that a test can freeze the network mid-dispatch).
    const guard = sb.script(
      "guard.sh",
      `touch '${join(sb.root, "guard-started")}'\nsleep 0.5\nif grep -q 'rm -rf'; then echo "rm -rf refused" >&2; exit 2; fi\nexit 0`,
    );
    sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } });
  });
  afterEach(async () => {
    await admin.end().catch(() => undefined);
    await proxy.close();
    await db.drop();
    await sb.cleanup();
  });

  const run = (payload: Json, env: Record<string, string> = {}) => sb.runEvent("PreToolUse", payload, [], { QHOOKS_DB: proxy.via(db.url), ...env });

  it("frozen before the event: exit 2 within the deadline, one fallback warning, the event in the fallback log", async () => {
    const first = await run(payloadFor("PreToolUse"));
    expect(first.code, first.stderr).to.equal(0);
    expect(first.outcome!.warnings).to.deep.equal([]);
    expect(existsSync(fallback)).to.equal(false);

    proxy.freeze();
    const r = await run(RM);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.ms).to.be.below(15_000);
    expect(r.outcome).to.include({ decision: "deny", blocked: true });
    expect(r.outcome!.warnings).to.have.length(1);
    expect(fallbackLines(r.outcome)).to.have.length(1);
    expect(fallbackLines(r.outcome)[0]).to.include(fallback).and.include(`127.0.0.1:${proxy.port}/${db.name}`);

    const local = await sb.run(["--db", fallback, "log", "--json"]);
    expect(local.code, local.stderr).to.equal(0);
    const events = JSON.parse(local.stdout) as Json[];
    expect(events.map((e) => [e.event, e.decision, e.blocked])).to.deep.equal([["PreToolUse", "deny", true]]);
    expect(await central("SELECT count(*)::int AS n FROM qhooks_events")).to.deep.equal([{ n: 1 }]);
  });

  it("an async hook of an event that went to the fallback log logs its result there, with its event", async () => {
    const done = join(sb.root, "async-done");
    sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `touch '${done}'`, async: true, name: "later" }] }] } });
    const warm = await run(payloadFor("PreToolUse"));
    expect(warm.code, warm.stderr).to.equal(0);
    proxy.freeze();
    const r = await run(payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(fallbackLines(r.outcome)).to.have.length(1);
    let record: Json | undefined;
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((res) => setTimeout(res, 100))) {
      const log = await sb.run(["--db", fallback, "log", "--json"]);
      record = (JSON.parse(log.stdout || "[]") as Json[])[0];
      if ((record?.asyncHooks as Json[] | undefined)?.length) break;
    }
    expect(record!.seq).to.equal(r.outcome!.seq);
    expect((record!.asyncHooks as Json[]).map((h) => h.name)).to.deep.equal(["later"]);
  });

  it("frozen mid-dispatch, after the arrival was logged: the outcome goes to the fallback log with its event, the block stands", async () => {
    const warm = await run(payloadFor("PreToolUse"));
    expect(warm.code, warm.stderr).to.equal(0);
    const started = join(sb.root, "guard-started");
    const { rmSync } = await import("node:fs");
    rmSync(started);
    const running = run(RM);
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 10));
    proxy.freeze();
    const r = await running;
    expect(r.code, r.stderr).to.equal(2);
    expect(r.ms).to.be.below(15_000);
    expect(r.outcome).to.include({ decision: "deny", blocked: true });
    expect(r.outcome!.warnings).to.have.length(1);
    expect(fallbackLines(r.outcome)[0]).to.include(fallback).and.include("which keeps its arrival, unfinished");

    // Central: the arrival, unfinished; fallback: the whole event with its outcome.
    const rows = await central("SELECT decision FROM qhooks_events ORDER BY gid");
    expect(rows.map((e) => e.decision)).to.deep.equal(["none", null]);
    const local = JSON.parse((await sb.run(["--db", fallback, "log", "--json"])).stdout) as Json[];
    expect(local.map((e) => [e.event, e.decision])).to.deep.equal([["PreToolUse", "deny"]]);
  });

  it("the chain's head locked by another session: exit 2 within the deadline, the event in the fallback log; unlocked, the central log takes events again", async () => {
    const env = { QHOOKS_WRITER: "locked-writer" };
    const warm = await run(payloadFor("PreToolUse"), env);
    expect(warm.code, warm.stderr).to.equal(0);
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT * FROM qhooks_writers WHERE writer_id = 'locked-writer' FOR UPDATE");
      const r = await run(RM, env);
      expect(r.code, r.stderr).to.equal(2);
      expect(r.ms).to.be.below(15_000);
      expect(r.outcome!.warnings).to.have.length(1);
      expect(fallbackLines(r.outcome)[0]).to.include(fallback).and.include("locked by another session");
      const local = JSON.parse((await sb.run(["--db", fallback, "log", "--json"])).stdout) as Json[];
      expect(local.map((e) => [e.event, e.decision])).to.deep.equal([["PreToolUse", "deny"]]);
    } finally {
      await holder.query("COMMIT").catch(() => undefined);
      await holder.end();
    }
    const after = await run(RM, env);
    expect(after.code, after.stderr).to.equal(2);
    expect(after.outcome!.warnings).to.deep.equal([]);
    expect(await central("SELECT count(*)::int AS n FROM qhooks_events")).to.deep.equal([{ n: 2 }]);
  });
});
