import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPairSync, sign } from "node:crypto";
import { expect } from "chai";
import type { Evidence } from "../../src/schema/evidence.js";
import { publicKeyText, signedHeadText } from "../../src/store/logKey.js";
import { checkEvidence, verifyEvidence } from "../../src/export/verifyEvidence.js";
import { verdictLines } from "../../src/cli/commands/evidence.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { nonEmptyLines, sqlite3 } from "../store/storeHelpers.js";

/** Issue 27: evidence of a session that verifies with nothing else, and every tampering named in one line. */
describe("evidence: qhooks export --evidence, qhooks verify --evidence", () => {
  let sb: Sandbox;
  let file: string;
  let pristine: Evidence;
  let sessionA: number[];
  let erasedSeq: number;
  let files = 0;

  before(async () => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; exit 0", name: "reader" })] } });
    for (const [session, word] of [
      ["a", "one"],
      ["b", "two"],
      ["a", "three"],
      ["b", "four"],
      ["a", "five"],
    ] as const) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: session, tool_input: { command: `echo ${word}` } }), ["--db", sb.db]);
      expect(r.code, r.stderr).to.equal(0);
    }
    sessionA = sqlite3(sb.db, "SELECT seq FROM journal WHERE kind = 'event' AND session_id = 'a' ORDER BY seq").trim().split("\n").map(Number);
    erasedSeq = sessionA[1]!;
    const erase = await sb.run(["--db", sb.db, "erase", "--seq", String(erasedSeq), "--why", "test"]);
    expect(erase.code, erase.stderr).to.equal(0);
    file = join(sb.root, "a.json");
    const r = await sb.run(["--db", sb.db, "export", "--evidence", file, "--session", "a"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^wrote .*a\.json: \d+ records and the head \(record \d+\) signed by key ed25519:[0-9a-f]{16}/);
    expect(r.stderr).to.include("made the log's key pair");
    pristine = JSON.parse(readFileSync(file, "utf8")) as Evidence;
  });
  after(() => sb.cleanup());

  /** A changed copy of the evidence, written to its own file. */
  function tampered(change: (e: Evidence) => void, raw?: (text: string) => string): string {
    const copy = structuredClone(pristine);
    change(copy);
    const target = join(sb.root, `tampered-${++files}.json`);
    const text = JSON.stringify(copy, null, 1);
    writeFileSync(target, raw ? raw(text) : text);
    return target;
  }

  /** `qhooks verify --evidence` with no log at all (a database path that does not exist). */
  const verify = (target: string, ...args: string[]) => sb.run(["--db", join(sb.root, "no-such", "log.db"), "verify", "--evidence", target, ...args]);

  async function expectRejected(target: string, pattern: RegExp, ...args: string[]) {
    const r = await verify(target, ...args);
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stdout).to.equal("");
    const lines = nonEmptyLines(r.stderr);
    expect(lines, r.stderr).to.have.length(1);
    expect(lines[0])
      .to.match(/^qhooks: evidence .* fails: /)
      .and.match(pattern);
  }

  it("holds session a's records whole (events, outcomes, the erasure), the others as links, up to the signed head", () => {
    const records = pristine.chain.filter((e) => "record" in e).map((e) => ("record" in e ? e.record : null)!);
    for (const seq of sessionA) expect(records.map((r) => r.seq)).to.include(seq);
    expect(records.filter((r) => r.kind === "event").every((r) => r.session_id === "a")).to.equal(true);
    expect(records.some((r) => r.kind === "outcome")).to.equal(true);
    expect(records.some((r) => r.kind === "erasure" && r.ref === erasedSeq)).to.equal(true);
    const text = JSON.stringify(pristine);
    expect(text).not.to.include("echo two").and.not.to.include("echo four").and.not.to.include("echo three");
    expect(text).to.include("echo one");
    const head = Number(sqlite3(sb.db, "SELECT max(seq) FROM journal").trim());
    expect(pristine.head.seq).to.equal(head);
    expect(pristine.from.seq).to.equal(sessionA[0]! - 1);
  });

  it("verifies offline, and says what it proves and what it does not", async () => {
    const r = await verify(file);
    expect(r.code, r.stderr).to.equal(0);
    const lines = nonEmptyLines(r.stdout);
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(
      /^ok: \d+ records of log .* \(session a\), records \d+ to \d+, in this order, unaltered since the head \(record \d+\) was signed at .* by key ed25519:/,
    );
    expect(lines[0]).to.include("as the file itself names it");
    expect(lines[1])
      .to.match(/^proves: /)
      .and.include(`records ${erasedSeq}`);
    expect(lines[2])
      .to.match(/^does not prove: /)
      .and.include("complete");
    const pinned = await verify(file, "--key", `${sb.db}.pub`);
    expect(pinned.code, pinned.stderr).to.equal(0);
    expect(pinned.stdout).to.include("the key given with --key");
    const json = await verify(file, "--key", pristine.head.publicKey, "--json");
    expect(json.code, json.stderr).to.equal(0);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; keyPinned: boolean; erased: number[] };
    expect(parsed).to.deep.include({ ok: true, keyPinned: true });
    // The event and its outcome record.
    expect(parsed.erased).to.include(erasedSeq).and.have.length(2);
  });

  const firstRecordIndex = () => pristine.chain.findIndex((e) => "record" in e && e.record.kind === "event");

  it("a record changed: named", async () => {
    const i = firstRecordIndex();
    const seq = sessionA[0]!;
    await expectRejected(
      tampered((e) => {
        const entry = e.chain[i]!;
        if ("record" in entry) entry.record.body = entry.record.body.replace("echo one", "echo ONE");
      }),
      new RegExp(`record ${seq} \\(event\\) does not match its hash`),
    );
    await expectRejected(
      tampered((e) => {
        const entry = e.chain[i]!;
        if ("record" in entry) entry.record.decision = "deny";
      }),
      new RegExp(`record ${seq} \\(event\\) does not match its hash`),
    );
  });

  it("a record removed: named as missing", async () => {
    const seq = sessionA[0]! + 1;
    await expectRejected(
      tampered((e) => e.chain.splice(1, 1)),
      new RegExp(`record ${seq} is missing`),
    );
  });

  it("two records swapped: named as reordered; renumbered to hide it, the hash names it", async () => {
    await expectRejected(
      tampered((e) => {
        [e.chain[0], e.chain[1]] = [e.chain[1]!, e.chain[0]!];
      }),
      new RegExp(`record ${pristine.from.seq + 1} comes after record ${pristine.from.seq + 2}: reordered`),
    );
    await expectRejected(
      tampered((e) => {
        const [i, j] = e.chain.flatMap((x, k) => ("record" in x ? [k] : []));
        const [a, b] = [e.chain[i!]!, e.chain[j!]!];
        if (!("record" in a && "record" in b)) throw new Error("expected two records");
        [a.record.seq, b.record.seq] = [b.record.seq, a.record.seq];
        [e.chain[i!], e.chain[j!]] = [b, a];
      }),
      /does not match its hash/,
    );
  });

  it("the head re-signed with another key: fails against --key, and a signature that is not its key's fails anyway", async () => {
    const other = generateKeyPairSync("ed25519");
    const resign = (e: Evidence) => {
      e.head.publicKey = publicKeyText(other.publicKey);
      e.head.signature = sign(null, Buffer.from(signedHeadText({ log: e.log, ...e.head })), other.privateKey).toString("base64");
    };
    await expectRejected(tampered(resign), /signed by key ed25519:[0-9a-f]{16}, not by the key given/, "--key", `${sb.db}.pub`);
    await expectRejected(
      tampered((e) => {
        e.head.publicKey = publicKeyText(other.publicKey);
      }),
      /the head's signature is not that of key/,
    );
    await expectRejected(
      tampered((e) => {
        e.head.time = "2020-01-01T00:00:00.000Z";
      }),
      /the head's signature is not that of key/,
    );
  });

  it("a wrong --key: named; a --key that is no key: one line, exit 1", async () => {
    const other = generateKeyPairSync("ed25519");
    const pub = join(sb.root, "other.pub");
    writeFileSync(pub, other.publicKey.export({ type: "spki", format: "pem" }));
    await expectRejected(file, /not by the key given/, "--key", pub);
    const r = await verify(file, "--key", "not-a-key");
    expect(r.code).to.equal(1);
    expect(nonEmptyLines(r.stderr)).to.have.length(1);
    expect(r.stderr).to.match(/^qhooks: --key not-a-key: not an Ed25519 public key/);
  });

  it("a truncated file, or a chain cut short of its head: named", async () => {
    await expectRejected(
      tampered(
        () => undefined,
        (text) => text.slice(0, Math.floor(text.length / 2)),
      ),
      /not JSON, or cut short/,
    );
    await expectRejected(
      tampered((e) => e.chain.pop()),
      /the chain ends at record \d+, not at the signed head/,
    );
    await expectRejected(
      tampered((e) => {
        delete (e as Partial<Evidence>).head;
      }),
      /not a qhooks\.evidence\/1 file .*head/,
    );
  });

  it("an erased record's claimed digests changed, or its erasure claimed for an intact record: named", async () => {
    await expectRejected(
      tampered((e) => {
        const entry = e.chain.find((x) => "record" in x && x.record.seq === erasedSeq)!;
        if ("erased" in entry && entry.erased) entry.erased.body = "0".repeat(64);
      }),
      new RegExp(`record ${erasedSeq} \\(event\\) does not match its hash`),
    );
    await expectRejected(
      tampered((e) => {
        const entry = e.chain.find((x) => "record" in x && x.record.seq === erasedSeq)!;
        if ("record" in entry) entry.record.body = '{"tool_input":{"command":"echo harmless"}}';
      }),
      new RegExp(`record ${erasedSeq} \\(event\\) is shown as erased but holds text that is not erased`),
    );
  });

  it("a private key file others can read (0644) is refused in one line, and nothing is written", async () => {
    const key = `${sb.db}.key`;
    chmodSync(key, 0o644);
    try {
      const target = join(sb.root, "refused.json");
      const r = await sb.run(["--db", sb.db, "export", "--evidence", target, "--session", "a"]);
      expect(r.code).to.equal(1);
      expect(nonEmptyLines(r.stderr)).to.have.length(1);
      expect(r.stderr).to.include(key).and.include("0644");
      expect(() => readFileSync(target)).to.throw();
    } finally {
      chmodSync(key, 0o600);
    }
  });

  it("usage: no matching event, --otlp with --evidence, another filter: one line each", async () => {
    for (const [args, pattern] of [
      [["--session", "nobody"], /no event matches/],
      [["--session", "a", "--otlp", "http://127.0.0.1:1"], /choose one/],
      [["--session", "a", "--decision", "deny"], /--session, --since and --writer only \(not --decision\)/],
    ] as const) {
      const r = await sb.run(["--db", sb.db, "export", "--evidence", join(sb.root, "x.json"), ...args]);
      expect(r.code, r.stderr).to.equal(1);
      expect(nonEmptyLines(r.stderr), r.stderr).to.have.length(1);
      expect(r.stderr).to.match(pattern);
    }
  });

  it("in process: verifyEvidence and checkEvidence agree, and verdictLines says what is and is not proven", () => {
    const text = readFileSync(file, "utf8");
    const verdict = verifyEvidence(text, null);
    expect(verdict.ok).to.equal(true);
    expect(checkEvidence(pristine, pristine.head.publicKey)).to.deep.include({ ok: true, keyPinned: true });
    if (verdict.ok) expect(verdictLines(verdict).map((l) => l.split(":")[0])).to.deep.equal(["ok", "proves", "does not prove"]);
  });

  it("a later export carries the heads signed earlier after the records: unaltered since the first of them", async () => {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "b", tool_input: { command: "echo six" } }), ["--db", sb.db]);
    expect(r.code, r.stderr).to.equal(0);
    const later = join(sb.root, "later.json");
    const exported = await sb.run(["--db", sb.db, "export", "--evidence", later, "--session", "a"]);
    expect(exported.code, exported.stderr).to.equal(0);
    const evidence = JSON.parse(readFileSync(later, "utf8")) as Evidence;
    expect(evidence.checkpoints?.map((c) => c.seq)).to.deep.equal([pristine.head.seq]);
    expect(evidence.head.seq).to.be.greaterThan(pristine.head.seq);
    const v = await verify(later, "--key", `${sb.db}.pub`);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include(`unaltered since the head (record ${pristine.head.seq}) was signed at ${pristine.head.time}`);
    expect(v.stdout).to.include(`(and the head at record ${evidence.head.seq} at ${evidence.head.time})`);
    const target = join(sb.root, "later-tampered.json");
    const bad = structuredClone(evidence);
    bad.checkpoints![0]!.time = "2020-01-01T00:00:00.000Z";
    writeFileSync(target, JSON.stringify(bad));
    await expectRejected(target, new RegExp(`the head signed at record ${pristine.head.seq} has a signature that is not its key's`));
    bad.checkpoints![0]!.hash = "0".repeat(64);
    writeFileSync(target, JSON.stringify(bad));
    await expectRejected(target, /does not match the chain: altered/);
  });
});
