import type { LogFilter } from "../schema/logFilter.js";
import { otherHookNames } from "../settings/hookNames.js";
import type { CliContext } from "./globals.js";
import { settingsOfFlags } from "./settingsFlags.js";

/**
 * A log filter whose `--hook NAME` also selects the runs the log stored under the hook's other names (its old
 * whole-command or plugin-qualified name, or its short name now), as the project's configuration names them. The
 * configuration is read only when `--hook` is given; `settings` are the files a command judges with (`replay
 * --settings`), the levels on disk when none.
 */
export function withOtherHookNames(filter: LogFilter, context: CliContext, settings: readonly string[] = []): LogFilter {
  if (filter.hook === undefined) return filter;
  const aliases = settingsOfFlags({ settings, plugin: [] }, context).hookAliases ?? new Map<string, string>();
  const hookNames = otherHookNames(aliases, filter.hook);
  return hookNames.length === 0 ? filter : { ...filter, hookNames };
}
