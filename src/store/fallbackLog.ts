import { messageOf } from "../errors.js";
import { appendResult, type AppendOptions, type AppendResult, type EventEntry, type EventLog, type LogEntry, type LogWarning } from "./eventLog.js";

export interface FallbackLogOptions {
  /** The central log (PostgreSQL), whose every call answers within its deadline or fails. */
  readonly central: EventLog;
  /** The central log as it may be shown (its URL without the password). */
  readonly centralShown: string;
  /** The local log that takes the events the central one cannot (a SQLite file), opened on first use. */
  readonly openFallback: () => EventLog;
  /** Where that file is, as the warning names it. */
  readonly fallbackPath: string;
  /** After a failure, how long events go straight to the fallback before the central log is tried again. */
  readonly retryAfterMs?: number;
}

/** Events of this process whose place (which log, under which seq) is remembered, for their outcome and hooks. */
const MAX_REMEMBERED = 10_000;

/**
 * The central log with a local one behind it: an event the central log cannot take in time (it is down, its
 * connection froze, its chain's head is locked elsewhere) goes to the local fallback file instead, and says so in
 * one warning (kind `fallback`) that names both; its decision is never held up for longer than the central log's
 * deadline. Once the central log failed, events go straight to the fallback for a while (retryAfterMs), so that a
 * server that is down costs one deadline, not one per event.
 *
 * An event's records stay together: its outcome and its async hooks' results go where its arrival went. An
 * outcome that cannot reach the central log after its arrival did goes to the fallback with the event itself (the
 * central log keeps the arrival, unfinished).
 */
export function withFallback(options: FallbackLogOptions): EventLog & { placeOf(seq: number | null): string | null } {
  return new FallbackLog(options);
}

type Place = { readonly log: "central"; readonly arrival: EventEntry } | { readonly log: "fallback" };

class FallbackLog implements EventLog {
  private local: EventLog | null = null;
  /** Until when the central log is not tried (it failed); 0 while it works. */
  private downUntil = 0;
  /** Why it failed last, for the warning. */
  private why = "";
  private readonly places = new Map<number, Place>();

  constructor(private readonly options: FallbackLogOptions) {}

  /** The fallback file when the event with this seq went there; null when it is in the central log (or unknown). */
  placeOf(seq: number | null): string | null {
    return seq !== null && this.places.get(seq)?.log === "fallback" ? this.options.fallbackPath : null;
  }

  async append(entries: readonly LogEntry[], options: AppendOptions = {}): Promise<AppendResult> {
    const toFallback = entries.some((e) => this.placeOfEntry(e) === "fallback");
    // An async hook's result of an event in the central log can go nowhere else: it is tried there, down or not.
    const centralOnly = !toFallback && entries.every((e) => e.kind === "hook");
    if (centralOnly) return this.options.central.append(entries, options);
    if (!toFallback && Date.now() >= this.downUntil) {
      try {
        const appended = await this.options.central.append(entries, options);
        this.remember(entries, appended, { log: "central" });
        return appended;
      } catch (e) {
        this.downUntil = Date.now() + (this.options.retryAfterMs ?? 30_000);
        this.why = messageOf(e);
        return this.toFallback(entries, options, e);
      }
    }
    return this.toFallback(entries, options, null);
  }

  /** Where an entry must go: with the event it names, when this process appended that event. */
  private placeOfEntry(entry: LogEntry): "fallback" | "central" | null {
    if (entry.kind !== "outcome" && entry.kind !== "hook") return null;
    return this.places.get(entry.eventSeq)?.log ?? null;
  }

