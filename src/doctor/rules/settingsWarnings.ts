import type { DoctorContext, DoctorRule, FindingPlace, RawFinding } from "../rule.js";

/** A reader warning, split into the file it names, the JSON path in it (when it gives one), and the problem. */
interface SplitWarning {
  readonly place: FindingPlace;
  readonly message: string;
}

/** Warnings a rule of its own reports (once, with its fix): refused matcher regexes, onFailure where it does nothing. */
const ownRule = (w: SplitWarning): boolean =>
  w.place.path !== null && ((w.place.path.endsWith(".matcher") && /regex/.test(w.message)) || w.place.path.endsWith(".onFailure"));
const PLUGIN_MISSING = /is enabled, but not installed|: plugin .*: (does not exist|is not a folder|has no hooks)/;

function splitWarnings(context: DoctorContext): SplitWarning[] {
  const sources = [...context.snapshot.sources].sort((a, b) => b.display.length - a.display.length);
  return context.snapshot.warnings.map((warning) => {
    const source = sources.find((s) => warning.startsWith(`${s.display}: `));
    if (source === undefined) {
      // Plugin and installed-plugins warnings name their own place: `<file>: enabledPlugins: …`.
      const m = /^(.+?): (enabledPlugins|qhooks\.plugins\[\d+\])(: .*)$/.exec(warning);
      const file = m ? context.snapshot.sources.find((s) => s.display === m[1]) : undefined;
      if (m && file) return { place: { settingsLevel: file.level, file: file.display, path: m[2]! }, message: m[3]!.slice(2) };
      return { place: { settingsLevel: null, file: null, path: null }, message: warning };
    }
    const rest = warning.slice(source.display.length + 2);
    const m = /^((?:hooks|qhooks|enabledPlugins)(?:[.[][^:\s]*)?): (.*)$/s.exec(rest);
    return { place: { settingsLevel: source.level, file: source.display, path: m ? m[1]! : null }, message: m ? m[2]! : rest };
  });
}

export const pluginMissing: DoctorRule = {
  id: "plugin-missing",
  level: "error",
  summary: "a plugin enabled (enabledPlugins, qhooks.plugins, --plugin) that is not installed, not a folder, or has no hooks file",
  fix: "install the plugin (claude plugin install), correct its folder, or remove the entry",
  *check(context) {
    for (const w of splitWarnings(context))
      if (PLUGIN_MISSING.test(w.message) || PLUGIN_MISSING.test(`: ${w.message}`)) yield { place: w.place, message: w.message };
  },
};

export const settingsWarning: DoctorRule = {
  id: "settings-warning",
  level: "warn",
  summary: "each warning of the settings reader (an unknown event or key, a bad value, a file that is not JSON...); an error when it costs hooks (skipped)",
  fix: "correct the entry as the message says; qhooks hooks lists the same warnings",
  *check(context) {
    for (const w of splitWarnings(context)) {
      if (PLUGIN_MISSING.test(w.message) || PLUGIN_MISSING.test(`: ${w.message}`)) continue;
      if (ownRule(w)) continue;
      const skipped = /skipped|no hooks from it|not (read|loaded)/.test(w.message);
      yield { place: w.place, message: w.message, ...(skipped ? { level: "error" } : {}) } satisfies RawFinding;
    }
  },
};
