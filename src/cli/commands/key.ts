import { generateKeyPairSync, createPublicKey } from "node:crypto";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { isPostgresUrl } from "../../store/openStore.js";
import { keyChangeRow, signRotation, type KeyChangeBody } from "../../store/keyChange.js";
import { keyFileOf, keyFingerprint, logKeyPair, publicKeyFileOf, publicKeyText, readPrivateKey } from "../../store/logKey.js";
import { readSignedHeads } from "../../store/signedHeads.js";
import { out } from "../io.js";
import type { CliContext } from "../globals.js";

export const KeyFlagsSchema = z.object({
  what: z.enum(["rotate", "reset"], { error: 'expected "rotate" or "reset --lost"' }),
  lost: z.boolean().default(false),
});

/**
 * `qhooks key rotate`: a new key pair, vouched for by a key record the old key signs. `qhooks key reset --lost`: the
 * old key is gone; a key record says so, and verify reports the break from it on.
 */
export async function keyCommand(flags: z.infer<typeof KeyFlagsSchema>, context: CliContext): Promise<number> {
  const log = context.dbPath;
  if (isPostgresUrl(log)) throw new QhooksError("usage", "keys belong to a laptop's log, not the central database: run qhooks key on the log that ships");
  if (flags.what === "reset" && !flags.lost)
    throw new QhooksError("usage", "key reset needs --lost: it records that the old key is gone (to change a key you still have, use qhooks key rotate)");
  if (flags.what === "rotate" && flags.lost) throw new QhooksError("usage", "--lost goes with key reset");
  const { openDatabase } = await import("../../store/sqlite/connection.js");
  const { appendOwnRecord, keyRecords } = await import("../../store/sqlite/maintenance.js");
  const db = openDatabase(log, true);
  try {
    const logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string } | undefined)?.value;
    if (logId === undefined) throw new QhooksError("usage", `${log} has no log id (an old log): append one event first`);
    const ts = new Date().toISOString();
    if (flags.what === "rotate") {
      if (!existsSync(keyFileOf(log)))
        throw new QhooksError("usage", `${keyFileOf(log)} does not exist: nothing to rotate (if it was lost, qhooks key reset --lost)`);
      const old = readPrivateKey(keyFileOf(log));
      const from = publicKeyText(createPublicKey(old));
      const pair = generateKeyPairSync("ed25519");
      const to = publicKeyText(pair.publicKey);
      // The new key is kept before the record names it: a crash in between leaves the old key in use and a spare file.
      const spare = `${keyFileOf(log)}.new`;
      rmSync(spare, { force: true });
      writeFileSync(spare, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600, flag: "wx" });
      const body: KeyChangeBody = { change: "rotate", from, to, signature: signRotation(old, logId, from, to) };
      const seq = appendOwnRecord(db, keyChangeRow(ts, body));
      renameSync(spare, keyFileOf(log));
      writeFileSync(publicKeyFileOf(log), pair.publicKey.export({ type: "spki", format: "pem" }), { mode: 0o644 });
      out(`rotated: record ${seq} hands the log from key ${keyFingerprint(from)} to ${keyFingerprint(to)}, signed by the old key`);
      return EXIT.ok;
    }
    // The key last vouched for: the last key record's, or the first one that signed a head.
    const records = keyRecords(db);
    const lastRecord = records.at(-1);
    const known = lastRecord ? (JSON.parse(lastRecord.body) as KeyChangeBody).to : (readSignedHeads(log).heads[0]?.publicKey ?? null);
    const pair = logKeyPair(log);
    const to = publicKeyText(pair.publicKey);
    if (known === to) throw new QhooksError("usage", `the log's key ${keyFingerprint(to)} is not lost (${keyFileOf(log)}): to change it, qhooks key rotate`);
    const seq = appendOwnRecord(db, keyChangeRow(ts, { change: "lost", from: known, to }));
    out(
      `reset: record ${seq} says key ${known === null ? "(none recorded)" : keyFingerprint(known)} was lost; from it on the log is vouched for by ${keyFingerprint(to)} without the old key's signature, which verify reports`,
    );
    return EXIT.ok;
  } finally {
    db.close();
  }
}
