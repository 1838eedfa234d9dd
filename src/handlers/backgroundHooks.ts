import type { Observable, Subscription } from "rxjs";
import { messageOf } from "../errors.js";
import { interpretRun } from "../core/readRun.js";
import type { JudgedHook } from "../core/hookRun.js";
import type { ValidEvent } from "../payload/parsePayload.js";
import type { HookResult } from "../schema/outcome.js";
import type { EventLog } from "../store/eventLog.js";
import { oneLineText } from "../text/oneLine.js";
import { redactEntry } from "../redact/redactEntry.js";
import { builtInRedactor, type Redactor } from "../redact/redactor.js";
import type { SelectedHook } from "../core/hookDescriptor.js";

/** Where `async: true` hooks go: started in this process (BackgroundHooks), or handed to a detached one. */
export interface BackgroundRunner {
  /**
   * Starts one async hook of the event at `seq` (null: its event is not in the log); `run$` runs it here. Its result
   * is logged through `redactor`, the configuration's (a detached run takes its user patterns along).
   */
  start(seq: number | null, valid: ValidEvent, spec: SelectedHook, run$: Observable<JudgedHook>, redactor?: Redactor): void;
  /** Resolves once every hook started here has ended and been logged. */
  settled(): Promise<void>;
}

/**
 * The `async: true` hooks of a bus (or of one `qhooks run`): each starts with its event's other hooks, runs apart
 * from the outcome (raced against its own timeout like any hook), and its result is appended to the log against
 * its event when it ends. `close()` stops those still running; each is then logged as stopped.
 */
export class BackgroundHooks implements BackgroundRunner {
  private readonly running = new Set<{ readonly stop: (why: string) => void }>();
  private readonly appends = new Set<Promise<void>>();
  private readonly ended = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly warn: (line: string) => void = () => undefined,
  ) {}

  /** How many are still running. */
  get size(): number {
    return this.running.size;
  }

  start(seq: number | null, valid: ValidEvent, spec: SelectedHook, run$: Observable<JudgedHook>, redactor: Redactor = builtInRedactor): void {
    if (this.closed) return;
    const started = performance.now();
    let done = false;
    let subscription: Subscription | undefined;
    const entry = {
      stop: (why: string) => {
        if (done) return;
        done = true;
        subscription?.unsubscribe();
        this.finish(entry);
        const stopped = interpretRun(valid.event, spec, {
          type: "failed",
          message: `stopped before it ended: ${why}`,
          durationMs: performance.now() - started,
        });
        this.record(seq, valid, stopped.result, redactor);
      },
    };
    this.running.add(entry);
    subscription = run$.subscribe((judged) => {
      if (done) return;
      done = true;
      this.finish(entry);
      this.record(seq, valid, judged.result, redactor);
    });
  }

  /**
   * Stops every hook still running (each logged as stopped, `why` saying by what) and waits until every result is
   * appended.
   */
  async close(why = "the bus closed"): Promise<void> {
    this.closed = true;
    for (const entry of [...this.running]) entry.stop(why);
    await this.drained();
  }

  /** Waits until every hook started so far has ended by itself (each within its timeout) and been appended. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await new Promise<void>((resolve) => this.ended.add(resolve));
    await this.drained();
  }

  private finish(entry: { readonly stop: (why: string) => void }): void {
    this.running.delete(entry);
    for (const resolve of [...this.ended]) resolve();
    this.ended.clear();
  }

  private async drained(): Promise<void> {
    while (this.appends.size > 0) await Promise.all([...this.appends]);
  }

  private record(seq: number | null, valid: ValidEvent, result: HookResult, redactor: Redactor): void {
    // Without a record of its event (no log, or the arrival could not be written) there is nothing to attach it to.
    if (seq === null) return;
    const append = this.log
      // Redacted like every other record: an async hook's output may echo a secret of the payload.
      .append([redactEntry({ kind: "hook", ts: new Date(), eventSeq: seq, event: valid.event, sessionId: valid.sessionId, result }, redactor)])
      .then(
        (r) => {
          for (const w of r.warnings) this.warn(`event log: ${w.message}`);
        },
        (e: unknown) => this.warn(`event log: result of async hook ${oneLineText(result.name)} (event ${seq}) not recorded: ${messageOf(e)}`),
      )
      .finally(() => this.appends.delete(append));
    this.appends.add(append);
  }
}
