import { HOSTS } from "../hosts/hosts.js";
import type { Dialect, HostDialect } from "../hosts/hostDialect.js";
import type { HookProtocolReply } from "../output/hookProtocol.js";
import type { EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";

/** What a host does with one decision a hook gives on an event: acts on it, or answers as if no hook had spoken. */
export type HostTreatment = "honoured" | "dropped" | "no-event";

/** A decision a hook may rely on that the host does not act on, with its kind (never told apart by text). */
export interface ConformanceWarning {
  readonly kind: "ask-dropped" | "ask-dropped-in-mode" | "deny-dropped" | "allow-dropped" | "no-such-event";
  readonly message: string;
}

/** How one host's rules judge one qhooks event: its own name for it and what it does with each decision. */
export interface HostJudgement {
  readonly host: Dialect;
  readonly name: string;
  /** The host's name for the event; null when the host has no such event (its hooks for it never run). */
  readonly hostEvent: string | null;
  readonly allow: HostTreatment;
  /** A hook's refusal: `deny` on PreToolUse and PermissionRequest, `block` elsewhere. */
  readonly deny: HostTreatment;
  readonly ask: HostTreatment;
  readonly warnings: readonly ConformanceWarning[];
}

/** The refusal a hook gives on this event. */
const refusal = (event: EventName): "deny" | "block" => (event === "PreToolUse" || event === "PermissionRequest" ? "deny" : "block");

function outcome(event: EventName, decision: Outcome["decision"]): Outcome {
  const refused = decision === "deny" || decision === "block";
  return {
    event,
    sessionId: "conformance",
    seq: null,
    decision,
    blocked: refused,
    reason: decision === "none" ? null : "a hook's reason",
    continue: true,
    stopReason: null,
    systemMessages: [],
    additionalContext: [],
    updatedInput: null,
    suppressOutput: false,
    configHash: "0".repeat(64),
    durationMs: 0,
    hooks: [],
    skipped: [],
    env: {},
    warnings: [],
  };
}

const same = (a: HookProtocolReply, b: HookProtocolReply) => a.exitCode === b.exitCode && a.stdout === b.stdout && a.stderr === b.stderr;

/**
 * One host's judgement of an event, from its own answer protocol: a decision whose answer is the same as when no hook
 * spoke is dropped by that host (Cursor's `ask` where its answer has no `ask`, an event with no decision at all).
 */
export function judgeOnHost(host: HostDialect, event: EventName): HostJudgement {
  const hostEvent = host.eventNames.toHost.get(event) ?? null;
  const firing = hostEvent !== null && host.events.includes(event);
  if (!firing) {
    return {
      host: host.id,
      name: host.name,
      hostEvent: null,
      allow: "no-event",
      deny: "no-event",
      ask: "no-event",
      warnings: [{ kind: "no-such-event", message: `${host.name} has no ${event} event: hooks written for it never run there` }],
    };
  }
  const silent = host.answer(outcome(event, "none"));
  const treat = (decision: Outcome["decision"]): HostTreatment => (same(host.answer(outcome(event, decision)), silent) ? "dropped" : "honoured");
  const judged = { allow: treat("allow"), deny: treat(refusal(event)), ask: treat("ask") };
  const warnings: ConformanceWarning[] = [];
  if (judged.ask === "dropped")
    warnings.push({ kind: "ask-dropped", message: `${host.name} drops "ask" on ${hostEvent}: a hook that asks the person lets the call go on unasked` });
  // An ask the answer carries can still be dropped by one of the host's modes: said per mode, with how it is known.
  if (judged.ask === "honoured")
    for (const m of host.modesDroppingAsk ?? [])
      if (m.event === event)
        warnings.push({
          kind: "ask-dropped-in-mode",
          message: `${host.name} drops "ask" on ${m.hostEvent} in ${m.mode} mode (${m.evidence === "reported" ? "reported by users, not in its docs" : "documented"}): the call goes on unasked there; answer deny to be sure`,
        });
  if (judged.deny === "dropped")
    warnings.push({ kind: "deny-dropped", message: `${host.name} drops "${refusal(event)}" on ${hostEvent}: a hook cannot stop anything here` });
  return { host: host.id, name: host.name, hostEvent, ...judged, warnings };
}

/** Every host's judgement of an event, in the registry's order: a host added there appears here. */
export const judgeOnEveryHost = (event: EventName): HostJudgement[] => Object.values(HOSTS).map((host) => judgeOnHost(host, event));

/** The events of the conformance table in docs/hosts.md: one payload of each kind. */
export const CONFORMANCE_EVENTS: readonly EventName[] = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
];

const cell = (t: HostTreatment) => (t === "no-event" ? "-" : t);

/**
 * The judgements of events as a Markdown table, a row per event and host: what `qhooks explain EVENT --payload F
 * --each-host` prints for an event with no hooks configured, and the table of docs/hosts.md.
 */
export function conformanceTable(events: readonly EventName[]): string {
  const lines = ["| event | host | host's name | allow | deny/block | ask |", "| --- | --- | --- | --- | --- | --- |"];
  for (const event of events)
    for (const j of judgeOnEveryHost(event))
      lines.push(`| ${event} | ${j.name} | ${j.hostEvent === null ? "(none)" : `\`${j.hostEvent}\``} | ${cell(j.allow)} | ${cell(j.deny)} | ${cell(j.ask)} |`);
  return lines.join("\n");
}
