import { statSync } from "node:fs";
import { Observable, distinctUntilChanged } from "rxjs";
import { loadSettings, type PluginPlan, type SettingsSnapshot } from "../settings/loadSettings.js";
import type { SettingsSource } from "../settings/settingsSources.js";

/**
 * How often the settings files are stat'ed. Polling (rather than fs.watch) also sees files and directories that do
 * not exist yet and editors that save by rename; three stats every 50 ms cost nothing measurable.
 */
export const SETTINGS_POLL_MS = 50;

/** What a file looks like from outside: an edit, a rename over it, a chmod or a deletion all change it. */
export function stampOf(path: string): string {
  try {
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    return s === undefined ? "missing" : `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.mode}`;
  } catch (e) {
    return `error:${(e as NodeJS.ErrnoException).code ?? String(e)}`;
  }
}

/**
 * The current settings snapshot, then a new one each time an edit changes what the files say.
 * Files are re-read synchronously when a poll sees a change, so the moment an edit is seen is the moment it
 * applies. Watching stops on unsubscribe and never keeps the process alive.
 *
 * The stamps a poll compares against are taken synchronously just before the files are read. (fs.watchFile took
 * its baseline with an asynchronous first stat instead: an edit that landed between the initial read and that
 * first stat became the baseline and was never applied.) What is watched is what the last snapshot depends on
 * (`watched`: the settings files, and the plugin folders and files they lead to); a file that a read finds for the
 * first time was read before it was stamped, so it is stamped and everything read again.
 */
export function settingsSnapshot$(sources: readonly SettingsSource[], pollMs: number = SETTINGS_POLL_MS, plugins?: PluginPlan): Observable<SettingsSnapshot> {
  return new Observable<SettingsSnapshot>((subscriber) => {
    let paths: readonly string[] = sources.map((s) => s.path);
    let seen: string[] = [];
    const stampAndLoad = (): SettingsSnapshot => {
      let snapshot: SettingsSnapshot | null = null;
      // Bounded: each round can only add files named by the previous one's plugins.
      for (let round = 0; round < 4; round++) {
        seen = paths.map(stampOf);
        snapshot = loadSettings(sources, plugins);
        const known = new Set(paths);
        const next = snapshot.watched;
        const complete = next.every((p) => known.has(p));
        paths = complete ? paths : [...new Set([...paths, ...next])];
        if (complete) break;
      }
      return snapshot!;
    };
    subscriber.next(stampAndLoad());
    const timer = setInterval(() => {
      const now = paths.map(stampOf);
      if (now.every((s, i) => s === seen[i])) return;
      // Stamped before reading: an edit that lands during or after this read changes a stamp again.
      let snapshot: SettingsSnapshot;
      try {
        snapshot = stampAndLoad();
      } catch {
        // loadSettings never throws for what a file holds; should a bug make it throw, the configuration in force
        // stays (its guards included) rather than the host process dying of an exception thrown in a timer.
        seen = now;
        return;
      }
      subscriber.next(snapshot);
    }, pollMs);
    timer.unref();
    return () => clearInterval(timer);
  }).pipe(distinctUntilChanged((a, b) => a.hash === b.hash));
}
