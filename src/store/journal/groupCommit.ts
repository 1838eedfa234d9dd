/**
 * Group commit: appends made while a transaction is being prepared or waits for the lock share the next one.
 * Every append resolves only once the transaction that holds it has committed, so durability is per append;
 * what is shared is the commit (and its WAL pages), not the guarantee.
 */

/** One attempt at a transaction for a batch: each request's own result, or a failure of the whole attempt. */
export type Attempt<Res> = { readonly ok: true; readonly results: readonly Res[] } | { readonly ok: false; readonly error: unknown };

interface Waiting<Req, Res> {
  readonly request: Req;
  readonly deadline: number;
  readonly since: number;
  readonly resolve: (result: Res) => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupCommitOptions<Req, Res> {
  /** Runs one transaction for the batch (after any asynchronous preparation, such as reopening the file). */
  readonly commit: (batch: readonly Req[]) => Promise<Attempt<Res>>;
  /** A failure worth waiting out: the write lock is held by another process. */
  readonly isBusy: (error: unknown) => boolean;
  /** What to tell a request that waited its whole budget, and one that failed for another reason. */
  readonly gaveUp: (error: unknown, waitedMs: number) => unknown;
  readonly failed: (error: unknown) => unknown;
  /** Most requests in one transaction: a long one holds the lock that other processes wait for. */
  readonly maxBatch: number;
}

export class GroupCommit<Req, Res> {
  private queue: Waiting<Req, Res>[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly options: GroupCommitOptions<Req, Res>) {}

  /** Queues a request; `budgetMs` is how long it may wait for the lock (0: one attempt). */
  submit(request: Req, budgetMs: number): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const now = Date.now();
      this.queue.push({ request, deadline: now + budgetMs, since: now, resolve, reject });
      // A microtask: appends made by the same turn of the event loop (concurrent dispatches) join this batch.
      this.draining ??= Promise.resolve().then(() => this.drain());
    });
  }

  /** Nothing queued, nothing being committed. */
  get idle(): boolean {
    return this.draining === null && this.queue.length === 0;
  }

  /** Resolves when nothing is queued or being committed. */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      for (let attempt = 0; this.queue.length > 0; ) {
        const batch = this.queue.splice(0, this.options.maxBatch);
        let outcome: Attempt<Res>;
        try {
          outcome = await this.options.commit(batch.map((w) => w.request));
        } catch (error) {
          outcome = { ok: false, error };
        }
        if (outcome.ok) {
          attempt = 0;
          batch.forEach((w, i) => w.resolve(outcome.results[i]!));
          // Under a flood the next batch is already waiting: one turn of the event loop first, so that the lock
          // is free for a moment and another process waiting for it gets its turn (and this batch grows).
          if (this.queue.length > 0) await new Promise((r) => setImmediate(r));
          continue;
        }
        const error = outcome.error;
        if (!this.options.isBusy(error)) {
          for (const w of batch) w.reject(this.options.failed(error));
          continue;
        }
        // Locked by another process: those out of budget are told so; the others try again, with whatever was
        // appended meanwhile, after a growing, jittered pause (the event loop keeps running in between).
        const now = Date.now();
        const waiting = batch.filter((w) => {
          if (now < w.deadline) return true;
          w.reject(this.options.gaveUp(error, now - w.since));
          return false;
        });
        this.queue = [...waiting, ...this.queue];
        if (this.queue.length === 0) continue;
        const delay = Math.min(2 << attempt++, 100);
        await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      }
    } finally {
      this.draining = null;
    }
  }
}
