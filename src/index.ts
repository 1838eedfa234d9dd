// The public surface of qhooks: each name listed on purpose (test/package/surface.test.ts holds the list; a change
// to it is a change of the package's API, to be said in the CHANGELOG).

// The embeddable bus.
export { createHookBus, HookBusOptionsSchema, UseOptionsSchema } from "./engine/createHookBus.js";
export type { HookBus, HookBusOptions, InProcessHook, UseOptions } from "./engine/createHookBus.js";
export { judgeOnce } from "./engine/judgeOnce.js";
export type { JudgeOnceOptions, JudgeOnceResult } from "./engine/judgeOnce.js";
export { recordEvent } from "./engine/recordEvent.js";
export type { RecordEventOptions, RecordEventResult } from "./engine/recordEvent.js";

// The whole flow as one operator, replay as a stream, and the pure rules they are made of.
export { judgeEvents } from "./engine/pipeline.js";
export type { PipelineOptions } from "./engine/pipeline.js";
export { replay$, DEFAULT_REPLAY_CONCURRENCY } from "./engine/replay.js";
export type { ReplayOptions } from "./engine/replay.js";
export { pullInOrder } from "./engine/pullInOrder.js";
export { settingsSnapshot$ } from "./engine/settings$.js";
export { raceTimeout } from "./engine/raceTimeout.js";
export type { TimeoutInfo } from "./engine/raceTimeout.js";
export { selectHooks } from "./engine/steps/matchHooks.js";
export { interpretRun } from "./core/readRun.js";
export { foldVerdicts } from "./core/foldOutcome.js";
export type { FoldedVerdicts } from "./core/foldOutcome.js";
export { DEFAULT_STOP_BLOCK_CAP } from "./engine/steps/guardStopLoop.js";
export type { Arrival } from "./core/arrival.js";
export type { HookRun, JudgedHook } from "./core/hookRun.js";
export type { Judgement } from "./engine/stages.js";
export type { DeclaredHook, HookDescriptor, HookKind, HookPlugin, InProcessHandler, SelectedHook } from "./core/hookDescriptor.js";

// Schemas: every type is derived from one of these.
export { EventNameSchema, DecisionSchema, CommonPayloadSchema, PAYLOAD_SCHEMAS, payloadSchema } from "./schema/events.js";
export type { EventName, Decision, Payload } from "./schema/events.js";
export {
  SettingsFileSchema,
  HandlerSettingSchema,
  CommandHandlerSchema,
  HttpHandlerSchema,
  PromptHandlerSchema,
  McpToolHandlerSchema,
  QhooksSettingsSchema,
  RedactEntrySchema,
} from "./schema/settings.js";
export type {
  HandlerSetting,
  CommandHandler,
  HttpHandler,
  PromptHandler,
  McpToolHandler,
  QhooksSettings,
  RedactEntry,
  HandlerType,
} from "./schema/settings.js";
export { VerdictSchema, HOOK_OUTPUT_SCHEMAS, HandlerVerdictSchema } from "./schema/hookOutput.js";
export type { Verdict, HandlerVerdict } from "./schema/hookOutput.js";
export { HookOutcomeKindSchema, HookResultSchema, SkipReasonSchema, SkippedHookSchema, OutcomeSchema } from "./schema/outcome.js";
export type { HookOutcomeKind, HookResult, HookWarning, SkipReason, SkippedHook, Outcome } from "./schema/outcome.js";
export {
  LogDecisionSchema,
  EventSourceSchema,
  LogRecordSchema,
  SessionRowSchema,
  HookRunCountsSchema,
  StatsSchema,
  MatchCountSchema,
  VerifyResultSchema,
} from "./schema/logRecord.js";
export type { LogDecision, LogRecord, SessionRow, Stats, MatchCount, VerifyResult } from "./schema/logRecord.js";
export { ReplaySideSchema, ReplayResultSchema, ReplaySummarySchema, ReplayRunSchema } from "./schema/replay.js";
export type { ReplaySide, ReplayResult, ReplaySummary, ReplayRun } from "./schema/replay.js";
export { ChainRecordSchema, SnapshotSourceSchema, EventDetailSchema } from "./schema/eventDetail.js";
export type { ChainRecord, SnapshotSource, EventDetail } from "./schema/eventDetail.js";
export { TrustScopeSchema, TrustEntrySchema, TrustStoreSchema, TrustCandidateSchema, TrustReportSchema } from "./schema/trust.js";
export type { TrustScope, TrustEntry, TrustStore, TrustCandidate, TrustReport } from "./schema/trust.js";
export { LogFilterSchema } from "./schema/logFilter.js";
export { EvaluatorAnswerSchema } from "./schema/evaluatorAnswer.js";
export type { EvaluatorAnswer } from "./schema/evaluatorAnswer.js";

// Settings.
export { loadSettings, buildSnapshot } from "./settings/loadSettings.js";
export type { SettingsSnapshot, PluginPlan } from "./settings/loadSettings.js";
export { discoverSettings, explicitSettings } from "./settings/settingsSources.js";
export { DIALECTS } from "./hosts/hostDialect.js";
export type { SettingsSource } from "./settings/settingsSources.js";
export type { Dialect } from "./hosts/hostDialect.js";
export { planSettings } from "./settings/settingsPlan.js";
export type { SettingsChoice, SettingsPlan } from "./settings/settingsPlan.js";
export { compileMatcher, matches } from "./core/compileMatcher.js";

// Trust: which hooks of a project, its local settings and plugins may run (judgeEvents' `trust` option).
export { createTrustPolicy } from "./trust/trustPolicy.js";
export type { TrustPolicy, TrustSetup } from "./trust/trustPolicy.js";

// Payloads and the hook protocol.
export { parsePayload, MAX_PAYLOAD_BYTES } from "./payload/parsePayload.js";
export type { ValidEvent, RejectedEvent } from "./payload/parsePayload.js";
export { toHookProtocol } from "./output/hookProtocol.js";

// The event log: the port, and its backends (SQLite, or PostgreSQL for a postgres:// URL, loaded on first use).
export { nullEventLog } from "./store/eventLog.js";
export type { EventLog, AuditLog, AppendResult, LogWarning, LogEntry, LogFilter, StoredEvent } from "./store/eventLog.js";
export type { LogMaintenance, EraseSelector, EraseResult, PruneResult } from "./store/eventLog.js";
export { createRedactor, builtInRedactor, type Redactor, type RedactPattern } from "./redact/redactor.js";
export { redactorFor } from "./redact/userPatterns.js";
export { openSqliteLog } from "./store/sqlite/sqliteEventLog.js";
export { openStore, isPostgresUrl, type Store, type OpenStoreOptions } from "./store/openStore.js";

export { QhooksError } from "./errors.js";

// Handlers that are not commands: what an embedding agent lends them.
export type { Evaluator, EvaluatorRequest, McpToolCaller, McpToolRequest, HandlerServices } from "./core/services.js";
export { parseEnvLines } from "./handlers/envFile.js";