  /**
   * The entries in the fallback file, with one warning for the event they belong to (none for the outcome of an
   * event that already went there: its arrival said so). The central log's own error when nothing can be kept.
   */
  private async toFallback(entries: readonly LogEntry[], options: AppendOptions, centralError: unknown): Promise<AppendResult> {
    let warned = false;
    let moved = false;
    const rewritten: LogEntry[] = [];
    for (const entry of entries) {
      if (entry.kind === "outcome" || entry.kind === "hook") {
        const place = this.places.get(entry.eventSeq);
        if (place?.log === "fallback") {
          rewritten.push(entry);
          continue;
        }
        // The arrival is in the central log: the outcome goes to the fallback with the event itself. An async
        // hook's result, or an entry of an event this process did not append, has nothing to attach to there.
        if (place?.log === "central" && entry.kind === "outcome") {
          rewritten.push({ ...place.arrival, outcome: entry.outcome });
          warned = true;
          moved = true;
          this.places.delete(entry.eventSeq);
          continue;
        }
        if (centralError !== null) throw centralError;
        throw new Error(
          `the central event log ${this.options.centralShown} is not answering (${this.why}), and event ${entry.eventSeq} is not in the fallback log ${this.options.fallbackPath}`,
        );
      }
      rewritten.push(entry);
      if (entry.kind === "event") warned = true;
    }
    let local: EventLog;
    let appended: AppendResult;
    try {
      local = this.local ??= this.options.openFallback();
      appended = await local.append(rewritten, options);
    } catch (e) {
      // Neither log takes the event: the caller says it is not recorded, with the central log's reason.
      throw centralError ?? e;
    }
    // The events now in the fallback file (an outcome rewritten as its event among them): their later records
    // (async hooks' results) go there too.
    rewritten.forEach((entry, i) => {
      const seq = appended[i];
      if (entry.kind === "event" && seq !== null && seq !== undefined) this.rememberPlace(seq, { log: "fallback" });
    });
    if (!warned) return appended;
    const event = entries.map((e) => (e.kind === "event" ? e.event : e.kind === "outcome" ? e.outcome.event : null)).find((e) => e !== null) ?? "this";
    const warning: LogWarning = {
      kind: "fallback",
      message:
        `this ${event} event is in the local fallback log ${this.options.fallbackPath}, not in the central log` +
        `${moved ? " (which keeps its arrival, unfinished)" : ""}: ${this.why}; ` +
        `\`qhooks --db ${this.options.fallbackPath} ship --to URL\` copies it there`,
    };
    return appendResult(appended, [...appended.warnings, warning]);
  }

  private remember(entries: readonly LogEntry[], appended: AppendResult, place: { log: "central" }): void {
    entries.forEach((entry, i) => {
      const seq = appended[i];
      if (entry.kind === "outcome") this.places.delete(entry.eventSeq);
      // An arrival without its outcome: kept until the outcome comes, in case that one must go to the fallback.
      else if (entry.kind === "event" && entry.outcome === null && seq !== null && seq !== undefined) this.rememberPlace(seq, { ...place, arrival: entry });
    });
  }

  private rememberPlace(seq: number, place: Place): void {
    if (this.places.size >= MAX_REMEMBERED) this.places.delete(this.places.keys().next().value!);
    this.places.set(seq, place);
  }

  /**
   * The Stop-loop guard's count: from the central log while it answers; from the fallback file once it does not
   * (the Stop events that went there are counted, so that the guard keeps working while the server is away).
   */
  async stopBlockStreak(sessionId: string): Promise<number | null> {
    if (Date.now() >= this.downUntil) {
      try {
        return await this.options.central.stopBlockStreak(sessionId);
      } catch (e) {
        this.downUntil = Date.now() + (this.options.retryAfterMs ?? 30_000);
        this.why = messageOf(e);
      }
    }
    this.local ??= this.options.openFallback();
    return this.local.stopBlockStreak(sessionId);
  }

  async settle(): Promise<readonly LogWarning[]> {
    const [central, local] = await Promise.all([this.options.central.settle?.(), this.local?.settle?.()]);
    return [...(central ?? []), ...(local ?? [])];
  }

  async close(): Promise<void> {
    await Promise.all([this.options.central.close(), this.local?.close()]);
  }
}
