import type { DeclaredHook } from "../core/hookDescriptor.js";
import type { FindingLevel } from "../schema/doctor.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { Dialect, HostDialect } from "../hosts/hostDialect.js";
import type { TrustCheck } from "../trust/trustPolicy.js";
import type { ProgramRef } from "./commandPrograms.js";
import type { FileProbe } from "./probeFile.js";
import type { HookRunHistory, RunHistory } from "./runHistory.js";

/** What every rule reads: the configuration as qhooks loads it, and cached looks at the files hooks run. */
export interface DoctorContext {
  readonly snapshot: SettingsSnapshot;
  readonly dialect: Dialect;
  readonly host: HostDialect;
  readonly projectDir: string;
  readonly homeDir: string;
  /** The environment hooks inherit (its PATH is where bare program names are looked up). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** null when trust is not required for this configuration. */
  readonly trust: TrustCheck | null;
  /** The absolute path of the file that declares a hook; null when not known. */
  sourcePathOf(hook: DeclaredHook): string | null;
  /** The command hooks, in settings order. */
  readonly commandHooks: readonly DeclaredHook[];
  /** What a command hook runs at its top level (cached per command and place). */
  programs(hook: DeclaredHook): readonly ProgramRef[];
  /** A file's state and head (cached per path). */
  probe(path: string): FileProbe;
  /** The path of a bare name on PATH, null when none (cached per name). */
  which(name: string): string | null;
  /** The log's history of hook runs (its newest events); empty when there is no log. */
  readonly history: RunHistory;
  /** One hook's history in the log, by its level (`plugin` for a plugin's) and name. */
  historyOf(hook: DeclaredHook): HookRunHistory | undefined;
}

/** Where a finding is, when it is not simply its hook's entry. */
export interface FindingPlace {
  readonly settingsLevel: string | null;
  /** The file as messages name it (a settings source's display). */
  readonly file: string | null;
  readonly path: string | null;
}

/** What a rule's check yields: the finding's place (a hook's, or its own) and its words; the runner adds the rest. */
export interface RawFinding {
  readonly hook?: DeclaredHook;
  readonly place?: FindingPlace;
  /** A more precise path than the hook's own (its `timeout`, its group's `matcher`). */
  readonly subPath?: string;
  readonly message: string;
  /** When the rule's own fix does not fit this case. */
  readonly fix?: string;
  /** When this case is less (or more) serious than the rule's level. */
  readonly level?: FindingLevel;
}

/** One rule of the catalog (docs/doctor.md): data, checked by the runner in catalog order. */
export interface DoctorRule {
  readonly id: string;
  readonly level: FindingLevel;
  /** What it checks, one line (for docs and `--format json`'s readers). */
  readonly summary: string;
  /** The usual fix, one line. */
  readonly fix: string;
  check(context: DoctorContext): Iterable<RawFinding>;
}

/** The events whose hooks are guards: a hook there can stop what happens (EVENT_TRAITS.blockDecision). */
export { isGuardEvent } from "./guardEvents.js";
