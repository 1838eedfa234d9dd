import { firstValueFrom, of } from "rxjs";
import type { Judgement } from "./stages.js";
import type { EventName } from "../schema/events.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { engineContext } from "./context.js";
import { switchAllOff, withRunWarnings, type RunSwitch } from "../settings/runSwitch.js";
import type { EventLog } from "../store/eventLog.js";
import { judgeEvents } from "./pipeline.js";
import { BackgroundHooks, type BackgroundRunner } from "../handlers/backgroundHooks.js";
import { chatEvaluatorFromEnv } from "../handlers/chatEvaluator.js";
import type { OnceMemory } from "../handlers/once.js";
import type { HandlerServices } from "../core/services.js";

export interface JudgeOnceOptions {
  /** The payload as it arrived (JSON text). */
  readonly input: string;
  readonly event: EventName;
  readonly projectDir: string;
  readonly homeDir: string;
  /** `--settings` files; discovery of the three levels when absent. */
  readonly settingsFiles?: readonly string[] | undefined;
  /** `--plugin` folders. */
  readonly plugins?: readonly string[] | undefined;
  /** Whose levels are discovered (and whether Claude Code's enabled plugins load); qoder by default. */
  readonly dialect?: Dialect | undefined;
  /** The host that really sent the payload when not `dialect`: its event names and payload shape are read. */
  readonly payloadDialect?: Dialect | undefined;
  readonly log: EventLog;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The hooks this process was started from (QHOOKS_CALL_CHAIN), for the recursion guard. */
  readonly callChain: readonly string[];
  /**
   * Judging on behalf of a replay (a hook of a replay called `qhooks run`): the hooks see QHOOKS_REPLAY=1 and the
   * Stop-loop guard, which counts live events only, stays out of it.
   */
  readonly replay?: boolean;
  /**
   * False: the Stop-loop guard stays out (a hook test judges one event on its own, with no log: no streak of
   * blocked Stops can build up, and a warning that the guard cannot count would be said for every blocking Stop).
   */
  readonly stopLoopGuard?: boolean;
  /** Evaluator and MCP caller; by default the chat endpoint of QHOOKS_EVALUATOR_URL, and no MCP caller. */
  readonly services?: HandlerServices;
  /** Which once-hooks already ran (`qhooks run` keeps markers next to its log); this call's memory by default. */
  readonly once?: OnceMemory;
  /** Where async hooks run; the result's `background` by default, which the caller may wait for (`settled()`). */
  readonly background?: BackgroundRunner;
  /** Every hook switched off for this run (`--no-hooks`, `QHOOKS_DISABLE=1`): none runs; the event is still judged and logged. */
  readonly hooksOff?: RunSwitch | null;
  /** Where relative `settingsFiles` and `plugins` are read from; the process's working directory by default. */
  readonly baseDir?: string;
  /** Warnings of this run's own (qhooks variables a project set, ignored): said and logged with the configuration's. */
  readonly runWarnings?: readonly string[];
}

export interface JudgeOnceResult {
  readonly judgement: Judgement;
  readonly snapshot: SettingsSnapshot;
  /** Settings and environment warnings, in the order they should be shown. */
  readonly configWarnings: readonly string[];
  /** The event's async hooks, still running: `settled()` waits for them and their log records. */
  readonly background: BackgroundRunner;
}

/** One event through the pipeline, with settings read fresh from disk: what `qhooks run` does. */
export async function judgeOnce(options: JudgeOnceOptions): Promise<JudgeOnceResult> {
  const engine = engineContext({ ...options, baseDir: options.baseDir ?? process.cwd() });
  const loaded = withRunWarnings(engine.load(), options.runWarnings ?? []);
  const snapshot = options.hooksOff ? switchAllOff(loaded, options.hooksOff) : loaded;
  const background: BackgroundRunner = options.background ?? new BackgroundHooks(options.log);
  const judgement = await firstValueFrom(
    of({ input: options.input, event: options.event, receivedAt: new Date(), startedAt: performance.now() }).pipe(
      judgeEvents({
        ...engine.pipeline({
          log: options.log,
          source: options.replay ? "replay" : "dispatch",
          snapshot: () => snapshot,
          replay: options.replay ?? false,
          callChain: options.callChain,
          services: options.services ?? { evaluator: chatEvaluatorFromEnv(options.env) },
          background,
          ...(options.once ? { once: options.once } : {}),
        }),
        // A cap of 0 is the guard turned off, as QHOOKS_STOP_BLOCK_CAP=0 would, without telling the hooks so.
        ...(options.stopLoopGuard === false ? { stopBlockCap: 0 } : {}),
      }),
    ),
  );
  return { judgement, snapshot, configWarnings: [...engine.limits.warnings, ...snapshot.warnings], background };
}
