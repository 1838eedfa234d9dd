import type { LogEntry } from "../store/eventLog.js";
import type { Redactor } from "./redactor.js";

/**
 * A log entry as the log may keep it: secrets in the payload (or a rejected payload as it arrived), its match value, the rejection's
 * reason, the outcome (hook output, reasons, context, updated input...) and the configuration's hooks sections
 * replaced by markers. Only the copy that goes to the log: hooks and the agent get everything as it was.
 */
export function redactEntry(entry: LogEntry, redactor: Redactor): LogEntry {
  switch (entry.kind) {
    case "event": {
      const payload = redactor.json(entry.payload);
      // The value matchers were tested against is a payload field (StopFailure's `error`, a file path): `qhooks log`
      // shows it in a column of its own.
      const matchValue = entry.matchValue === null ? null : redactor.text(entry.matchValue);
      const rejection = entry.rejection === null ? null : redactor.text(entry.rejection);
      const outcome = entry.outcome === null ? null : redactor.value(entry.outcome);
      const snapshot = entry.snapshot === null ? null : redactSnapshot(entry.snapshot, redactor);
      if (
        payload === entry.payload &&
        matchValue === entry.matchValue &&
        rejection === entry.rejection &&
        outcome === entry.outcome &&
        snapshot === entry.snapshot
      )
        return entry;
      return { ...entry, payload, matchValue, rejection, outcome, snapshot };
    }
    case "outcome": {
      const outcome = redactor.value(entry.outcome);
      return outcome === entry.outcome ? entry : { ...entry, outcome };
    }
    case "hook": {
      const result = redactor.value(entry.result);
      return result === entry.result ? entry : { ...entry, result };
    }
    case "replay-run":
      return entry;
  }
}

/**
 * Redacted once per configuration and redactor: every event carries its configuration's snapshot (the store keeps
 * it once per hash), and a large settings file would otherwise be serialised again for each event.
 */
const snapshotCache = new WeakMap<Redactor, WeakMap<object, { source: readonly string[]; document: unknown; warnings: readonly string[] }>>();

function redactSnapshot<S extends { readonly document: unknown; readonly warnings: readonly string[] }>(snapshot: S, redactor: Redactor): S {
  const key = typeof snapshot.document === "object" && snapshot.document !== null ? snapshot.document : null;
  let byDocument = snapshotCache.get(redactor);
  const cached = key && byDocument?.get(key);
  if (cached && cached.source === snapshot.warnings) {
    return cached.document === snapshot.document && cached.warnings === snapshot.warnings
      ? snapshot
      : { ...snapshot, document: cached.document, warnings: cached.warnings };
  }
  const document = redactor.value(snapshot.document);
  const warnings = redactor.value(snapshot.warnings);
  if (key) {
    if (!byDocument) snapshotCache.set(redactor, (byDocument = new WeakMap()));
    byDocument.set(key, { source: snapshot.warnings, document, warnings });
  }
  return document === snapshot.document && warnings === snapshot.warnings ? snapshot : { ...snapshot, document, warnings };
}
