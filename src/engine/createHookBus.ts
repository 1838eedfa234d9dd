import { settleDataDirOnce } from "../store/dataDirMigration.js";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { BehaviorSubject, Subject, from, merge, switchMap, type Observable, type Subscription } from "rxjs";
import { z } from "zod";
import { QhooksError } from "../errors.js";
import type { Arrival } from "../core/arrival.js";
import type { Judgement } from "./stages.js";
import type { InProcessHandler, InProcessHook } from "../core/hookDescriptor.js";
import { EVENT_TRAITS, EventNameSchema, type EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import { compileMatcher } from "../core/compileMatcher.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import { dialectOf } from "../settings/settingsPlan.js";
import { DIALECTS } from "../hosts/hostDialect.js";
import type { EventLog } from "../store/eventLog.js";
import { judgeStream } from "./judgeStream.js";
import { settingsSnapshot$ } from "./settings$.js";
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, TimeoutSecondsSchema } from "../schema/settings.js";
import { engineContext } from "./context.js";
import { openEventLogWithWarnings } from "./openEventLog.js";
import { BackgroundHooks } from "../handlers/backgroundHooks.js";
import { chatEvaluatorFromEnv } from "../handlers/chatEvaluator.js";
import type { Evaluator, McpToolCaller } from "../core/services.js";

/** Options of `createHookBus`. */
export const HookBusOptionsSchema = z.object({
  projectDir: z.string().min(1),
  /** The OS home by default; also the hooks' HOME, so `~` means the same place in settings and in commands. */
  homeDir: z.string().min(1).optional(),
  /** A log file path or a PostgreSQL URL (postgres://...); `false` for no log; undefined for $QHOOKS_DB, else <homeDir>/.qhooks/events.db. */
  db: z.union([z.string().min(1), z.literal(false)]).optional(),
  /** Exactly these settings files, in order, instead of the three discovered levels. */
  settingsFiles: z.array(z.string().min(1)).optional(),
  /** Plugin folders in Claude Code's layout (hooks/hooks.json) whose hooks apply as well; relative to projectDir. */
  plugins: z.array(z.string().min(1)).optional(),
  /**
   * Whose settings levels are read: "qoder" (~/.qoder-cn, .qoder), "claude" (~/.claude, .claude, and the plugins
   * Claude Code has enabled), "gemini", "codex", "cursor" or "copilot" (docs/hosts.md). Undefined: $QHOOKS_DIALECT, else "qoder".
   */
  dialect: z.enum(DIALECTS).optional(),
  /** Apply edits to settings files without a restart. Default true. */
  watch: z.boolean().optional(),
  /** The environment hooks inherit; process.env by default. Also where QHOOKS_* limits are read. */
  env: z.record(z.string(), z.string().optional()).optional(),
  /**
   * Evaluates `prompt` and `agent` hooks (see Evaluator); without it, the chat endpoint of QHOOKS_EVALUATOR_URL in
   * `env`, else such hooks are skipped with a warning.
   */
  evaluator: z.custom<Evaluator>((v) => typeof v === "function", { error: "expected a function (the evaluator of prompt and agent hooks)" }).optional(),
  /** Calls the tool of an `mcp_tool` hook; without it, such hooks are skipped with a warning. */
  mcpToolCaller: z.custom<McpToolCaller>((v) => typeof v === "function", { error: "expected a function (the caller of mcp_tool hooks)" }).optional(),
});
export type HookBusOptions = z.infer<typeof HookBusOptionsSchema>;

/** Options of `bus.use()`. */
export const UseOptionsSchema = z.object({
  name: z.string().min(1).optional(),
  /** Seconds, like a command hook's `timeout`. */
  // Timers cannot wait longer than about 24.8 days: a longer limit would fire at once. Settings warn past a day.
  timeout: TimeoutSecondsSchema.max(MAX_TIMEOUT_SECONDS, { error: `expected at most ${MAX_TIMEOUT_SECONDS} seconds (a day)` }).optional(),
});
export type UseOptions = z.infer<typeof UseOptionsSchema>;
export type { InProcessHook };

export interface HookBus {
  /** Judges one event; resolves to its outcome, rejects (naming the field) for an invalid payload. */
  dispatch(payload: object | string): Promise<Outcome>;
  /** Registers an in-process handler; returns a function that removes it. */
  use<E extends EventName>(event: E, matcher: string | null | undefined, handler: InProcessHook<E>, options?: UseOptions): () => void;
  /** Every outcome, emitted before the dispatch() promise for it resolves. */
  readonly outcomes$: Observable<Outcome>;
  /** Settings warnings of the configuration in force (replayed to each new subscriber), then runtime warnings. */
  readonly warnings$: Observable<string>;
  /** The configuration the next dispatch will be judged by. */
  settings(): SettingsSnapshot;
  /** Lets dispatches under way finish, then stops watching and closes the log. */
  close(): Promise<void>;
}

