import { readRegularFile } from "../settings/readSettingsSource.js";
import { MAX_SETTINGS_BYTES } from "../settings/loadSettings.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { DoctorFinding, FindingLevel } from "../schema/doctor.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import type { TrustCheck } from "../trust/trustPolicy.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";
import { commandPrograms, type ProgramRef } from "./commandPrograms.js";
import { JsonLines } from "./jsonLines.js";
import { onPath, probeFile, type FileProbe } from "./probeFile.js";
import type { DoctorContext, DoctorRule, RawFinding } from "./rule.js";
import { NO_HISTORY, type RunHistory } from "./runHistory.js";
import { messageOf } from "../errors.js";
import { RULES } from "./rules/index.js";

export interface DoctorInput {
  readonly snapshot: SettingsSnapshot;
  readonly dialect: Dialect;
  readonly projectDir: string;
  readonly homeDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly trust: TrustCheck | null;
  /** What the log says of the hooks' runs (foldRunHistory); none when absent. */
  readonly history?: RunHistory | undefined;
}

export const LEVEL_RANK: Readonly<Record<FindingLevel, number>> = { info: 0, warn: 1, error: 2 };

/** Every rule of the catalog over one configuration: its findings, each placed at its file's line. */
export function runDoctor(input: DoctorInput, rules: readonly DoctorRule[] = RULES): DoctorFinding[] {
  const byDisplay = new Map(input.snapshot.sources.map((s) => [s.display, s.path]));
  const context = doctorContext(input, byDisplay);
  const lines = new Map<string, JsonLines | null>();
  const lineOf = (file: string | null, path: string | null): number | null => {
    const abs = file === null ? undefined : byDisplay.get(file);
    if (abs === undefined) return null;
    let located = lines.get(abs);
    if (located === undefined) {
      const read = readRegularFile(abs, MAX_SETTINGS_BYTES);
      located = read.state === "read" ? new JsonLines(read.bytes.toString("utf8")) : null;
      lines.set(abs, located);
    }
    return located?.lineOf(path) ?? null;
  };
  const findings: DoctorFinding[] = [];
  for (const rule of rules) {
    for (const raw of checked(rule, context)) {
      const place = raw.place ?? placeOf(raw.hook!, raw.subPath);
      findings.push({
        rule: rule.id,
        level: raw.level ?? rule.level,
        settingsLevel: place.settingsLevel,
        file: place.file,
        filePath: place.file === null ? null : (byDisplay.get(place.file) ?? null),
        line: lineOf(place.file, place.path),
        path: place.path,
        message: raw.message,
        fix: raw.fix ?? rule.fix,
      });
    }
  }
  // By file (in settings order), then line: the order a person fixes them in. The sort is stable: within a line,
  // catalog order.
  const fileRank = new Map(input.snapshot.sources.map((s, i) => [s.display, i]));
  const rankOf = (f: DoctorFinding) => (f.file === null ? -1 : (fileRank.get(f.file) ?? input.snapshot.sources.length));
  return findings.sort((a, b) => rankOf(a) - rankOf(b) || (a.line ?? 0) - (b.line ?? 0));
}

/**
 * A rule's findings; a rule that throws (a bug, or a file system doctor did not foresee) costs its own findings and
 * gives one saying so, never the other rules' or a crash.
 */
function checked(rule: DoctorRule, context: DoctorContext): RawFinding[] {
  const found: RawFinding[] = [];
  try {
    for (const raw of rule.check(context)) found.push(raw);
  } catch (e) {
    found.push({
      place: { settingsLevel: null, file: null, path: null },
      level: "warn",
      message: `this rule stopped (${messageOf(e)}); its other findings are not shown`,
      fix: "report it as a qhooks bug",
    });
  }
  return found;
}

const placeOf = (hook: DeclaredHook, subPath: string | undefined) => ({
  settingsLevel: hook.plugin ? "plugin" : hook.level,
  file: hook.file,
  path: subPath === undefined ? hook.path : `${hook.path}.${subPath}`,
});

function doctorContext(input: DoctorInput, byDisplay: ReadonlyMap<string, string>): DoctorContext {
  const programs = new Map<string, readonly ProgramRef[]>();
  const probes = new Map<string, FileProbe>();
  const names = new Map<string, string | null>();
  const history = input.history ?? NO_HISTORY;
  return {
    ...input,
    history,
    historyOf: (hook) => history.of(hook.plugin ? "plugin" : hook.level, hook.name),
    host: hostDialect(input.dialect),
    sourcePathOf: (hook) => byDisplay.get(hook.file) ?? null,
    commandHooks: input.snapshot.hooks.filter((h) => h.handler.type === "command"),
    programs(hook) {
      const key = `${hook.plugin?.root ?? ""}\0${hook.command}`;
      let refs = programs.get(key);
      if (refs === undefined) {
        const shell = hook.handler.type === "command" ? hook.handler.shell : undefined;
        // Another shell (PowerShell, fish) reads the line its own way: not read as sh.
        refs =
          shell !== undefined && !/(^|\/)(sh|bash|dash|zsh|ksh)$/.test(shell)
            ? [{ kind: "unknown", written: hook.command, why: `it runs under ${shell}, whose syntax doctor does not read` }]
            : commandPrograms(hook.command, {
                projectDir: input.projectDir,
                homeDir: input.homeDir,
                pluginRoot: hook.plugin?.root ?? null,
                pluginData: hook.plugin?.dataDir ?? null,
              });
        programs.set(key, refs);
      }
      return refs;
    },
    probe(path) {
      let probe = probes.get(path);
      if (probe === undefined) probes.set(path, (probe = probeFile(path)));
      return probe;
    },
    which(name) {
      let found = names.get(name);
      if (found === undefined) names.set(name, (found = onPath(name, input.env.PATH)));
      return found;
    },
  };
}
