import { nullEventLog, type EventLog } from "../store/eventLog.js";

export interface OpenEventLogOptions {
  readonly db: string | false | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
}

/** The log the options ask for. Until the SQLite store lands, every log is the null log. */
export function openEventLog(_options: OpenEventLogOptions): EventLog {
  return nullEventLog;
}