export function createHookBus(options: HookBusOptions): HookBus {
  const parsed = HookBusOptionsSchema.safeParse(options);
  if (!parsed.success) throw new QhooksError("usage", `createHookBus: ${firstIssueLine(parsed.error)}`);
  const opts = parsed.data;
  const env = opts.env ?? process.env;
  const projectDir = resolve(opts.projectDir);
  const homeDir = resolve(opts.homeDir ?? homedir());
  const dialect = dialectOf(opts.dialect, env);
  // qhooks' own folder first (an old ~/.qoder-cn/qhooks moves to ~/.qhooks), so trust and the log are read there.
  const dataDirWarning = settleDataDirOnce(homeDir);
  const engine = engineContext({ homeDir, projectDir, env, dialect, settingsFiles: opts.settingsFiles, plugins: opts.plugins, baseDir: projectDir });
  const { sources, plugins, limits } = engine;
  const { log, warnings: logWarnings }: { log: EventLog; warnings: string[] } = openEventLogWithWarnings({ db: opts.db, env, homeDir });

  const snapshots = new BehaviorSubject<SettingsSnapshot>(engine.load());
  const watching: Subscription | null =
    opts.watch === false ? null : settingsSnapshot$(sources, undefined, plugins).subscribe((s) => s.hash !== snapshots.value.hash && snapshots.next(s));

  const handlers: InProcessHandler[] = [];
  const counters = new Map<EventName, number>();
  const outcomes = new Subject<Outcome>();
  const runtimeWarnings = new Subject<string>();
  /** Dispatches under way, until their judgement comes out: close() waits for them. */
  const pending = new Set<Promise<unknown>>();
  let closed = false;
  let closing: Promise<void> | null = null;
  const background = new BackgroundHooks(log, (w) => runtimeWarnings.next(w));

  // The same engine as the CLI's and replay's, on the same long-lived stream: the same limits, and the same trust
  // (the hooks of the project, local settings and plugins run once trusted).
  const stream = judgeStream(
    engine.pipeline({
      log,
      source: "dispatch",
      snapshot: () => snapshots.value,
      inProcess: () => handlers,
      services: { evaluator: opts.evaluator ?? chatEvaluatorFromEnv(env), mcpToolCaller: opts.mcpToolCaller },
      background,
    }),
  );

  /** Settles a dispatch's promise with its judgement: the outcome, or the caller's error. */
  const settle = (judgement: Judgement, resolve: (o: Outcome) => void, reject: (e: Error) => void): void => {
    if (judgement.kind === "outcome") {
      for (const w of judgement.outcome.warnings) runtimeWarnings.next(w);
      outcomes.next(judgement.outcome);
      resolve(judgement.outcome);
    } else if (judgement.kind === "rejected") reject(new QhooksError(judgement.rejection.kind, judgement.rejection.error));
    else reject(new Error(judgement.error, { cause: judgement.cause }));
  };

  return {
    dispatch(payload) {
      if (closed) return Promise.reject(new QhooksError("closed", "dispatch() after close()"));
      const arrival: Arrival = { input: payload, receivedAt: new Date(), startedAt: performance.now() };
      let resolve!: (o: Outcome) => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<Outcome>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // close() waits for it either way; a caller that never looks at a rejected dispatch is not an unhandled rejection.
      const done = promise.then(
        () => undefined,
        () => undefined,
      );
      pending.add(done);
      void done.then(() => pending.delete(done));
      // An event no hook matches is judged (and its record committed) before this returns.
      stream.judge(arrival).subscribe((judgement) => settle(judgement, resolve, reject));
      return promise;
    },

    use(event, matcher, handle, useOptions = {}) {
      const name = EventNameSchema.safeParse(event);
      if (!name.success) throw new QhooksError("usage", `use(): unknown event ${JSON.stringify(event)}`);
      const checked = UseOptionsSchema.safeParse(useOptions);
      if (!checked.success) throw new QhooksError("usage", `use(): ${firstIssueLine(checked.error)}`);
      const compiled = compileMatcher(matcher ?? undefined, EVENT_TRAITS[event]);
      if (compiled.matcher.kind === "never") throw new QhooksError("usage", `use(): matcher ${JSON.stringify(matcher)}: ${compiled.warnings.join("; ")}`);
      for (const w of compiled.warnings) runtimeWarnings.next(`use(): ${w}`);
      const n = (counters.get(event) ?? 0) + 1;
      counters.set(event, n);
      const handler: InProcessHandler = {
        kind: "in-process",
        level: "in-process",
        command: null,
        shadow: false,
        event,
        matcherSource: matcher ?? null,
        matcher: compiled.matcher,
        name: checked.data.name ?? `in-process:${event}#${n}`,
        timeoutMs: Math.round((checked.data.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
        // Registered for its own event, it is only ever called with that event's payload.
        handle: handle as InProcessHook,
      };
      handlers.push(handler);
      return () => {
        const i = handlers.indexOf(handler);
        if (i !== -1) handlers.splice(i, 1);
      };
    },

    outcomes$: outcomes.asObservable(),
    warnings$: merge(
      from(limits.warnings),
      from(logWarnings),
      from(dataDirWarning === null ? [] : [dataDirWarning]),
      snapshots.pipe(switchMap((s) => from(s.warnings))),
      runtimeWarnings,
    ),

    settings: () => snapshots.value,

    close() {
      // Every call, the first or a later one, resolves when the bus is really closed: a second close() that
      // resolved at once let its caller exit while dispatches still ran and the log was still open.
      closing ??= (async () => {
        closed = true;
        await Promise.all(pending);
        // Async hooks still running are stopped, each logged as stopped, before the log closes.
        await background.close();
        // What the last appends left running (a head being signed): its failure has no next append to ride on.
        for (const w of (await log.settle?.()) ?? []) runtimeWarnings.next(`event log: ${w.message}`);
        watching?.unsubscribe();
        stream.close();
        outcomes.complete();
        runtimeWarnings.complete();
        snapshots.complete();
        await log.close();
      })();
      return closing;
    },
  };
}
