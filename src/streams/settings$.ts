import { unwatchFile, watchFile, type Stats } from "node:fs";
import { Observable, distinctUntilChanged } from "rxjs";
import { loadSettings, type SettingsSnapshot } from "../settings/loadSettings.js";
import type { SettingsSource } from "../settings/settingsSources.js";

/**
 * How often the settings files are stat'ed. Polling (rather than fs.watch) also sees files and directories that do
 * not exist yet and editors that save by rename; three stats every 50 ms cost nothing measurable.
 */
export const SETTINGS_POLL_MS = 50;

/**
 * The current settings snapshot, then a new one each time an edit changes what the files say (contract 1.3).
 * Files are re-read synchronously in the watcher's callback, so the moment an edit is seen is the moment it
 * applies. Watching stops on unsubscribe and never keeps the process alive.
 */
export function settingsSnapshot$(
  sources: readonly SettingsSource[],
  pollMs: number = SETTINGS_POLL_MS,
): Observable<SettingsSnapshot> {
  return new Observable<SettingsSnapshot>((subscriber) => {
    subscriber.next(loadSettings(sources));
    const onChange = (current: Stats, previous: Stats) => {
      if (current.mtimeMs === previous.mtimeMs && current.size === previous.size && current.ino === previous.ino) return;
      subscriber.next(loadSettings(sources));
    };
    for (const source of sources) watchFile(source.path, { interval: pollMs, persistent: false }, onChange);
    return () => {
      for (const source of sources) unwatchFile(source.path, onChange);
    };
  }).pipe(distinctUntilChanged((a, b) => a.hash === b.hash));
}
