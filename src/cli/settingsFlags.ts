import { loadSettings, type SettingsSnapshot } from "../settings/loadSettings.js";
import { planSettings } from "../settings/settingsPlan.js";
import type { CliContext } from "./globals.js";

/**
 * The settings in force for a command that takes `--settings FILE` and `--plugin DIR` as `run` does: those files
 * instead of the three levels when given, the plugins added, loaded as one snapshot.
 */
export function settingsOfFlags(
  flags: { readonly settings: readonly string[]; readonly plugin: readonly string[] },
  context: CliContext,
  projectDir: string = context.projectDir,
): SettingsSnapshot {
  const { sources, plugins } = planSettings({
    homeDir: context.homeDir,
    projectDir,
    dialect: context.dialect,
    settingsFiles: flags.settings.length ? flags.settings : undefined,
    plugins: flags.plugin,
    baseDir: process.cwd(),
    // What moves a host's files ($COPILOT_HOME, $CODEX_HOME, Gemini CLI's system paths): listed where the host reads them.
    env: context.env,
  });
  return loadSettings(sources, plugins);
}
