import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { Evidence } from "../../src/schema/evidence.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase, withClient } from "../support/postgres.js";
import { nonEmptyLines } from "../store/storeHelpers.js";

/**
 * A laptop's session shipped to a fresh database, one of its events erased there (`erase` on the central log, not
 * on the laptop): evidence of the session is still written, verifies offline with the laptop's key like a record
 * erased on the laptop (its digests kept, its text gone), and says which records were erased there, on whose word.
 */
describe("evidence of a record erased on the central database", function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let laptop: Sandbox;
  let root: Sandbox;
  let file: string;
  let erasedSeqs: number[];

  const central = (args: string[]) => root.run(args, { env: { QHOOKS_DB: db.url } });
  const offline = (path: string, ...args: string[]) => root.run(["--db", join(root.root, "none", "x.db"), "verify", "--evidence", path, ...args]);
  const key = () => `${laptop.db}.pub`;

  before(async () => {
    db = await createTestDatabase();
    root = new Sandbox();
    laptop = new Sandbox();
    laptop.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; exit 0", name: "reader" })] } });
    for (const word of ["one", "secret-two", "three"]) {
      const r = await laptop.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s1", tool_input: { command: `echo ${word}` } }));
      expect(r.code, r.stderr).to.equal(0);
    }
    const s = await laptop.run(["ship", "--to", db.url]);
    expect(s.code, s.stderr).to.equal(0);
    const r = await central(["erase", "--pattern", "secret-two", "--why", "a secret in a command"]);
    expect(r.code, r.stderr).to.equal(0);
    // The records erased: the event and its outcome and hook records, in the laptop's numbering.
    erasedSeqs = await withClient(db.url, async (c) => {
      const { rows } = await c.query<{ seq: string }>(
        "SELECT j.seq FROM qhooks_journal j WHERE EXISTS (SELECT 1 FROM qhooks_journal x WHERE x.kind = 'erasure' AND x.ref_gid = j.gid) ORDER BY j.seq",
      );
      return rows.map((row) => Number(row.seq));
    });
    expect(erasedSeqs.length).to.be.at.least(2);
    file = join(root.root, "s1.json");
    const e = await central(["export", "--evidence", file, "--session", "s1"]);
    expect(e.code, e.stderr).to.equal(0);
  });
  after(async () => {
    laptop.cleanup();
    root.cleanup();
    await db.drop();
  });

  it("written: the erased records without their text, their erasure records beside the chain; the secret is nowhere in the file", () => {
    const text = readFileSync(file, "utf8");
    expect(text).to.not.include("secret-two");
    const evidence = JSON.parse(text) as Evidence;
    const erased = evidence.chain.filter((e) => "record" in e && e.erased).map((e) => ("record" in e ? e.record.seq : 0));
    expect(erased).to.deep.equal(erasedSeqs);
    expect(evidence.erasedHere?.map((e) => (JSON.parse(e.record.body) as { seq: number }).seq)).to.deep.equal(erasedSeqs);
    for (const e of evidence.erasedHere ?? []) expect(e.record.kind).to.equal("erasure");
  });

  it("verifies offline with the laptop's key, like a record erased on the laptop, and names the records erased here", async () => {
    const v = await offline(file, "--key", key());
    expect(v.code, v.stderr).to.equal(0);
    const lines = nonEmptyLines(v.stdout);
    expect(lines[0]).to.match(/^ok: \d+ records of log /);
    expect(lines[1]).to.include(`${erasedSeqs.length} of them erased (records ${erasedSeqs.join(", ")}: their text is gone, the digests it had are kept)`);
    const here = lines.find((l) => l.startsWith("erased on the central database"));
    expect(here, v.stdout).to.not.equal(undefined);
    // One erase: its records in one group, with the erasing writer and its time.
    expect(here).to.match(new RegExp(`: records ${erasedSeqs.join(", ")} by writer \\S+ at \\S+Z; `));
    expect(here).to.include("who erased it and when is that database's word");
    const json = await offline(file, "--key", key(), "--json");
    const verdict = JSON.parse(json.stdout) as { erased: number[]; erasedHere: { seq: number }[] };
    expect(verdict.erased).to.deep.equal(erasedSeqs);
    expect(verdict.erasedHere.map((e) => e.seq)).to.deep.equal(erasedSeqs);
  });

  const tampered = async (edit: (e: Evidence) => void): Promise<{ code: number | null; line: string }> => {
    const evidence = JSON.parse(readFileSync(file, "utf8")) as Evidence;
    edit(evidence);
    const path = join(root.root, "tampered.json");
    writeFileSync(path, JSON.stringify(evidence));
    const v = await offline(path, "--key", key());
    expect(nonEmptyLines(v.stderr), v.stderr).to.have.length(1);
    return { code: v.code, line: v.stderr };
  };

  it("tampered: the erasure records beside the chain removed, their digests changed, or naming another log: each fails in one line", async () => {
    let r = await tampered((e) => delete (e as { erasedHere?: unknown }).erasedHere);
    expect(r.code).to.equal(3);
    expect(r.line).to.include(`record ${erasedSeqs[0]} is shown as erased, but no erasure record in the file keeps the digests it claims`);
    r = await tampered((e) => {
      const note = e.erasedHere![0]!.record;
      const body = JSON.parse(note.body) as { parts: { body: string } };
      body.parts.body = "0".repeat(64);
      (note as { body: string }).body = JSON.stringify(body);
    });
    expect(r.code).to.equal(3);
    expect(r.line).to.include("no erasure record in the file keeps the digests it claims");
    r = await tampered((e) => {
      const note = e.erasedHere![0]!.record;
      (note as { body: string }).body = JSON.stringify({ ...(JSON.parse(note.body) as object), chain: "another-log" });
    });
    expect(r.code).to.equal(3);
    expect(r.line).to.match(/the erasure record beside the chain \(writer .*\) is not one of a record of log/);
    // An erasure record beside the chain for a record the file shows whole: someone claims an erasure that is not.
    r = await tampered((e) => {
      const shown = e.chain.find((x) => "record" in x && !x.erased && x.record.kind === "event");
      const note = e.erasedHere![0]!.record;
      const seq = "record" in shown! ? shown.record.seq : 0;
      e.erasedHere!.push({ writer: e.erasedHere![0]!.writer, record: { ...note, body: JSON.stringify({ ...(JSON.parse(note.body) as object), seq }) } });
    });
    expect(r.code).to.equal(3);
    expect(r.line).to.include("which the file does not show as erased once: altered");
  });
});
