import { createPublicKey } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { isPostgresUrl, openStore } from "../../store/openStore.js";
import { readSignedHeads, recordSignedHead, type SignedHeadLine } from "../../store/signedHeads.js";
import { keyFingerprint, logKeyPair, publicKeyFileOf, publicKeyText, signHead } from "../../store/logKey.js";
import { out, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import { parseTimeArg } from "../timeArg.js";
import type { EvidenceVerdict } from "../../export/verifyEvidence.js";

export const ExportEvidenceFlagsSchema = z.object({
  evidence: z.string().min(1, { error: "--evidence: expected a file" }),
  sessions: z.array(z.string()).default([]),
  since: z.string().optional(),
  /** On the central database: whose chain (a log's id). */
  writer: z.string().min(1, { error: "--writer: expected a writer's id" }).optional(),
  utc: z.boolean().default(false),
});

/**
 * `qhooks export --evidence FILE [--session S] [--since T] [--writer W]`: signed evidence of the selected events. On
 * a laptop's log the head is signed now with the log's key; on the central database, the slice of one writer's chain
 * ends at a head that writer signed when it shipped (the database holds no private key).
 */
export async function exportEvidenceCommand(flags: z.infer<typeof ExportEvidenceFlagsSchema>, context: CliContext): Promise<number> {
  const central = isPostgresUrl(context.dbPath);
  if (!central && flags.writer !== undefined)
    throw new QhooksError("usage", "--writer chooses a chain of the central database (QHOOKS_DB=postgres://...); a local log is one chain");
  const since = flags.since === undefined ? null : parseTimeArg("--since", flags.since, { utc: flags.utc });
  const { buildEvidence } = await import("../../export/evidence.js");
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const selection = { sessions: flags.sessions, since, writer: flags.writer ?? null };
    let evidence: Awaited<ReturnType<typeof buildEvidence>>;
    if (central) evidence = await buildEvidence(log, selection, null);
    else {
      const key = logKeyPair(context.dbPath);
      if (key.made) warn(`made the log's key pair: ${key.file} (private, keep it) and ${publicKeyFileOf(context.dbPath)} (give it to whoever checks evidence)`);
      const earlier = readSignedHeads(context.dbPath);
      if (earlier.problem !== null) throw new QhooksError("integrity", `${earlier.problem} (run qhooks verify)`);
      evidence = await buildEvidence(log, selection, key, new Date(), earlier.heads);
    }
    if (evidence === null) throw new QhooksError("usage", "no event matches: nothing to take evidence of");
    if (!central) recordSignedHead(context.dbPath, { log: evidence.log, ...evidence.head });
    const temporary = `${flags.evidence}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(evidence, null, 1)}\n`, { mode: 0o600 });
      renameSync(temporary, flags.evidence);
    } catch (e) {
      throw new QhooksError("io", `cannot write ${flags.evidence}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
    }
    const records = evidence.chain.filter((e) => "record" in e).length;
    const key = keyFingerprint(evidence.head.publicKey);
    out(
      central
        ? `wrote ${flags.evidence}: ${records} record${records === 1 ? "" : "s"} of writer ${evidence.log} and the head (record ${evidence.head.seq}) it signed at ${evidence.head.time} with key ${key} (check it with that log's .pub file)`
        : `wrote ${flags.evidence}: ${records} record${records === 1 ? "" : "s"} and the head (record ${evidence.head.seq}) signed by key ${key} (${publicKeyFileOf(context.dbPath)})`,
    );
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/**
 * What `ship` signs each shipped head with: the local log's key; each head is also kept in `<log>.heads`, so that the
 * log is held to it from then on. A key that cannot be used is one warning, and the records ship unsigned.
 */
export function shippedHeadSigner(logPath: string): (head: { readonly log: string; readonly seq: number; readonly hash: string }) => SignedHeadLine | null {
  let key: ReturnType<typeof logKeyPair> | null = null;
  let failed = false;
  return (at) => {
    if (failed) return null;
    try {
      // Made quietly here (a shipper runs unattended): docs/evidence.md says where the pair is.
      key ??= logKeyPair(logPath);
      const head = { ...at, time: new Date().toISOString() };
      const signed: SignedHeadLine = { ...head, publicKey: publicKeyText(key.publicKey), signature: signHead(key.privateKey, head) };
      recordSignedHead(logPath, signed);
      return signed;
    } catch (e) {
      failed = true;
      warn(`the shipped heads are not signed: ${(e as Error).message.split("\n", 1)[0]}`);
      return null;
    }
  };
}

export const VerifyEvidenceFlagsSchema = z.object({
  evidence: z.string().min(1, { error: "--evidence: expected a file" }),
  key: z.string().min(1, { error: "--key: expected a public key file or its base64 text" }).optional(),
  json: z.boolean().default(false),
});

/** `qhooks verify --evidence FILE [--key PUBKEY]`: the file alone, checked; what it proves and what it does not. */
export async function verifyEvidenceCommand(flags: z.infer<typeof VerifyEvidenceFlagsSchema>): Promise<number> {
  const { verifyEvidence } = await import("../../export/verifyEvidence.js");
  const pinned = flags.key === undefined ? null : readPublicKey(flags.key);
  let text: string;
  try {
    text = readFileSync(flags.evidence, "utf8");
  } catch (e) {
    throw new QhooksError("io", `cannot read ${flags.evidence}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
  const verdict = verifyEvidence(text, pinned);
  if (flags.json) out(JSON.stringify(verdict));
  if (!verdict.ok) throw new QhooksError("integrity", `evidence ${flags.evidence} fails: ${verdict.problem}`);
  if (!flags.json) for (const line of verdictLines(verdict)) out(line);
  return EXIT.ok;
}

/** `--key`: a public key file (PEM, as `<log>.pub`), or the key's base64 SPKI text as evidence carries it. */
function readPublicKey(value: string): string {
  const text = existsSync(value) ? readFileSync(value, "utf8") : value;
  try {
    const key = text.includes("-----BEGIN") ? createPublicKey(text) : createPublicKey({ key: Buffer.from(text.trim(), "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`a ${key.asymmetricKeyType} key`);
    return publicKeyText(key);
  } catch (e) {
    throw new QhooksError(
      "usage",
      `--key ${value}: not an Ed25519 public key (a <log>.pub file or its base64 text): ${(e as Error).message.split("\n", 1)[0]}`,
    );
  }
}

/** Records erased on the central database: which, by whom and when, and why that part is not proven. */
function erasedHereLine(erased: Extract<EvidenceVerdict, { ok: true }>["erasedHere"]): string {
  // One erase names many records at once: grouped by who erased and when.
  const groups = new Map<string, number[]>();
  for (const e of erased) groups.set(`by writer ${e.writer} at ${e.time}`, [...(groups.get(`by writer ${e.writer} at ${e.time}`) ?? []), e.seq]);
  const each = [...groups].map(([by, seqs]) => `record${seqs.length === 1 ? "" : "s"} ${seqs.join(", ")} ${by}`).join("; ");
  return `erased on the central database, not in the writer's log: ${each}; the signed head proves the digests their text had, but who erased it and when is that database's word (its erasure records are in a chain no key signs)`;
}

/** What a good evidence file proves, and what it does not: said every time, so that no one reads more into ok. */
export function verdictLines(v: Extract<EvidenceVerdict, { ok: true }>): string[] {
  const n = v.records.length;
  const sessions = v.sessions.length ? ` (session ${v.sessions.join(", ")})` : "";
  const key = v.keyPinned
    ? `key ${v.head.key}, ${v.keyChanges ? `which the file's key records hand the log to from the key given with --key` : "the key given with --key"}`
    : `key ${v.head.key}, as the file itself names it (pass --key <log>.pub to check whose it is)`;
  return [
    `ok: ${n} record${n === 1 ? "" : "s"} of log ${v.log}${sessions}, records ${v.records[0]} to ${v.records[n - 1]}, in this order, unaltered since the head (record ${v.since.seq}) was signed at ${v.since.time} by ${key}${v.since.seq !== v.head.seq ? ` (and the head at record ${v.head.seq} at ${v.head.time})` : ""}`,
    `proves: these records, with these numbers and in this order, are in the log's hash chain as shown, and the signed head covers them${v.erased.length ? `; ${v.erased.length} of them erased (records ${v.erased.join(", ")}: their text is gone, the digests it had are kept)` : ""}`,
    ...(v.erasedHere.length ? [erasedHereLine(v.erasedHere)] : []),
    ...v.keyBreaks.map(
      (b) => `key break: from record ${b.seq} on, the chain is vouched for by key ${b.key}, introduced without the old key's signature (key reported lost)`,
    ),
    `does not prove: that the selection is complete (the ${v.links} other record${v.links === 1 ? "" : "s"} from ${v.from} to ${v.head.seq} ${v.links === 1 ? "is a link" : "are links"}, content not shown), what the log held before record ${v.from} or after record ${v.head.seq}, that ${v.since.time} is the true time (the signer's clock), who holds the key, or what an erased record's text was`,
  ];
}
