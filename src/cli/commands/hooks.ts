import { z } from "zod";
import { EXIT } from "../../errors.js";
import { EventFlagSchema } from "../filterFlags.js";
import { OutputFormatSchema } from "../../display/formats.js";
import { renderTable, renderTsv, type Column } from "../../display/table.js";
import { paint } from "../../display/colour.js";
import { commandTerminal } from "../../display/terminal.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";
import { err, out, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import type { TimeoutSetting } from "../../core/hookDescriptor.js";
import { settingsOfFlags } from "../settingsFlags.js";
import { attestLoad } from "../../engine/loadAttestation.js";
import { createTrustPolicy } from "../../trust/trustPolicy.js";
import { trustCommandLine } from "../../trust/trustCommandLine.js";

export const HooksFlagsSchema = z
  .object({
    event: EventFlagSchema.optional(),
    settings: z.array(z.string()).default([]),
    plugin: z.array(z.string()).default([]),
    // The report is for people, piped or not (its warnings would be lost in bare rows): tsv only when asked.
    format: OutputFormatSchema.exclude(["jsonl"]).optional(),
    json: z.boolean().default(false),
    strict: z.boolean().default(false),
    usage: z.boolean().default(false),
    since: z.string().optional(),
    until: z.string().optional(),
    utc: z.boolean().default(false),
  })
  .refine((f) => !(f.json && f.format !== undefined && f.format !== "json"), { error: "--json and --format ask for different formats; give one" })
  .refine((f) => f.usage || (f.since === undefined && f.until === undefined), { error: "--since and --until go with --usage" });
export type HooksFlags = z.infer<typeof HooksFlagsSchema>;

interface HookRow {
  readonly event: string;
  readonly level: string;
  /** The plugin the hook comes from (its name and folder); null for a settings file's own hooks. */
  readonly plugin: { readonly name: string; readonly root: string } | null;
  readonly file: string;
  readonly path: string;
  readonly matcher: string | null;
  readonly name: string;
  readonly command: string;
  /** The command as the file writes it (a plugin's `${CLAUDE_PLUGIN_ROOT}` not yet filled in). */
  readonly written: string;
  readonly timeoutSeconds: number;
  /** Where the timeout comes from: the hook's own `timeout`, or the host's default for its type and event. */
  readonly timeoutSetting: TimeoutSetting;
  readonly sameCommandAs: string | null;
  /** `shadow`: it runs, but never changes the outcome. */
  readonly mode: "enforce" | "shadow";
  /** The handler as validated: its type and every field it sets (shell, url, async, once, statusMessage...). */
  readonly handler: import("../../schema/settings.js").HandlerSetting;
}

/** `qhooks hooks`: what is configured, where it comes from, and what is wrong with it. */
export function hooksCommand(flags: HooksFlags, context: CliContext): number {
  const snapshot = settingsOfFlags(flags, context);
  // Configured on disk vs loaded: the hooks written in the files that do not run, each with why (the whole config,
  // whatever --event shows).
  const trustCommand = trustCommandLine({ projectDir: context.projectDir, dialect: context.dialect });
  const trust = createTrustPolicy({ homeDir: context.homeDir, projectDir: context.projectDir, env: context.env, dialect: context.dialect, trustCommand }).check(
    snapshot,
  );
  const attestation = attestLoad(snapshot, trust);
  const hooks = snapshot.hooks.filter((h) => flags.event === undefined || h.event === flags.event);
  const seen = new Map<string, string>();
  const rows: HookRow[] = hooks.map((h) => {
    const key = `${h.event}\0${h.plugin?.root ?? ""}\0${h.command}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, `${h.file}: ${h.path}`);
    return {
      event: h.event,
      level: h.level,
      plugin: h.plugin ? { name: h.plugin.name, root: h.plugin.root } : null,
      file: h.file,
      path: h.path,
      matcher: h.matcherSource,
      name: h.name,
      command: h.command,
      written: h.written,
      timeoutSeconds: h.timeoutMs / 1000,
      timeoutSetting: h.timeoutSetting,
      sameCommandAs: first ?? null,
      mode: h.shadow ? "shadow" : "enforce",
      handler: h.handler,
    };
  });
  // --strict, for CI: a settings file with anything wrong in it fails the check.
  const verdict = flags.strict && snapshot.warnings.length > 0 ? EXIT.failure : EXIT.ok;
  const strictLine = () => {
    if (verdict !== EXIT.ok) err(`qhooks: ${snapshot.warnings.length} settings warning${snapshot.warnings.length === 1 ? "" : "s"} (--strict)`);
  };

  const format = flags.format ?? (flags.json ? "json" : "table");
  if (format === "json") {
    out(
      JSON.stringify(
        {
          configHash: snapshot.hash,
          dialect: context.dialect,
          projectDir: context.projectDir,
          // The dialect is said once, above; each file's is the same.
          files: snapshot.sources.map(({ dialect: _dialect, ...file }) => file),
          hooks: rows,
          warnings: snapshot.warnings,
          attestation,
        },
        null,
        2,
      ),
    );
    strictLine();
    return verdict;
  }
  if (format === "tsv") {
    out(renderTsv(TSV_COLUMNS, rows));
    for (const w of snapshot.warnings) warn(escapeForTerminal(w));
    strictLine();
    return verdict;
  }

  const terminal = commandTerminal(context);
  // File names, commands and warnings come from files anyone may have committed to a repository: escaped.
  const shown = terminal.utf8 ? escapeForTerminal : escapeToAscii;
  out(`Settings files (lowest priority first), project ${shown(context.projectDir)}:`);
  for (const s of snapshot.sources) out(`  ${shown((s.plugin ? `plugin ${s.plugin.name}` : s.level).padEnd(8))} ${shown(s.display)}  (${s.state})`);
  out("");
  if (rows.length === 0) out(flags.event ? `No hooks for ${flags.event}.` : "No hooks configured.");
  else out(renderTable(TABLE_COLUMNS, rows, terminal));
  // Below the table, whose cells may be cut: appended to DECLARED AT, this note would not show.
  const repeats = rows.filter((r) => r.sameCommandAs !== null);
  if (repeats.length) {
    out("");
    out(`Repeated commands (${repeats.length}): an identical command runs once per event, at its first position:`);
    for (const r of repeats) out(`  ${r.event} ${shown(`${r.file} ${r.path}`)}: same command as ${shown(r.sameCommandAs!)}, runs once`);
  }
  if (snapshot.warnings.length) {
    out("");
    out(paint(`Warnings (${snapshot.warnings.length}): these entries are skipped or read differently than written:`, "yellow", terminal.colour === true));
    for (const w of snapshot.warnings) out(`  ${paint(shown(w), "yellow", terminal.colour === true)}`);
  }
  out("");
  const unread = attestation.unreadFiles.length ? `; ${attestation.unreadFiles.length} file(s) could not be read, their hooks not counted` : "";
  out(`Loaded ${attestation.loaded} of ${attestation.configured} hook${attestation.configured === 1 ? "" : "s"} configured on disk${unread}.`);
  for (const h of attestation.skipped) out(`  skipped ${shown(`${h.file} ${h.path}`)}${h.kind ? ` (${h.kind})` : ""}: ${shown(h.why)}`);
  if (attestation.notListed) out(`  skipped ${attestation.notListed.count} more, not listed`);
  for (const f of attestation.unreadFiles) out(`  not read ${shown(f.file)}: ${shown(f.why)}`);
  out("");
  out(`Config hash ${snapshot.hash.slice(0, 12)}; qhooks reads these files at every call, so edits apply at once.`);
  strictLine();
  return verdict;
}

/** What the TIMEOUT column says of where a timeout comes from: nothing for the hook's own, else its host's default or cap. */
const TIMEOUT_SOURCE: Readonly<Record<TimeoutSetting, string>> = { settings: "", "host-default": " (default)", "host-cap": " (host cap)" };

const TABLE_COLUMNS: Column<HookRow>[] = [
  { header: "EVENT", cell: (r) => r.event, keep: 10 },
  // A --settings file's level is its path: its end names it.
  { header: "LEVEL", cell: (r) => (r.plugin ? `plugin ${r.plugin.name}` : r.level), max: 12, min: 5, keep: 5, cutFrom: "start" },
  { header: "MATCHER", cell: (r) => r.matcher ?? "*", max: 30, min: 5, keep: 8 },
  // A default name says it all: the command, or for a plugin's hook the plugin and the command as written.
  {
    header: "NAME / COMMAND",
    cell: (r) =>
      `${r.name === r.command || r.name === `${r.plugin?.name}: ${r.written}` ? r.name : `${r.name}: ${r.command}`}${r.mode === "shadow" ? " [shadow]" : ""}`,
    max: 60,
    min: 12,
    keep: 9,
  },
  { header: "TIMEOUT", cell: (r) => `${r.timeoutSeconds}s${TIMEOUT_SOURCE[r.timeoutSetting]}`, keep: 3, align: "right" },
  { header: "DECLARED AT", cell: (r) => `${r.file} ${r.path}`, max: 80, min: 16, keep: 4, cutFrom: "start" },
];

const TSV_COLUMNS: Column<HookRow>[] = [
  { header: "EVENT", cell: (r) => r.event, keep: 0 },
  { header: "LEVEL", cell: (r) => (r.plugin ? `plugin ${r.plugin.name}` : r.level), keep: 0 },
  { header: "MATCHER", cell: (r) => r.matcher ?? "", keep: 0 },
  { header: "NAME", cell: (r) => r.name, keep: 0 },
  { header: "COMMAND", cell: (r) => r.command, keep: 0 },
  { header: "TIMEOUT", cell: (r) => String(r.timeoutSeconds), keep: 0 },
  { header: "FILE", cell: (r) => r.file, keep: 0 },
  { header: "PATH", cell: (r) => r.path, keep: 0 },
];
