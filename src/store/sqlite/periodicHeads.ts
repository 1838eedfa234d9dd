import type { LogWarning } from "../../schema/logWarning.js";
import { logKeyPair, publicKeyText, signHead, type LogKeyPair } from "../logKey.js";
import { recordSignedHead } from "../signedHeads.js";

/** Records between two heads signed as the log is written, unless the log is opened with another interval. */
export const DEFAULT_SIGN_EVERY = 1_000;

/**
 * Signs the chain's head each time it passes a multiple of `every` records (docs/evidence.md), into `<log>.heads`,
 * so that a chain rewritten later (by someone without the key) no longer matches a head signed before, whether or
 * not it was ever shipped or exported. Exactly one append crosses each multiple, whichever process makes it, so
 * processes sharing the log sign each head once between them.
 *
 * Off the append: the signature (loading the key, Ed25519, one line appended to a file: a fraction of a millisecond)
 * runs in a later turn of the event loop, after the append's caller has its seqs, and `settled()` (the log's close)
 * waits for it. Once every `every` records, that is all an append pays. A key that cannot be used (others may read
 * it, not a key) is one warning, and heads go unsigned for the rest of the process.
 */
export class PeriodicHeads {
  private pending: Promise<void> = Promise.resolve();
  private key: LogKeyPair | null = null;
  private failed = false;

  constructor(
    private readonly path: string,
    private readonly every: number,
    private readonly warn: (warning: LogWarning) => void,
  ) {}

  /** A transaction moved the head from `before` to `head`: sign it when it passed a multiple of `every`. */
  committed(logId: string, head: { readonly before: number; readonly seq: number; readonly hash: string }): void {
    if (this.every <= 0 || this.failed || Math.floor(head.seq / this.every) === Math.floor(head.before / this.every)) return;
    this.pending = this.pending.then(() => new Promise<void>((done) => setImmediate(() => done(this.sign(logId, head)))));
  }

  /** Resolves once every head due is signed. */
  settled(): Promise<void> {
    return this.pending;
  }

  private sign(log: string, at: { readonly seq: number; readonly hash: string }): void {
    if (this.failed) return;
    try {
      // Made quietly on first use, as ship does: docs/evidence.md says where the pair is.
      this.key ??= logKeyPair(this.path);
      const head = { log, seq: at.seq, hash: at.hash, time: new Date().toISOString() };
      recordSignedHead(this.path, { ...head, publicKey: publicKeyText(this.key.publicKey), signature: signHead(this.key.privateKey, head) });
    } catch (e) {
      this.failed = true;
      this.warn({ kind: "heads-unsigned", message: `the log's heads are not signed: ${(e as Error).message.split("\n", 1)[0]}` });
    }
  }
}
