import { Observable, Subject, type Subscriber, type Subscription } from "rxjs";
import type { Arrival } from "../core/arrival.js";
import type { Judgement } from "./stages.js";
import { judgeEvents, type PipelineOptions } from "./pipeline.js";

/** A long-lived judgeEvents stream that single events are sent into, each caller getting its own judgement back. */
export interface JudgeStream {
  /** Sends the arrival into the stream when subscribed to; emits its judgement, then completes. */
  judge(arrival: Arrival): Observable<Judgement>;
  /** Stops the stream: hooks still running are killed, and their callers get nothing more. */
  close(): void;
}

/**
 * One judgeEvents stream for many single events: the steps are made once, however many events are judged (a
 * replay judges each of its events by the stream of its project).
 */
export function judgeStream(options: PipelineOptions): JudgeStream {
  const arrivals = new Subject<Arrival>();
  const waiting = new Map<Arrival, Subscriber<Judgement>>();
  const subscription: Subscription = arrivals.pipe(judgeEvents(options)).subscribe((judgement) => {
    const caller = waiting.get(judgement.arrival);
    if (caller === undefined) return;
    waiting.delete(judgement.arrival);
    caller.next(judgement);
    caller.complete();
  });
  return {
    judge: (arrival) =>
      new Observable<Judgement>((subscriber) => {
        waiting.set(arrival, subscriber);
        arrivals.next(arrival);
        return () => waiting.delete(arrival);
      }),
    close: () => {
      subscription.unsubscribe();
      waiting.clear();
    },
  };
}
