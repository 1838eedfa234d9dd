// The public surface of qhooks: re-exports only.

// The embeddable bus.
export { createHookBus, HookBusOptionsSchema, UseOptionsSchema } from "./engine/createHookBus.js";
export type { HookBus, HookBusOptions, InProcessHook, UseOptions } from "./engine/createHookBus.js";
export { judgeOnce } from "./engine/judgeOnce.js";
export type { JudgeOnceOptions, JudgeOnceResult } from "./engine/judgeOnce.js";
export { recordEvent } from "./engine/recordEvent.js";

// The pipeline and its operators, for agents that compose their own streams.
export { judgeEvents } from "./streams/pipeline.js";
export type { PipelineOptions } from "./streams/pipeline.js";
export { replay$, DEFAULT_REPLAY_CONCURRENCY } from "./streams/replay.js";
export type { ReplayOptions } from "./streams/replay.js";
export { pullInOrder } from "./streams/pullInOrder.js";
export { settingsSnapshot$ } from "./streams/settings$.js";
export { validateEvent } from "./operators/validateEvent.js";
export { matchHooks, selectHooks } from "./operators/matchHooks.js";
export { refuseRecursion } from "./operators/refuseRecursion.js";
export { recordArrival, recordOutcome, recordRejection } from "./operators/recordToLog.js";
export { runHooks, runOneHook } from "./operators/runHooks.js";
export { raceTimeout } from "./operators/raceTimeout.js";
export type { TimeoutInfo } from "./operators/raceTimeout.js";
export { mapExitCode, interpretRun } from "./operators/mapExitCode.js";
export { aggregateOutcome, foldVerdicts } from "./operators/aggregateOutcome.js";
export { guardStopLoop, DEFAULT_STOP_BLOCK_CAP } from "./operators/guardStopLoop.js";
export { unlessRejected } from "./operators/unlessRejected.js";
export type * from "./operators/stages.js";

// Schemas: every type is derived from one of these.
export * from "./schema/events.js";
export * from "./schema/settings.js";
export * from "./schema/hookOutput.js";
export * from "./schema/outcome.js";
export * from "./schema/logRecord.js";
export * from "./schema/replay.js";
export * from "./schema/eventDetail.js";
export * from "./schema/trust.js";
export * from "./schema/evaluatorAnswer.js";

// Settings.
export { loadSettings, buildSnapshot } from "./settings/loadSettings.js";
export type { SettingsSnapshot, PluginPlan } from "./settings/loadSettings.js";
export { discoverSettings, explicitSettings, DIALECTS } from "./settings/settingsSources.js";
export type { SettingsSource, Dialect, PluginInfo } from "./settings/settingsSources.js";
export { planSettings } from "./settings/settingsPlan.js";
export type { SettingsChoice, SettingsPlan } from "./settings/settingsPlan.js";
export { compileMatcher, matches } from "./settings/compileMatcher.js";

// Trust: which hooks of a project, its local settings and plugins may run (judgeEvents' `trust` option).
export { createTrustPolicy } from "./trust/trustPolicy.js";
export type { TrustPolicy, TrustSetup } from "./trust/trustPolicy.js";

// Payloads and the hook protocol.
export { parsePayload, MAX_PAYLOAD_BYTES } from "./payload/parsePayload.js";
export type { ValidEvent, RejectedEvent } from "./payload/parsePayload.js";
export { toHookProtocol } from "./output/hookProtocol.js";

// The event log: the port, and the SQLite backend.
export { nullEventLog } from "./store/eventLog.js";
export { LogFilterSchema } from "./schema/logFilter.js";
export type { EventLog, AuditLog, AppendResult, LogWarning, LogEntry, LogFilter, StoredEvent } from "./store/eventLog.js";
export type { LogMaintenance, EraseSelector, EraseResult, PruneResult } from "./store/eventLog.js";
export { createRedactor, builtInRedactor, type Redactor, type RedactPattern } from "./redact/redactor.js";
export { openSqliteLog } from "./store/sqlite/sqliteEventLog.js";
// A file or a postgres:// URL; the PostgreSQL backend is loaded on first use.
export { openStore, isPostgresUrl, type Store, type OpenStoreOptions } from "./store/openStore.js";

export { QhooksError } from "./errors.js";

// Handlers that are not commands: what an embedding agent lends them.
export type { Evaluator, EvaluatorRequest, McpToolCaller, McpToolRequest, HandlerServices } from "./handlers/services.js";
export { parseEnvLines } from "./handlers/envFile.js";
