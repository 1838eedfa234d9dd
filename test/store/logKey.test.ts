import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicKey, verify } from "node:crypto";
import { expect } from "chai";
import { QhooksError } from "../../src/errors.js";
import { keyFileOf, keyFingerprint, logKeyPair, publicKeyFileOf, publicKeyText, readPrivateKey, signedHeadText, signHead } from "../../src/store/logKey.js";
import { Sandbox } from "../support/sandbox.js";

describe("a log's key pair (Ed25519, <log>.key 0600 and <log>.pub)", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const refusal = (run: () => unknown): QhooksError => {
    try {
      run();
    } catch (e) {
      expect(e).to.be.instanceOf(QhooksError);
      expect((e as Error).message).not.to.include("\n");
      return e as QhooksError;
    }
    throw new Error("not refused");
  };

  it("is made on first use, private key 0600, and read back the same next time", () => {
    const first = logKeyPair(sb.db);
    expect(first.made).to.equal(true);
    expect(first.file).to.equal(keyFileOf(sb.db));
    expect(statSync(keyFileOf(sb.db)).mode & 0o777).to.equal(0o600);
    const pub = createPublicKey(readFileSync(publicKeyFileOf(sb.db), "utf8"));
    expect(publicKeyText(pub)).to.equal(publicKeyText(first.publicKey));
    const second = logKeyPair(sb.db);
    expect(second.made).to.equal(false);
    expect(publicKeyText(second.publicKey)).to.equal(publicKeyText(first.publicKey));
    expect(keyFingerprint(publicKeyText(pub))).to.match(/^ed25519:[0-9a-f]{16}$/);
  });

  it("signs a head that the public key alone verifies, and no other head", () => {
    const pair = logKeyPair(sb.db);
    const head = { log: "L", seq: 7, hash: "ab".repeat(32), time: "2026-12-05T06:00:00.000Z" };
    const signature = Buffer.from(signHead(pair.privateKey, head), "base64");
    expect(verify(null, Buffer.from(signedHeadText(head)), pair.publicKey, signature)).to.equal(true);
    expect(verify(null, Buffer.from(signedHeadText({ ...head, seq: 8 })), pair.publicKey, signature)).to.equal(false);
  });

  it("refuses a private key others can read (0644), in one line naming the file and its mode", () => {
    logKeyPair(sb.db);
    chmodSync(keyFileOf(sb.db), 0o644);
    const e = refusal(() => logKeyPair(sb.db));
    expect(e.message).to.include(keyFileOf(sb.db)).and.include("0644").and.include("chmod 600");
  });

  it("refuses a key file that cannot be read (a folder, a symbolic link, not a key)", () => {
    mkdirSync(keyFileOf(sb.db), { mode: 0o700 });
    expect(refusal(() => logKeyPair(sb.db)).message)
      .to.include("cannot read the log's key")
      .and.include("EISDIR");
    const link = join(sb.root, "link.key");
    symlinkSync(keyFileOf(sb.db), link);
    expect(refusal(() => readPrivateKey(link)).message)
      .to.include("cannot read the log's key")
      .and.include("ELOOP");
    const junk = join(sb.root, "junk.key");
    writeFileSync(junk, "not a key", { mode: 0o600 });
    expect(refusal(() => readPrivateKey(junk)).message).to.include("not an Ed25519 private key");
  });
});
