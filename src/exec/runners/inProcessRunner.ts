import { catchError, from, map, of } from "rxjs";
import { messageOf } from "../../errors.js";
import type { HookRun } from "../../core/hookRun.js";
import type { Payload } from "../../schema/events.js";
import { plainJson } from "./plainJson.js";
import type { Runner } from "./runner.js";

/**
 * A handler registered with `bus.use()`: called with the payload (validated against its event's schema, which is
 * what its type says); what it returns is read as data, whatever the compiler allowed, and is its decision.
 */
export const inProcessRunner: Runner = ({ spec, valid, elapsed }) => {
  if (spec.kind !== "in-process") throw new Error("inProcessRunner: not an in-process handler");
  return from(Promise.resolve().then(() => plainJson(spec.handle(valid.payload as Payload)))).pipe(
    map(
      (read): HookRun =>
        read.ok ? { type: "returned", value: read.value, durationMs: elapsed() } : { type: "unreadable", message: read.why, durationMs: elapsed() },
    ),
    catchError((e: unknown) => of<HookRun>({ type: "threw", message: messageOf(e), durationMs: elapsed() })),
  );
};
