import { z } from "zod";
import { EventNameSchema } from "../../schema/events.js";
import { loadSettings } from "../../settings/loadSettings.js";
import { planSettings } from "../../settings/settingsPlan.js";
import { table } from "../format.js";
import { out } from "../io.js";
import type { CliContext } from "../globals.js";

export const HooksFlagsSchema = z.object({
  event: EventNameSchema.optional(),
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  json: z.boolean().default(false),
});
export type HooksFlags = z.infer<typeof HooksFlagsSchema>;

/** `qhooks hooks`: what is configured, where it comes from, and what is wrong with it. */
export function hooksCommand(flags: HooksFlags, context: CliContext): number {
  const { sources, plugins } = planSettings({
    homeDir: context.homeDir,
    projectDir: context.projectDir,
    dialect: context.dialect,
    settingsFiles: flags.settings.length ? flags.settings : undefined,
    plugins: flags.plugin,
    baseDir: process.cwd(),
  });
  const snapshot = loadSettings(sources, plugins);
  const hooks = snapshot.hooks.filter((h) => flags.event === undefined || h.event === flags.event);
  const seen = new Map<string, string>();
  const rows = hooks.map((h) => {
    const key = `${h.event}\0${h.plugin?.root ?? ""}\0${h.command}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, `${h.file}: ${h.path}`);
    return {
      event: h.event,
      level: h.level,
      /** The plugin the hook comes from (its name and folder); null for a settings file's own hooks. */
      plugin: h.plugin ? { name: h.plugin.name, root: h.plugin.root } : null,
      file: h.file,
      path: h.path,
      matcher: h.matcherSource,
      name: h.name,
      command: h.command,
      /** The command as the file writes it (a plugin's `${CLAUDE_PLUGIN_ROOT}` not yet filled in). */
      written: h.written,
      timeoutSeconds: h.timeoutMs / 1000,
      sameCommandAs: first ?? null,
    };
  });

  if (flags.json) {
    out(JSON.stringify({ configHash: snapshot.hash, dialect: context.dialect, projectDir: context.projectDir, files: snapshot.sources, hooks: rows, warnings: snapshot.warnings }, null, 2));
    return 0;
  }
  out(`Settings files (lowest priority first), project ${context.projectDir}:`);
  for (const s of snapshot.sources) out(`  ${(s.plugin ? `plugin ${s.plugin.name}` : s.level).padEnd(8)} ${s.display}  (${s.state})`);
  out("");
  if (rows.length === 0) out(flags.event ? `No hooks for ${flags.event}.` : "No hooks configured.");
  else {
    out(
      table(
        ["EVENT", "LEVEL", "MATCHER", "NAME / COMMAND", "TIMEOUT", "DECLARED AT"],
        rows.map((r) => [
          r.event,
          r.plugin ? `plugin ${r.plugin.name}` : r.level.length > 12 ? `…${r.level.slice(-11)}` : r.level,
          r.matcher ?? "*",
          // A default name says it all: the command, or for a plugin's hook the plugin and the command as written.
          r.name === r.command || r.name === `${r.plugin?.name}: ${r.written}` ? r.name : `${r.name}: ${r.command}`,
          `${r.timeoutSeconds}s`,
          `${r.file} ${r.path}`,
        ]),
      ),
    );
  }
  // Below the table, whose cells are cut at 60 characters: appended to DECLARED AT, this note never showed.
  const repeats = rows.filter((r) => r.sameCommandAs !== null);
  if (repeats.length) {
    out("");
    out(`Repeated commands (${repeats.length}): an identical command runs once per event, at its first position:`);
    for (const r of repeats) out(`  ${r.event} ${r.file} ${r.path}: same command as ${r.sameCommandAs}, runs once`);
  }
  if (snapshot.warnings.length) {
    out("");
    out(`Warnings (${snapshot.warnings.length}): these entries are skipped or read differently than written:`);
    for (const w of snapshot.warnings) out(`  ${w}`);
  }
  out("");
  out(`Config hash ${snapshot.hash.slice(0, 12)}; qhooks reads these files at every call, so edits apply at once.`);
  return 0;
}
