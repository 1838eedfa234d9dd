import { Observable, defer, finalize, from, map, mergeMap, of } from "rxjs";
import { limitsFromEnv } from "./limits.js";
import { matchStep } from "./steps/matchHooks.js";
import type { Arrival } from "../core/arrival.js";
import { isRejected } from "../core/rejected.js";
import { validateStep } from "./steps/validateEvent.js";
import type { ReplayResult, ReplayRun } from "../schema/replay.js";
import { isErasedPayload } from "../schema/erasedPayload.js";
import { oneLineText } from "../text/oneLine.js";
import { replayOverrides, type ReplayOverrides } from "./replayOverrides.js";
import { sha256Hex } from "../json/canonicalHash.js";
import type { EventName } from "../schema/events.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import { DEFAULT_DIALECT, type Dialect } from "../hosts/hostDialect.js";
import { DialectSchema } from "../schema/dialect.js";
import type { AuditLog, EventLog, LogFilter, StoredEvent } from "../store/eventLog.js";
import type { TrustPolicy } from "../trust/trustPolicy.js";
import { engineContext, type EngineContext } from "./context.js";
import { judgeStream, type JudgeStream } from "./judgeStream.js";
import type { OnceMemory } from "../handlers/once.js";
import { pullInOrder } from "./pullInOrder.js";
import { addToSummary, compare, emptySummary, liveEffects, NO_PLAN, outcomeSide, skipped, withPlan, type Plan } from "./replayResults.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";
import { isDirectory } from "../settings/isDirectory.js";

export interface ReplayOptions {
  /** Where the events come from, and where the replay run is recorded. */
  readonly log: EventLog & AuditLog;
  /** Which live events to re-judge; replay takes every match, oldest first. */
  readonly filter: LogFilter;
  /** Judge with exactly these settings files; by default, the settings on disk now for each event's project. */
  readonly settingsFiles?: readonly string[] | undefined;
  readonly homeDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Show which hooks would run, without running anything. */
  readonly matchOnly?: boolean;
  /** Events of these kinds are not judged: their hooks do not run (each result says so). */
  readonly skipEvents?: readonly EventName[];
  /**
   * False: the run is not logged (no replay-run records): a match-only pass made to count what a replay would run
   * before it runs (replayPlan). Events are never logged with `matchOnly`.
   */
  readonly recordRun?: boolean;
  /** Judge shadow hooks (`"mode": "shadow"`) as enforced ones: what enforcing them would change. */
  readonly enforceShadow?: boolean;
  /** How many events are judged at once (the hooks of one event always run together). */
  readonly concurrency?: number;
  readonly runId?: string;
  /** Where relative `settingsFiles` and `plugins` are resolved. */
  readonly cwd?: string;
  /**
   * Whose settings levels are read when `settingsFiles` is absent (and whether Claude Code's plugins load), and whose
   * defaults apply. Absent: each event's own, as its logged configuration says (the default for one logged without).
   */
  readonly dialect?: Dialect;
  /** Plugin folders whose hooks apply as well. */
  readonly plugins?: readonly string[] | undefined;
  /**
   * Told each warning `qhooks run` would print for the same settings and environment (a missing or broken settings
   * file, a bad QHOOKS_* value), once per configuration, and that the selection matched no event.
   */
  readonly onWarning?: (warning: string) => void;
}

export const DEFAULT_REPLAY_CONCURRENCY = 4;

export const newRunId = (now = new Date()): string =>
  `replay-${now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)}-${Math.random().toString(16).slice(2, 6)}`;

/**
 * Re-judges recorded events with a hook configuration: the same pipeline as live
 * dispatch, fed from the log, with QHOOKS_REPLAY=1 in the hooks' environment. Emits one result per event, in log
 * order; the replayed events and outcomes are appended to the log under the run's id, apart from live history.
 */
