import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { QhooksError, messageOf } from "../errors.js";

/**
 * The server's secret: made once, kept in a 0600 file of a 0700 folder, stable across restarts (installed hooks
 * send it). Written to a temporary file and linked into place, so that two servers or `--ensure`s starting at once
 * agree on one secret and never read a half-written one.
 */
export function readOrCreateToken(path: string): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    return readToken(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  try {
    linkSync(temporary, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new QhooksError("io", `cannot write the server's secret ${path}: ${messageOf(e)}`);
  } finally {
    unlinkSync(temporary);
  }
  return readToken(path);
}

/**
 * `qhooks serve --rotate-token`: a new secret, replacing the file in one step (a reader sees the old secret or the
 * new one, never half of one). A running server reads it at its next request (tokenReader); the old one is refused.
 */
export function rotateToken(path: string): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  try {
    renameSync(temporary, path);
  } catch (e) {
    unlinkSync(temporary);
    throw new QhooksError("io", `cannot write the server's secret ${path}: ${messageOf(e)}`);
  }
  return readToken(path);
}

/**
 * The secret as the file holds it now, for a running server: the file is stat'ed per call and read again only when
 * it was replaced or changed. A file that cannot be read (removed, opened to others) keeps the last good secret,
 * said once per change on `warn`.
 */
export function tokenReader(path: string, initial: string, warn: (line: string) => void): () => string {
  let token = initial;
  let stamp = stampOf(path);
  return () => {
    const now = stampOf(path);
    if (now === stamp) return token;
    stamp = now;
    try {
      token = readToken(path);
    } catch (e) {
      warn(`the server's secret ${path} cannot be read (${messageOf(e)}); the server keeps the secret it had`);
    }
    return token;
  };
}

function stampOf(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.mtimeMs}:${s.size}:${s.mode}`;
  } catch {
    return "missing";
  }
}

/** The secret of an existing file; refused when others could read or replace it. */
function readToken(path: string): string {
  const stat = statSync(path);
  if ((stat.mode & 0o077) !== 0) throw new QhooksError("io", `the server's secret ${path} is open to other users; run: chmod 600 ${path}`);
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) throw new QhooksError("io", `the server's secret ${path} belongs to another user`);
  const token = readFileSync(path, "utf8").trim();
  if (token.length < 32) throw new QhooksError("io", `the server's secret ${path} is too short; delete it and start the server again`);
  return token;
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/**
 * The secret's digest, kept for the secret it was made from: every request compares against it, and the secret
 * changes only when rotated (then the next request makes it anew). Compared by value, the server's own secret
 * against its own: no caller's text takes part.
 */
let known: { readonly token: string; readonly digest: Buffer } | null = null;
function digestOfSecret(token: string): Buffer {
  if (known?.token !== token) known = { token, digest: digest(token) };
  return known.digest;
}

/** Whether a presented secret is the secret, in time that does not depend on where they differ. */
export const sameToken = (presented: string, token: string): boolean => timingSafeEqual(digest(presented), digestOfSecret(token));

/** The proof that a server holds the secret, for one challenge: no caller learns the secret from it. */
export const proofOf = (token: string, challenge: string): string => createHmac("sha256", token).update(`qhooks serve health\n${challenge}`).digest("hex");

/** Whether a proof answers a challenge. */
export function provesToken(proof: string, token: string, challenge: string): boolean {
  const expected = Buffer.from(proofOf(token, challenge), "hex");
  const given = Buffer.from(proof, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
