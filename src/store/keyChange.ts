import { createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { z } from "zod";
import { bookkeepingRow, type PendingRow } from "./journal/rows.js";
import { keyFingerprint } from "./logKey.js";

/**
 * A key record (journal kind `key`): the log's signing key changed, chained like any record. `rotate`: the old key
 * signed `qhooks.key/1 rotate\n<log>\n<from>\n<to>`, vouching for the new one. `lost`: the old key was not there to
 * sign, and the record says so; from it on the chain is vouched for by a key nobody earlier vouched for, which
 * verify reports as a break (never as a plain ok). docs/log-format.md describes it.
 */
export const KeyChangeBodySchema = z.strictObject({
  change: z.enum(["rotate", "lost"]),
  /** The key retired (SPKI DER, base64); null for `lost` when the log never had one recorded. */
  from: z.string().nullable(),
  to: z.string(),
  /** `rotate`: the old key's Ed25519 signature of the rotation text, base64. Absent for `lost`. */
  signature: z.string().optional(),
});
export type KeyChangeBody = z.infer<typeof KeyChangeBodySchema>;

export const rotationText = (log: string, from: string, to: string): string => `qhooks.key/1 rotate\n${log}\n${from}\n${to}`;

export const signRotation = (oldKey: KeyObject, log: string, from: string, to: string): string =>
  sign(null, Buffer.from(rotationText(log, from, to), "utf8"), oldKey).toString("base64");

export function keyChangeRow(ts: string, body: KeyChangeBody): PendingRow {
  return bookkeepingRow(ts, "key", body);
}

/** A key record as found in a chain: its seq and body text. */
export interface KeyChangeAt {
  readonly seq: number;
  readonly body: string;
}

/** A break a `lost` record made: from `seq` on, `key` vouches for the chain without its predecessor's signature. */
export interface KeyBreak {
  readonly seq: number;
  readonly key: string;
}

/** Which key signs heads over which records: each key, the seq from which the next one took over (Infinity for the last). */
export interface KeyPeriods {
  readonly periods: readonly { readonly key: string; readonly until: number }[];
  readonly breaks: readonly KeyBreak[];
}

/**
 * The chain's keys from its first (the pinned key, or the first key record's `from`) through its key records, in
 * order: a rotation the old key did not sign, or whose `from` is not the key then in use, is a problem named in one line.
 */
export function keyPeriods(
  log: string,
  first: string | null,
  changes: readonly KeyChangeAt[],
): KeyPeriods | { readonly seq: number; readonly problem: string } {
  const periods: { key: string; until: number }[] = [];
  const breaks: KeyBreak[] = [];
  let current = first;
  const seen = new Set<string>();
  for (const change of [...changes].sort((a, b) => a.seq - b.seq)) {
    let body: KeyChangeBody;
    try {
      body = KeyChangeBodySchema.parse(JSON.parse(change.body));
    } catch {
      return { seq: change.seq, problem: `key record ${change.seq} is not a key record qhooks can read: edited` };
    }
    // A copy a prune carried forward, beside its original (which a copy of the chain elsewhere still holds): once.
    const said = `${body.change}\n${body.from}\n${body.to}`;
    if (seen.has(said)) continue;
    seen.add(said);
    if (body.change === "rotate") {
      const from = body.from;
      if (from === null || (current !== null && from !== current))
        return {
          seq: change.seq,
          problem: `key record ${change.seq} rotates from ${from === null ? "no key" : keyFingerprint(from)}, but the key in use was ${current === null ? "none" : keyFingerprint(current)}`,
        };
      if (body.signature === undefined || !holds(from, rotationText(log, from, body.to), body.signature))
        return {
          seq: change.seq,
          problem: `key record ${change.seq} (rotation to ${keyFingerprint(body.to)}) is not signed by the key it retires: edited, or forged`,
        };
    } else {
      breaks.push({ seq: change.seq, key: body.to });
    }
    if (current !== null) periods.push({ key: current, until: change.seq });
    current = body.to;
  }
  if (current !== null) periods.push({ key: current, until: Number.POSITIVE_INFINITY });
  return { periods, breaks };
}

/**
 * Whether a key may sign a head at `seq`: a retired key only heads before the record that retired it; a key brought
 * in by a key record, heads at any seq (vouching again for what came before it is no harm).
 */
export function keyMaySign(keys: KeyPeriods, key: string, seq: number): boolean {
  return keys.periods.some((p, i) => p.key === key && (seq < p.until || i === keys.periods.length - 1));
}

function holds(publicKey: string, text: string, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, "base64"), format: "der", type: "spki" });
    return verify(null, Buffer.from(text, "utf8"), key, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}
