import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { QhooksError } from "../errors.js";

/**
 * A log's own key pair (Ed25519): what signs its chain heads, so that evidence taken from the log can be checked
 * by someone who holds only the public key. The private key is `<log>.key` (PKCS#8 PEM, 0600, owner only), the
 * public key `<log>.pub` (SPKI PEM); both are made on first use. A private key that others can read, or that
 * cannot be read, is refused: a key anyone could have copied signs nothing.
 */
export interface LogKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** Where the private key is kept. */
  readonly file: string;
  /** Whether this call made the pair. */
  readonly made: boolean;
}

export const keyFileOf = (log: string): string => `${log}.key`;
export const publicKeyFileOf = (log: string): string => `${log}.pub`;

/** The log's key pair, made now when there is none yet. */
export function logKeyPair(log: string): LogKeyPair {
  const file = keyFileOf(log);
  const made = makeKeyPair(log);
  const privateKey = readPrivateKey(file);
  return { privateKey, publicKey: createPublicKey(privateKey), file, made };
}

/** Writes a new pair unless the private key exists; true when it made one. */
function makeKeyPair(log: string): boolean {
  // Most calls find the key there: a pair is generated (milliseconds) only when there is none.
  if (existsSync(keyFileOf(log))) return false;
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  try {
    // O_EXCL: two processes making the pair at once never overwrite each other's key.
    writeFileSync(keyFileOf(log), privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new QhooksError("io", `cannot make the log's key ${keyFileOf(log)}: ${(e as Error).message}`, { cause: e });
  }
  writeFileSync(publicKeyFileOf(log), publicKey.export({ type: "spki", format: "pem" }), { mode: 0o644 });
  return true;
}

/** The private key, refused when its file is not private to its owner or cannot be read. */
export function readPrivateKey(file: string): KeyObject {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    throw new QhooksError("io", `cannot read the log's key ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new QhooksError(
        "io",
        `the log's key ${file} has mode ${mode.toString(8).padStart(4, "0")}: others may have copied it; chmod 600 it (or remove it and the .pub to make a new pair)`,
      );
    }
    let text: string;
    try {
      text = readFileSync(fd, "utf8");
    } catch (e) {
      throw new QhooksError("io", `cannot read the log's key ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
    }
    try {
      const key = createPrivateKey(text);
      if (key.asymmetricKeyType !== "ed25519") throw new Error(`a ${key.asymmetricKeyType} key, not Ed25519`);
      return key;
    } catch (e) {
      throw new QhooksError("io", `the log's key ${file} is not an Ed25519 private key: ${(e as Error).message.split("\n", 1)[0]}`, { cause: e });
    }
  } finally {
    closeSync(fd);
  }
}

/** A public key as evidence carries it: its SPKI DER bytes in base64. */
export const publicKeyText = (key: KeyObject): string => key.export({ type: "spki", format: "der" }).toString("base64");

/** A short name for a public key: `ed25519:` and the first 16 hex digits of the sha256 of its SPKI DER bytes. */
export const keyFingerprint = (publicKeyBase64: string): string =>
  `ed25519:${createHash("sha256").update(Buffer.from(publicKeyBase64, "base64")).digest("hex").slice(0, 16)}`;

/** What a signed head signs: the log, the head record's seq and hash, and when it was signed. */
export const signedHeadText = (head: { readonly log: string; readonly seq: number; readonly hash: string; readonly time: string }): string =>
  `qhooks.evidence/1 head\n${head.log}\n${head.seq}\n${head.hash}\n${head.time}`;

/** The head signed with the log's private key: the signature in base64. */
export const signHead = (key: KeyObject, head: Parameters<typeof signedHeadText>[0]): string =>
  sign(null, Buffer.from(signedHeadText(head), "utf8"), key).toString("base64");
