import type { DoctorRule } from "../rule.js";
import { hooksNotLoaded } from "./attestation.js";
import { installCliMissing, installEventMissing } from "./install.js";
import { commandMissing, commandNotChecked, commandNotExecutable, commandUnreadable, scriptNoShebang } from "./commands.js";
import { guardAsync, guardExit1, guardPrintsAllow, guardTimeout, onFailureCannotBlock } from "./guards.js";
import { matcherCase, matcherRegexRefused, matcherUnanchored, matcherUnknownTool } from "./matchers.js";
import { hookCallsQhooks } from "./recursion.js";
import { pluginMissing, settingsWarning } from "./settingsWarnings.js";
import { hookUntrusted } from "./trust.js";
import { guardWeakened } from "./precedence.js";

/** The catalog, in the order findings are reported; docs/doctor.md describes each. Adding a rule: a file and a line. */
export const RULES: readonly DoctorRule[] = [
  hooksNotLoaded,
  installCliMissing,
  installEventMissing,
  settingsWarning,
  pluginMissing,
  guardWeakened,
  hookUntrusted,
  hookCallsQhooks,
  commandMissing,
  commandNotExecutable,
  commandUnreadable,
  scriptNoShebang,
  commandNotChecked,
  matcherCase,
  matcherUnknownTool,
  matcherRegexRefused,
  matcherUnanchored,
  guardTimeout,
  guardAsync,
  guardExit1,
  guardPrintsAllow,
  onFailureCannotBlock,
];
