import { isErasedPayload } from "../schema/erasedPayload.js";
import { DecisionSchema, type Decision } from "../schema/events.js";
import { HookTestCaseSchema, type HookTestCase, type HookTestExpect } from "../schema/hookTest.js";
import { oneLineText } from "../text/oneLine.js";
import type { LoggedEvent } from "./loggedEvent.js";

export interface CaseOptions {
  /** The decision to expect; the logged one when absent. */
  readonly expect?: Decision | undefined;
  readonly name?: string | undefined;
  readonly reason?: string | undefined;
  readonly ran?: readonly string[] | undefined;
  readonly notRan?: readonly string[] | undefined;
}

/** Why a logged event cannot become a test, by kind (each has its own one-line message). */
export type NotATest =
  | { readonly kind: "replayed"; readonly message: string }
  | { readonly kind: "rejected"; readonly message: string }
  | { readonly kind: "no-decision"; readonly message: string }
  | { readonly kind: "erased"; readonly message: string }
  | { readonly kind: "not-an-object"; readonly message: string };

export type CaseFromEvent = { readonly ok: true; readonly testCase: HookTestCase } | { readonly ok: false; readonly problem: NotATest };

/**
 * A hook test from a logged event: its event and payload, and the decision expected (the logged one unless told).
 * Only an event that was (or could be) judged makes one: a rejected payload never reached a hook, and a replay's
 * event is a re-judgement of a live one, which is what a test should be made from.
 */
export function caseFromEvent(logged: LoggedEvent, options: CaseOptions = {}): CaseFromEvent {
  const at = `#${logged.seq}`;
  if (logged.replay !== null) {
    return fail("replayed", `${at} is an event of replay run ${logged.replay.runId}, which re-judged #${logged.replay.of}: add #${logged.replay.of} instead`);
  }
  if (logged.decision === "rejected" || logged.event === null) {
    return fail("rejected", `${at} was rejected (its payload was not valid), so no hook ever judged it: it cannot be a test`);
  }
  const loggedDecision = DecisionSchema.safeParse(logged.decision);
  const decision = options.expect ?? (loggedDecision.success ? loggedDecision.data : undefined);
  if (decision === undefined) {
    const why = logged.decision === "recorded" ? "was only recorded (qhooks record), never judged" : "has no outcome (qhooks stopped before one was logged)";
    return fail("no-decision", `${at} ${why}: give the decision to expect with --expect allow|deny|ask|block|none`);
  }
  const payload = logged.payload;
  if (isErasedPayload(payload)) return fail("erased", `${at}: its payload was erased (qhooks erase), so there is nothing to judge`);
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    return fail("not-an-object", `${at}: its payload cannot be saved as a test (it is not a JSON object that qhooks can print again)`);
  }
  const expect: HookTestExpect = {
    decision,
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    ...(options.ran?.length ? { ran: [...options.ran] } : {}),
    ...(options.notRan?.length ? { notRan: [...options.notRan] } : {}),
  };
  const name = options.name ?? defaultName(logged);
  // Built in the schema's key order, then checked by it: what is written is what `qhooks test` reads back.
  const testCase = HookTestCaseSchema.parse({ name, event: logged.event, expect, payload, from: { seq: logged.seq, ts: logged.ts } });
  return { ok: true, testCase };
}

/** `#4 PreToolUse Bash`: where it came from, until someone names it. */
function defaultName(logged: LoggedEvent): string {
  return `#${logged.seq} ${logged.event}${logged.matchValue ? ` ${oneLineText(logged.matchValue, 40)}` : ""}`;
}

const fail = (kind: NotATest["kind"], message: string): CaseFromEvent => ({ ok: false, problem: { kind, message } });
