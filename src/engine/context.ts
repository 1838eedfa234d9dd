import type { HandlerServices } from "../core/services.js";
import type { BackgroundRunner } from "../handlers/backgroundHooks.js";
import type { OnceMemory } from "../handlers/once.js";
import { loadSettings, type PluginPlan, type SettingsSnapshot } from "../settings/loadSettings.js";
import { planSettings } from "../settings/settingsPlan.js";
import type { SettingsSource } from "../settings/settingsSources.js";
import type { Dialect } from "../hosts/hostDialect.js";
import type { EventLog } from "../store/eventLog.js";
import { trustCommandLine } from "../trust/trustCommandLine.js";
import { createTrustPolicy, type TrustPolicy } from "../trust/trustPolicy.js";
import { limitsFromEnv, type Limits } from "./limits.js";
import type { PipelineOptions } from "./pipeline.js";
import type { InProcessHandler } from "../core/hookDescriptor.js";

/** What an engine is asked to judge with: whose settings, for which project, in which environment. */
export interface EngineSetup {
  readonly homeDir: string;
  readonly projectDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly dialect?: Dialect | undefined;
  /** The host that really sent the payload when not `dialect` (Cursor calling an entry pinned to Claude Code). */
  readonly payloadDialect?: Dialect | undefined;
  /** `--settings` files (or the bus's `settingsFiles`): exactly these instead of the discovered levels. */
  readonly settingsFiles?: readonly string[] | undefined;
  /** `--plugin` folders. */
  readonly plugins?: readonly string[] | undefined;
  /** What relative `settingsFiles` and `plugins` are read from. */
  readonly baseDir: string;
}

/** What one stream of judging is given besides the engine's own parts: its log, its snapshot, its services. */
export interface StreamParts {
  readonly log: EventLog;
  readonly snapshot: () => SettingsSnapshot;
  readonly source: PipelineOptions["source"];
  readonly replay?: boolean;
  readonly callChain?: readonly string[];
  readonly services?: HandlerServices;
  readonly background?: BackgroundRunner;
  readonly inProcess?: () => readonly InProcessHandler[];
  readonly once?: OnceMemory;
  readonly replayRun?: PipelineOptions["replayRun"];
}

/** An engine's parts, each made once, in one place: the settings plan, the limits, trust, the pipeline's options. */
export interface EngineContext {
  readonly setup: EngineSetup;
  readonly sources: readonly SettingsSource[];
  readonly plugins: PluginPlan;
  readonly limits: Limits;
  /** The command line that trusts this configuration's hooks, named in every warning about an untrusted one. */
  readonly trustCommand: string;
  /** The user's trust for this project, as the CLI's `run` applies it. */
  readonly trust: TrustPolicy;
  /** The settings as they are on disk now. */
  load(): SettingsSnapshot;
  /** The options of judgeEvents for one stream of this engine. */
  pipeline(parts: StreamParts): PipelineOptions;
}

/**
 * The composition root: the one place where an engine's options become its settings plan, limits, trust policy and
 * pipeline options. The bus, one-shot judging (`qhooks run`, hook tests), replay and explain are all assembled here,
 * so that an engine option is added in one place.
 */
export function engineContext(setup: EngineSetup): EngineContext {
  const settingsFiles = setup.settingsFiles?.length ? setup.settingsFiles : undefined;
  const { sources, plugins } = planSettings({
    homeDir: setup.homeDir,
    projectDir: setup.projectDir,
    dialect: setup.dialect,
    settingsFiles,
    plugins: setup.plugins,
    baseDir: setup.baseDir,
    env: setup.env,
  });
  const limits = limitsFromEnv(setup.env);
  const trustCommand = trustCommandLine({
    projectDir: setup.projectDir,
    dialect: setup.dialect,
    settingsFiles: settingsFiles && sources.map((s) => s.path),
    plugins: plugins.folders,
  });
  const trust = createTrustPolicy({ homeDir: setup.homeDir, projectDir: setup.projectDir, env: setup.env, dialect: setup.dialect, trustCommand });
  return {
    setup,
    sources,
    plugins,
    limits,
    trustCommand,
    trust,
    load: () => loadSettings(sources, plugins),
    pipeline: (parts) => ({
      projectDir: setup.projectDir,
      homeDir: setup.homeDir,
      baseEnv: setup.env,
      maxOutputBytes: limits.maxOutputBytes,
      maxEventOutputBytes: limits.maxEventOutputBytes,
      stopBlockCap: limits.stopBlockCap,
      trust,
      replay: parts.replay ?? false,
      callChain: parts.callChain ?? [],
      log: parts.log,
      source: parts.source,
      snapshot: parts.snapshot,
      dialect: setup.dialect,
      ...(setup.payloadDialect !== undefined ? { payloadDialect: setup.payloadDialect } : {}),
      ...(parts.services ? { services: parts.services } : {}),
      ...(parts.background ? { background: parts.background } : {}),
      ...(parts.inProcess ? { inProcess: parts.inProcess } : {}),
      ...(parts.once ? { once: parts.once } : {}),
      ...(parts.replayRun !== undefined ? { replayRun: parts.replayRun } : {}),
    }),
  };
}
