import { createPublicKey, verify } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { QhooksError } from "../errors.js";
import { signedHeadText } from "./logKey.js";

/**
 * The heads a log's key signed (one per evidence export), kept beside the log in `<log>.heads`, one JSON object a
 * line: what `qhooks verify` checks the log against, so that records cut off the end of the chain, or a chain
 * rewritten after a head was signed, no longer pass as a shorter or other valid chain. Not a table of the log: a
 * sidecar file needs no migration, and holds nothing secret.
 */
export interface SignedHeadLine {
  readonly log: string;
  readonly seq: number;
  readonly hash: string;
  readonly time: string;
  readonly publicKey: string;
  readonly signature: string;
}

export const headsFileOf = (log: string): string => `${log}.heads`;

export function recordSignedHead(logPath: string, head: SignedHeadLine): void {
  try {
    appendFileSync(headsFileOf(logPath), `${JSON.stringify(head)}\n`, { mode: 0o644 });
  } catch (e) {
    throw new QhooksError("io", `cannot write ${headsFileOf(logPath)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
}

/** The heads signed so far (none when there is no file); a line that is not a head, or whose signature fails, is a problem. */
export function readSignedHeads(logPath: string): { readonly heads: readonly SignedHeadLine[]; readonly problem: string | null } {
  let text: string;
  try {
    text = readFileSync(headsFileOf(logPath), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { heads: [], problem: null };
    return { heads: [], problem: `cannot read ${headsFileOf(logPath)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  const heads: SignedHeadLine[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const head = parseHead(line);
    if (head === null) return { heads, problem: `line ${i + 1} of ${headsFileOf(logPath)} is not a signed head, or its signature fails: edited` };
    heads.push(head);
  }
  return { heads, problem: null };
}

function parseHead(line: string): SignedHeadLine | null {
  try {
    const h = JSON.parse(line) as SignedHeadLine;
    return headSignatureHolds(h) ? h : null;
  } catch {
    return null;
  }
}

/** Whether a head's signature is its public key's over its log, seq, hash and time (false for anything malformed). */
export function headSignatureHolds(h: SignedHeadLine): boolean {
  try {
    if (typeof h.seq !== "number" || typeof h.hash !== "string" || typeof h.log !== "string" || typeof h.time !== "string") return false;
    const key = createPublicKey({ key: Buffer.from(h.publicKey, "base64"), format: "der", type: "spki" });
    return verify(null, Buffer.from(signedHeadText(h), "utf8"), key, Buffer.from(h.signature, "base64"));
  } catch {
    return false;
  }
}
