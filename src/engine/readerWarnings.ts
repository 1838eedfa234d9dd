import type { SettingsSnapshot } from "../settings/loadSettings.js";

/** Where a reader warning is: the file's level, the file as messages name it, the JSON path (when it gives one). */
export interface FindingPlace {
  readonly settingsLevel: string | null;
  readonly file: string | null;
  readonly path: string | null;
}

/** A reader warning, split into the file it names, the JSON path in it (when it gives one), and the problem. */
export interface SplitWarning {
  readonly place: FindingPlace;
  readonly message: string;
}

/**
 * The settings reader's warnings (`<file>: <json path>: <problem>`), each split into its parts. A warning that names
 * no file of the configuration (an installed-plugins list) keeps its whole text as the message.
 */
export function splitWarnings(snapshot: SettingsSnapshot): SplitWarning[] {
  const sources = [...snapshot.sources].sort((a, b) => b.display.length - a.display.length);
  return snapshot.warnings.map((warning) => {
    const source = sources.find((s) => warning.startsWith(`${s.display}: `));
    if (source === undefined) return { place: { settingsLevel: null, file: null, path: null }, message: warning };
    const rest = warning.slice(source.display.length + 2);
    const m = /^((?:hooks|qhooks|enabledPlugins)(?:[.[][^:\s]*)?): (.*)$/s.exec(rest);
    return { place: { settingsLevel: source.level, file: source.display, path: m ? m[1]! : null }, message: m ? m[2]! : rest };
  });
}
