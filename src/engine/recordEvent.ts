import { parsePayload } from "../payload/parsePayload.js";
import type { HostEventNames } from "../hosts/hostEventNames.js";
import type { Dialect } from "../schema/dialect.js";
import type { EventName } from "../schema/events.js";
import type { EventLog, LogWarning } from "../store/eventLog.js";
import { redactEntry } from "../redact/redactEntry.js";
import { builtInRedactor, type Redactor } from "../redact/redactor.js";

export interface RecordEventOptions {
  readonly input: string;
  readonly event?: EventName | undefined;
  readonly projectDir: string;
  readonly log: EventLog;
  /** What the log keeps is redacted by it (the built-in detectors when absent). */
  readonly redactor?: Redactor;
  /** The names of the host that sent it (Gemini CLI's `BeforeTool`); qhooks' own when absent. */
  readonly hostEvents?: HostEventNames | undefined;
  /** The host's payload in the shape qhooks checks (Cursor's); the log keeps the text as sent. */
  readonly readPayload?: ((fields: Readonly<Record<string, unknown>>) => Record<string, unknown>) | undefined;
  /** The host that sent it, kept in the log as `run` keeps a judged event's (the log's host column). */
  readonly host?: Dialect | undefined;
}

/** `logWarnings`: what the log said about itself while appending (the event went to a fallback file...). */
export type RecordEventResult =
  | { readonly ok: true; readonly seq: number | null; readonly logWarnings: readonly LogWarning[] }
  | { readonly ok: false; readonly error: string; readonly logWarnings: readonly LogWarning[] };

/**
 * What `qhooks record` does: validate the payload and append it, judged by nothing. A rejected payload is logged
 * too. A log that cannot be written throws: recording is this command's whole job.
 */
export async function recordEvent(options: RecordEventOptions): Promise<RecordEventResult> {
  const parsed = parsePayload(options.input, {
    event: options.event,
    projectDir: options.projectDir,
    hostEvents: options.hostEvents,
    readPayload: options.readPayload,
  });
  const redactor = options.redactor ?? builtInRedactor;
  const common = {
    kind: "event",
    ts: new Date(),
    source: "record",
    projectDir: options.projectDir,
    snapshot: null,
    replay: null,
    outcome: null,
    ...(options.host === undefined ? {} : { host: options.host }),
  } as const;
  if (!parsed.ok) {
    const { event, sessionId, raw, error } = parsed.value;
    const appended = await options.log.append([redactEntry({ ...common, event, sessionId, matchValue: null, payload: raw, rejection: error }, redactor)]);
    return { ok: false, error, logWarnings: appended.warnings };
  }
  const { event, sessionId, matchValue, json } = parsed.value;
  const appended = await options.log.append([redactEntry({ ...common, event, sessionId, matchValue, payload: json, rejection: null }, redactor)]);
  return { ok: true, seq: appended[0] ?? null, logWarnings: appended.warnings };
}
