import { selectHooks } from "../engine/steps/matchHooks.js";
import { parsePayload } from "../payload/parsePayload.js";
import { callerHostOf, loggedCallerOf, payloadReading } from "../hosts/callerHost.js";
import type { EventDetail } from "../schema/eventDetail.js";
import type { EventName } from "../schema/events.js";
import type { Explanation } from "../schema/explanation.js";
import { engineContext } from "../engine/context.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { splitByTrust } from "../trust/splitByTrust.js";
import { explainEvent } from "./explainEvent.js";
import { attestLoad } from "../engine/loadAttestation.js";
import { configOfSettings, configOfSnapshot } from "./loggedConfig.js";

/** Why explain cannot go on: a value, for the CLI to say in one line. */
export type ExplainProblem = { readonly kind: "no-event-name"; readonly message: string } | { readonly kind: "invalid-payload"; readonly message: string };

/**
 * A logged event explained from what the log holds: the configuration snapshot it was judged by (never the files
 * as they are now) and its outcome.
 */
export function explainLogged(detail: EventDetail): { ok: true; explanation: Explanation } | { ok: false; problem: ExplainProblem } {
  if (detail.event === null) {
    return {
      ok: false,
      problem: {
        kind: "no-event-name",
        message: `event #${detail.seq} was rejected before it named a known event (${detail.rejection ?? "invalid payload"}); there is nothing to explain`,
      },
    };
  }
  const unknown: string[] = [];
  if (detail.snapshot === null) {
    unknown.push(
      detail.decision === "recorded" || detail.decision === "rejected"
        ? `a ${detail.decision} event is not judged, so no configuration was logged with it: which hooks were configured then is not known`
        : "the log holds no configuration snapshot for this event: which hooks were configured then, and why the others did not run, is not known; only the hooks that ran are shown",
    );
  } else if (detail.snapshot.sources === undefined) {
    unknown.push(
      "this snapshot was logged before qhooks kept the settings files' names and plugin folders: files are named by their path, and a plugin hook's ${CLAUDE_PLUGIN_ROOT} is not expanded",
    );
  }
  const view = detail.snapshot ? configOfSnapshot(detail.snapshot) : null;
  const caller = loggedCaller(detail);
  const explanation = explainEvent({
    seq: detail.seq,
    ts: detail.ts,
    event: detail.event,
    sessionId: detail.sessionId,
    matchValue: detail.matchValue,
    basis: "log",
    configHash: detail.snapshot?.hash ?? detail.outcome?.configHash ?? null,
    view,
    configWarnings: detail.snapshot?.warnings ?? [],
    // Kept by the log when an entry did not load; else every entry of the logged sections loaded, as counted here.
    attestation: detail.snapshot?.attestation ?? (view ? attestLoad(view.snapshot, null) : null),
    outcome: detail.outcome,
    decision: detail.decision,
    ...(detail.rejection !== null ? { notJudged: detail.rejection } : {}),
    unknown,
    caller,
  });
  return { ok: true, explanation };
}

/** Who called the entry that judged a logged event, when it was another host than the entry's (from the stored payload). */
function loggedCaller(detail: EventDetail): Explanation["caller"] {
  const entry = detail.origin.host;
  const host = loggedCallerOf(parsedOrNull(detail.payload), entry);
  return host === null || entry === null ? null : { host, entry: entry as Dialect };
}

const parsedOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

export interface ExplainPayloadOptions {
  readonly event: EventName;
  /** The payload as JSON text. */
  readonly input: string;
  readonly projectDir: string;
  readonly homeDir: string;
  readonly settingsFiles?: readonly string[] | undefined;
  readonly plugins?: readonly string[] | undefined;
  readonly dialect?: Dialect | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * An event that was never logged, explained with the settings as they are now: which hooks would run and why the
 * others would not. No hook runs, so no decision is given.
 */
export function explainPayload(options: ExplainPayloadOptions): { ok: true; explanation: Explanation } | { ok: false; problem: ExplainProblem } {
  // A payload of another host sent to this host's entry (Cursor's to Claude Code's) is read as `qhooks run` reads it.
  const sender = options.dialect === undefined ? null : callerHostOf(options.input, options.dialect);
  const parsed = parsePayload(options.input, {
    event: options.event,
    projectDir: options.projectDir,
    ...payloadReading(options.dialect, sender ?? options.dialect),
  });
  if (!parsed.ok) return { ok: false, problem: { kind: "invalid-payload", message: parsed.value.error } };
  const valid = parsed.value;
  // The engine `qhooks run` would assemble for these options: the same settings and the same trust.
  const { load, trust } = engineContext({ ...options, baseDir: process.cwd() });
  const live = load();
  const view = configOfSettings(live);
  const split = splitByTrust(selectHooks(valid.event, valid.matchValue, view.snapshot, []), trust.check(live));
  const explanation = explainEvent({
    seq: null,
    ts: null,
    event: valid.event,
    sessionId: valid.sessionId,
    matchValue: valid.matchValue,
    basis: "settings",
    configHash: live.hash,
    view,
    configWarnings: live.warnings,
    attestation: attestLoad(live, trust.check(live)),
    outcome: null,
    decision: null,
    wouldSkip: split.skipped,
    unknown: [],
    caller: sender === null || options.dialect === undefined ? null : { host: sender, entry: options.dialect },
  });
  return { ok: true, explanation };
}
