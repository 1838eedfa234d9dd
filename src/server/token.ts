import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
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

/** Whether a presented secret is the secret, in time that does not depend on where they differ. */
export const sameToken = (presented: string, token: string): boolean => timingSafeEqual(digest(presented), digest(token));

/** The proof that a server holds the secret, for one challenge: no caller learns the secret from it. */
export const proofOf = (token: string, challenge: string): string => createHmac("sha256", token).update(`qhooks serve health\n${challenge}`).digest("hex");

/** Whether a proof answers a challenge. */
export function provesToken(proof: string, token: string, challenge: string): boolean {
  const expected = Buffer.from(proofOf(token, challenge), "hex");
  const given = Buffer.from(proof, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
