import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { Evidence } from "../../src/schema/evidence.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase, withClient } from "../support/postgres.js";
import { nonEmptyLines, sqlite3 } from "../store/storeHelpers.js";

/**
 * Two laptops (two HOMEs, two logs) ship to one fresh database; evidence of one laptop's session is taken from the
 * central database, and verifies with nothing but the file and that laptop's public key.
 */
describe("evidence from the central database: export --evidence on postgres://, one writer's chain", function () {
  this.timeout(180_000);
  const laptops: Sandbox[] = [];
  let db: TestDatabase;
  let idA: string;
  let idB: string;
  let root: Sandbox;

  const run = async (laptop: Sandbox, session: string, word: string) => {
    const r = await laptop.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: session, tool_input: { command: `echo ${word}` } }));
    expect(r.code, r.stderr).to.equal(0);
  };
  const ship = async (laptop: Sandbox) => {
    const r = await laptop.run(["ship", "--to", db.url]);
    expect(r.code, r.stderr).to.equal(0);
  };
  const central = (args: string[]) => root.run(["export", ...args], { env: { QHOOKS_DB: db.url } });
  /** verify --evidence with no log and no database anywhere near. */
  const offline = (file: string, ...args: string[]) => root.run(["--db", join(root.root, "none", "x.db"), "verify", "--evidence", file, ...args]);
  const logId = (laptop: Sandbox) => sqlite3(laptop.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim();

  before(async () => {
    db = await createTestDatabase();
    root = new Sandbox();
    for (let i = 0; i < 2; i++) {
      const laptop = new Sandbox();
      laptop.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; exit 0", name: "reader" })] } });
      laptops.push(laptop);
    }
    const [a, b] = laptops as [Sandbox, Sandbox];
    await run(a, "a1", "one");
    await run(b, "b1", "two");
    await run(a, "a2", "three");
    await run(a, "a1", "four");
    await ship(a);
    await ship(b);
    // After the first ship: a later head signed by A, so the file carries the earlier one as a checkpoint.
    await run(a, "a2", "five");
    await run(b, "b1", "six");
    await ship(a);
    await ship(b);
    idA = logId(a);
    idB = logId(b);
  });
  after(async () => {
    for (const s of [...laptops, root]) await s.cleanup();
    await db.drop();
  });

  it("one laptop's session: written from the central database, verified offline with that laptop's key; the records are the laptop's own", async () => {
    const file = join(root.root, "a1.json");
    const r = await central(["--evidence", file, "--session", "a1"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(
      new RegExp(`^wrote .*a1\\.json: 4 records of writer ${idA} and the head \\(record \\d+\\) it signed at \\S+ with key ed25519:[0-9a-f]{16}`),
    );
    const evidence = JSON.parse(readFileSync(file, "utf8")) as Evidence;
    expect(evidence.log).to.equal(idA);
    expect(evidence.checkpoints?.length).to.equal(1);
    const v = await offline(file, "--key", `${laptops[0]!.db}.pub`);
    expect(v.code, v.stderr).to.equal(0);
    const lines = nonEmptyLines(v.stdout);
    expect(lines[0]).to.match(
      new RegExp(
        `^ok: 4 records of log ${idA} \\(session a1\\), records \\d+ to \\d+, in this order, unaltered since the head \\(record \\d+\\) was signed at`,
      ),
    );
    expect(lines[0]).to.include("the key given with --key").and.include("(and the head at record");
    // The same records as the laptop's own evidence of that session gives.
    const local = join(root.root, "a1-local.json");
    const l = await laptops[0]!.run(["export", "--evidence", local, "--session", "a1"]);
    expect(l.code, l.stderr).to.equal(0);
    const records = (e: Evidence) => e.chain.filter((x) => "record" in x);
    expect(records(JSON.parse(readFileSync(local, "utf8")) as Evidence)).to.deep.equal(records(evidence));
    // Another laptop's key: refused.
    const other = await offline(file, "--key", `${laptops[1]!.db}.pub`);
    expect(other.code).to.equal(3);
    expect(other.stderr).to.include("re-signed by someone else");
  });

  it("a tampered copy fails offline: a record changed, one removed, the head's seq moved", async () => {
    const file = join(root.root, "a2.json");
    const r = await central(["--evidence", file, "--session", "a2"]);
    expect(r.code, r.stderr).to.equal(0);
    const pristine = JSON.parse(readFileSync(file, "utf8")) as Evidence;
    const cases: [(e: Evidence) => void, RegExp][] = [
      [
        (e) => {
          const entry = e.chain.find((x) => "record" in x && x.record.kind === "event") as { record: { match_value: string | null } };
          entry.record.match_value = "Write";
        },
        /record \d+ \(event\) does not match its hash: altered/,
      ],
      [(e) => e.chain.splice(1, 1), /record \d+ is missing \(the next one is \d+\): removed|comes after/],
      [(e) => void (e.head.seq += 1), /cut short|signature is not that of key/],
    ];
    for (const [i, [change, pattern]] of cases.entries()) {
      const copy = structuredClone(pristine);
      change(copy);
      const target = join(root.root, `a2-tampered-${i}.json`);
      writeFileSync(target, JSON.stringify(copy));
      const v = await offline(target, "--key", `${laptops[0]!.db}.pub`);
      expect(v.code, v.stdout).to.equal(3);
      expect(nonEmptyLines(v.stderr)).to.have.length(1);
      expect(v.stderr).to.match(pattern);
    }
  });

  it("several writers hold matching events: one line listing them; --writer chooses; an unknown --writer lists the writers", async () => {
    const r = await central(["--evidence", join(root.root, "all.json"), "--since", "1d"]);
    expect(r.code).to.equal(1);
    expect(nonEmptyLines(r.stderr)).to.have.length(1);
    expect(r.stderr).to.include("choose one with --writer").and.include(idA).and.include(idB);
    const file = join(root.root, "b.json");
    const b = await central(["--evidence", file, "--since", "1d", "--writer", idB]);
    expect(b.code, b.stderr).to.equal(0);
    const v = await offline(file, "--key", `${laptops[1]!.db}.pub`);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include(`of log ${idB}`);
    const unknown = await central(["--evidence", file, "--writer", "nobody"]);
    expect(unknown.code).to.equal(1);
    expect(nonEmptyLines(unknown.stderr)).to.have.length(1);
    expect(unknown.stderr).to.include("--writer nobody: no such writer").and.include(idA).and.include(idB);
    // --writer on a laptop's log: one line.
    const local = await laptops[0]!.run(["export", "--evidence", file, "--writer", idA]);
    expect(local.code).to.equal(1);
    expect(local.stderr).to.include("--writer chooses a chain of the central database");
  });

  it("a central row edited by hand: nothing is written, one line; a chain written directly: one line, why not", async () => {
    const file = join(root.root, "edited.json");
    await withClient(db.url, (c) =>
      c.query("UPDATE qhooks_journal SET match_value = $2 WHERE writer_id = $1 AND kind = 'event' AND session_id = $3", [
        idB,
        Buffer.from("Write"),
        Buffer.from("b1"),
      ]),
    );
    const r = await central(["--evidence", file, "--session", "b1"]);
    expect(r.code).to.equal(3);
    expect(nonEmptyLines(r.stderr)).to.have.length(1);
    expect(r.stderr).to.include(`writer ${idB}'s chain here does not lead to the head its writer signed`).and.include("does not match its hash");
    expect(() => readFileSync(file)).to.throw();
    // A machine writing to the database directly: its chain has no key.
    const direct = await laptops[0]!.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "d1" }), [], { QHOOKS_DB: db.url });
    expect(direct.code, direct.stderr).to.equal(0);
    const d = await central(["--evidence", file, "--session", "d1"]);
    expect(d.code).to.equal(1);
    expect(nonEmptyLines(d.stderr)).to.have.length(1);
    expect(d.stderr).to.include("writes to this database directly");
  });
});
