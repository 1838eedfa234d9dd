import { splitWarnings, type SplitWarning } from "../../engine/readerWarnings.js";
import type { DoctorRule, RawFinding } from "../rule.js";
import { isGuardAttempt } from "./precedence.js";

/** Warnings a rule of its own reports (once, with its fix): refused matcher regexes, onFailure where it does nothing. */
const ownRule = (w: SplitWarning): boolean =>
  w.place.path !== null && ((w.place.path.endsWith(".matcher") && /regex/.test(w.message)) || w.place.path.endsWith(".onFailure"));
const PLUGIN_MISSING = /is enabled, but not installed|: plugin .*: (does not exist|is not a folder|has no hooks)/;
/** A plugin warning names the plugin after its path: `qhooks.plugins[0]: plugin /x: does not exist`. */
export const isPluginMissing = (w: SplitWarning): boolean => PLUGIN_MISSING.test(w.message) || PLUGIN_MISSING.test(`: ${w.message}`);

export const pluginMissing: DoctorRule = {
  id: "plugin-missing",
  level: "error",
  summary: "a plugin enabled (enabledPlugins, qhooks.plugins, --plugin) that is not installed, not a folder, or has no hooks file",
  fix: "install the plugin (claude plugin install), correct its folder, or remove the entry",
  *check(context) {
    for (const w of splitWarnings(context.snapshot)) if (isPluginMissing(w)) yield { place: w.place, message: w.message };
  },
};

export const settingsWarning: DoctorRule = {
  id: "settings-warning",
  level: "warn",
  summary: "each warning of the settings reader (an unknown event or key, a bad value, a file that is not JSON...); an error when it costs hooks (skipped)",
  fix: "correct the entry as the message says; qhooks hooks lists the same warnings",
  *check(context) {
    for (const w of splitWarnings(context.snapshot)) {
      if (isPluginMissing(w)) continue;
      if (ownRule(w) || isGuardAttempt(w)) continue;
      const skipped = /skipped|no hooks from it|not (read|loaded)/.test(w.message);
      yield { place: w.place, message: w.message, ...(skipped ? { level: "error" } : {}) } satisfies RawFinding;
    }
  },
};
