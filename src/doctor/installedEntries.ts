import { QhooksError } from "../errors.js";
import { installRecordPath, type InstallScope } from "../install/installPaths.js";
import { readInstallRecord } from "../install/installRecordFile.js";
import type { InstallRecord } from "../install/installRecord.js";
import { hostKeys } from "../install/entriesEdit.js";
import type { EventName } from "../schema/events.js";
import { parseSettingsFile } from "../settings/parseSettingsFile.js";
import type { DoctorContext } from "./rule.js";

type InstallContext = Pick<DoctorContext, "host" | "env" | "dialect" | "homeDir">;

/** The host's install in a scope, null when there is none (or the host has no managed settings). */
export function installOf(context: InstallContext, scope: InstallScope): InstallRecord | null {
  const managed = context.host.managedSettings(context.env, process.platform);
  if (scope === "managed" && managed === null) return null;
  return readInstallRecord(installRecordPath(context.dialect, scope, context.homeDir, managed));
}

/**
 * The time the host gives each of qhooks' managed entries, in seconds, by event: what the install wrote, read as the
 * host reads its own files (its unit, its default where an entry names none). The host stops qhooks at that time,
 * whatever the hooks qhooks runs behind it were given. Null without a managed install.
 */
export function entryTimeouts(context: InstallContext): { file: string; seconds: ReadonlyMap<EventName, number> } | null {
  let record: InstallRecord | null;
  try {
    record = installOf(context, "managed");
  } catch (e) {
    // A record that cannot be read is install-cli-missing's to say, once.
    if (e instanceof QhooksError) return null;
    throw e;
  }
  if (record === null) return null;
  const key = hostKeys(context.host);
  const seconds = new Map<EventName, number>();
  for (const entry of record.entries) {
    // Read as a file named on purpose: qhooks' own entries are what a level it reads would drop.
    const document = JSON.stringify({ hooks: { [key(entry.event)]: [entry.group] } });
    const parsed = parseSettingsFile({ level: "managed", path: record.file, display: record.file, dialect: context.dialect, explicit: true }, document);
    for (const hook of parsed.hooks) if (hook.event === entry.event) seconds.set(entry.event, Math.max(seconds.get(entry.event) ?? 0, hook.timeoutMs / 1000));
  }
  return { file: record.file, seconds };
}