export function replay$(options: ReplayOptions): Observable<ReplayResult> {
  return defer(() => {
    const runId = options.runId ?? newRunId();
    const warn = options.onWarning ?? (() => undefined);
    for (const w of limitsFromEnv(options.env).warnings) warn(w);
    // A missing or broken file judges as if it had no hooks: without its warning, every "newly allowed" line would
    // look like the new rules' doing.
    const warned = new Set<string>();
    const skipEvents = new Set(options.skipEvents ?? []);
    // Each project a replayed event belongs to gets its engine (its settings and trust are the project's).
    // Keyed by the event's host and project: `${dialect}\0${projectDir}`.
    const engines = new Map<string, EngineContext>();
    const engineFor = (projectDir: string, dialect: Dialect): EngineContext => {
      const key = `${dialect}\0${projectDir}`;
      let engine = engines.get(key);
      if (!engine) {
        engine = engineContext({
          homeDir: options.homeDir,
          projectDir,
          env: options.env,
          dialect,
          settingsFiles: options.settingsFiles,
          plugins: options.plugins,
          baseDir: options.cwd ?? process.cwd(),
        });
        engines.set(key, engine);
      }
      return engine;
    };
    const load = (projectDir: string, dialect: Dialect): Judging => {
      const snapshot = engineFor(projectDir, dialect).load();
      const settings = options.enforceShadow ? enforcingShadow(snapshot) : snapshot;
      const overrides = replayOverrides(settings);
      if (!warned.has(snapshot.hash)) {
        warned.add(snapshot.hash);
        for (const w of snapshot.warnings) warn(w);
        // A misspelt name would run the hook whose side effects it was meant to spare.
        for (const name of overrides.unknownNames) warn(`qhooks.replay: no hook is named "${oneLineText(name)}"; nothing is skipped or stubbed for it`);
      }
      return { settings, ...overrides };
    };
    const explicits = new Map<Dialect, Judging>();
    const explicitFor = (dialect: Dialect): Judging | null => {
      if (!options.settingsFiles?.length) return null;
      let judging = explicits.get(dialect);
      if (!judging) explicits.set(dialect, (judging = load(options.cwd ?? process.cwd(), dialect)));
      return judging;
    };
    const snapshots = new Map<string, Judging>();
    // Replays run hooks for real: the hooks that trust keeps from running live do not run here either.
    const trustFor = (projectDir: string, dialect: Dialect): TrustPolicy => engineFor(projectDir, dialect).trust;
    // Each project's settings are read once per replay (and host): every event of a run is judged by the same config.
    const settingsFor = (projectDir: string, dialect: Dialect): Judging | string => {
      const explicit = explicitFor(dialect);
      if (explicit) return explicit;
      if (!isDirectory(projectDir)) return `its project directory ${projectDir} no longer exists; pass --settings to judge it`;
      const key = `${dialect}\0${projectDir}`;
      let snapshot = snapshots.get(key);
      if (!snapshot) snapshots.set(key, (snapshot = load(projectDir, dialect)));
      return snapshot;
    };
    // The host an event is judged under: the one asked for, else the one its logged configuration names, else (a
    // recorded event, judged by none) the host that sent it.
    const dialectOf = async (record: StoredEvent): Promise<Dialect> => {
      if (options.dialect !== undefined) return options.dialect;
      const detail = await options.log.event(record.seq);
      const sent = DialectSchema.safeParse(detail?.origin.host);
      return detail?.snapshot?.dialect ?? (sent.success ? sent.data : DEFAULT_DIALECT);
    };

    // One stream per project a replayed event belongs to (its settings and trust are the project's), made when its
    // first event comes and used for every later one: the steps are made once, not once per event.
    const streams = new Map<string, { judge: JudgeStream; match: (arrival: Arrival) => Plan | string }>();
    const liveSeq = new Map<Arrival, number>();
    // Each replayed event is judged on its own, as when every event had a pipeline of its own: a `once` hook is a
    // first run for each of them.
    const once: OnceMemory = { claim: () => true };
    const streamFor = (projectDir: string, dialect: Dialect, judging: Judging) => {
      const key = `${dialect}\0${projectDir}`;
      let stream = streams.get(key);
      if (!stream) {
        const validate = validateStep({ projectDir, snapshot: () => judging.settings, dialect });
        const match = matchStep(undefined, trustFor(projectDir, dialect), { once });
        stream = {
          judge: judgeStream({
            ...engineFor(projectDir, dialect).pipeline({
              log: options.log,
              source: "replay",
              replay: true,
              replayRun: { runId, of: (matched) => liveSeq.get(matched.arrival)! },
              snapshot: () => judging.snapshot,
              once,
            }),
            stub: judging.stub,
          }),
          // What matches with the whole configuration, and what of it runs once qhooks.replay has its say.
          match: (arrival) => {
            const validated = validate(arrival);
            if (isRejected(validated)) return validated.rejection.error;
            const all = match(validated).hooks.map((h) => h.name);
            if (judging.snapshot === judging.settings) return { all, skipped: [], stubbed: [], runs: all };
            const kept = match({ ...validated, snapshot: judging.snapshot }).hooks;
            const names = new Set(kept.map((h) => h.name));
            const stubbed = kept.filter((h) => judging.stub(h) !== undefined).map((h) => h.name);
            return { all, skipped: all.filter((n) => !names.has(n)), stubbed, runs: [...names].filter((n) => !stubbed.includes(n)) };
          },
        };
        streams.set(key, stream);
      }
      return stream;
    };

    const judge = (record: StoredEvent): Observable<ReplayResult> => {
      // Reported, not silently dropped: the selection said "every match".
      if (record.decision === "rejected") return of(skipped(record, `its payload was rejected when it arrived (${record.reason ?? "invalid"})`));
      if (isErasedPayload(record.payload)) return of(skipped(record, "its content was erased (qhooks erase)"));
      if (record.event !== null && skipEvents.has(record.event)) return of({ ...skipped(record, `--skip-event ${record.event}`), skipEvent: true as const });
      return from(dialectOf(record)).pipe(mergeMap((dialect) => judgeAs(record, dialect)));
    };

    const judgeAs = (record: StoredEvent, dialect: Dialect): Observable<ReplayResult> => {
      const judging = settingsFor(record.projectDir, dialect);
      if (typeof judging === "string") return of(skipped(record, judging));
      // A project that is gone is judged from the current directory, with --settings alone.
      const projectDir = isDirectory(record.projectDir) ? record.projectDir : (options.cwd ?? process.cwd());
      const arrival: Arrival = { input: record.payload, event: record.event ?? undefined, receivedAt: new Date(), startedAt: performance.now() };
      const stream = streamFor(projectDir, dialect, judging);
      const matched = stream.match(arrival);
      if (options.matchOnly) {
        return of(
          typeof matched === "string"
            ? skipped(record, matched)
            : withPlan(compare(record, { decision: null, blocked: false, reason: null, hooks: matched.all }, null, null), matched),
        );
      }
      // A payload that does not validate goes through the pipeline all the same: it reports (and logs) the rejection.
      const plan = typeof matched === "string" ? NO_PLAN : matched;
      liveSeq.set(arrival, record.seq);
      return stream.judge.judge(arrival).pipe(
        mergeMap((judgement) => {
          if (judgement.kind !== "outcome") return of(skipped(record, judgement.kind === "rejected" ? judgement.rejection.error : judgement.error));
          // What a hook says now is shown as the log keeps it: redacted by the configuration it was judged by.
          const outcome = judging.settings.redactor.value(judgement.outcome);
          return from(liveEffects(options.log, record)).pipe(map((live) => withPlan(compare(record, outcomeSide(outcome), outcome, live), plan)));
        }),
        finalize(() => liveSeq.delete(arrival)),
      );
    };

    const start: ReplayRun = {
      runId,
      startedAt: new Date().toISOString(),
      finishedAt: null,
      matchOnly: options.matchOnly ?? false,
      ...(options.enforceShadow ? { enforceShadow: true as const } : {}),
      settings: options.settingsFiles?.length ? (explicitFor(options.dialect ?? DEFAULT_DIALECT)?.settings.sources.map((s) => s.path) ?? null) : null,
      ...(skipEvents.size ? { skipEvents: [...skipEvents] } : {}),
      selector: selectorOf(options.filter),
      summary: null,
    };
    const summary = emptySummary(runId);
    const recordRun = options.recordRun ?? true;
    const append = (run: ReplayRun): Promise<unknown> => (recordRun ? options.log.append([{ kind: "replay-run", ts: new Date(), run }]) : Promise.resolve());
    return from(append(start)).pipe(
      mergeMap(
        () =>
          new Observable<ReplayResult>((subscriber) => {
            const results = pullInOrder(options.log.read(options.filter), options.concurrency ?? DEFAULT_REPLAY_CONCURRENCY, judge).subscribe({
              next: (result) => {
                addToSummary(summary, result);
                subscriber.next(result);
              },
              error: (e: unknown) => subscriber.error(e),
              complete: () => {
                if (summary.events === 0) warn("no recorded event matches this selection; nothing was replayed");
                const finished: ReplayRun = { ...start, finishedAt: new Date().toISOString(), summary };
                append(finished).then(
                  () => subscriber.complete(),
                  (e: unknown) => subscriber.error(e),
                );
              },
            });
            return () => {
              results.unsubscribe();
              for (const stream of streams.values()) stream.judge.close();
            };
          }),
      ),
    );
  });
}

/** The configuration a project's events are judged by: as written, and as a replay runs it. */
interface Judging extends ReplayOverrides {
  /** As written (shadow hooks enforced with `enforceShadow`): what matching shows. */
  readonly settings: SettingsSnapshot;
}

function selectorOf(filter: LogFilter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) if (v !== undefined) out[k] = v instanceof Date ? v.toISOString() : v;
  return out;
}

/**
 * The same configuration with its shadow hooks enforced. Its hash says so (the log traces each replayed decision to
 * the configuration that made it); its logged document is the files' own, `"mode": "shadow"` and all.
 */
export function enforcingShadow(snapshot: SettingsSnapshot): SettingsSnapshot {
  if (!snapshot.hooks.some((h) => h.shadow)) return snapshot;
  const hooks = snapshot.hooks.map((h) => (h.shadow ? { ...h, shadow: false } : h));
  const byEvent = new Map<EventName, DeclaredHook[]>();
  for (const hook of hooks) byEvent.set(hook.event, [...(byEvent.get(hook.event) ?? []), hook]);
  return { ...snapshot, hash: sha256Hex(`${snapshot.hash}\nshadow hooks enforced`), hooks, byEvent };
}
