import { existsSync } from "node:fs";
import { firstValueFrom } from "rxjs";
import type { Arrival } from "../core/arrival.js";
import { engineContext, type EngineContext } from "../engine/context.js";
import { judgeStream, type JudgeStream } from "../engine/judgeStream.js";
import { stampOf } from "../engine/settings$.js";
import { messageOf } from "../errors.js";
import { BackgroundHooks } from "../handlers/backgroundHooks.js";
import { chatEvaluatorFromEnv } from "../handlers/chatEvaluator.js";
import { fileOnce, memoryOnce, type OnceMemory } from "../handlers/once.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { EventLog } from "../store/eventLog.js";
import { forwardedRun } from "./forwardedRun.js";
import { httpAnswer, textAnswer, type HookAnswer } from "./httpAnswer.js";
import { projectOf } from "./projectOf.js";

/** One hook request, as any transport hands it over: the route's dialect, what the caller named, the payload. */
export interface HookRequest {
  readonly dialect: Dialect;
  /** X-Qhooks-Project or `?project=`. */
  readonly project: string | undefined;
  readonly settings: readonly string[];
  readonly plugins: readonly string[];
  /** The payload, as it arrived (JSON text). */
  readonly body: string;
}

/**
 * The server's port to its transports (HTTP today; a Unix socket for the CLI later): an event in, the host's answer
 * out, whatever carried them.
 */
export interface HookService {
  handle(request: HookRequest): Promise<HookAnswer>;
  /**
   * A forwarded `qhooks run` (POST /run): its answer, or 409 when it is the caller's to judge (forwardedRun.ts).
   * `take` is called just before the run is judged here (false: the caller is gone, and it is not).
   */
  judgeRun(body: string, take?: () => boolean): Promise<HookAnswer>;
  /** Events being judged now. */
  readonly inFlight: number;
  /** Resolves once every event under way has its answer (and its records in the log). */
  drain(): Promise<void>;
  /** Stops the streams and the async hooks still running (each logged as stopped); the log stays the caller's. */
  close(): Promise<void>;
}

export interface HookServiceOptions {
  readonly homeDir: string;
  /** The environment hooks start from (the server's, without the variables of the session that started it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: EventLog;
  /** Where once-hook markers are kept (beside the log, as `qhooks run` keeps them); null: this server's memory. */
  readonly onceDir: string | null;
  readonly warn: (line: string) => void;
  /** What forwarded runs need beyond the above: without it, every one is the caller's to judge. */
  readonly forwarding?: { readonly version: string; readonly db: string; readonly logged: boolean; readonly cliScript: string };
}

/**
 * Judges events exactly as `qhooks run --format hook --dialect <d>` does, on one warm stream per project, dialect and
 * settings choice: the engine's parts (settings plan, limits, trust) are made once per stream by engineContext, the
 * settings are read again whenever a file they came from changed (run reads them for every event), and every stream
 * shares the log, the once-memory and the async hooks' runner.
 */
export function hookService(options: HookServiceOptions): HookService {
  const streams = new Map<string, JudgeStream>();
  const background = new BackgroundHooks(options.log, options.warn);
  const once: OnceMemory = options.onceDir === null ? memoryOnce() : fileOnce(options.onceDir);
  const services = { evaluator: chatEvaluatorFromEnv(options.env) };
  const pending = new Set<Promise<unknown>>();
  const warnedSnapshots = new Set<string>();

  const streamFor = (dialect: Dialect, projectDir: string, settings: readonly string[], plugins: readonly string[]): JudgeStream => {
    const key = JSON.stringify([dialect, projectDir, settings, plugins]);
    let stream = streams.get(key);
    if (stream) return stream;
    const engine = engineContext({ homeDir: options.homeDir, projectDir, env: options.env, dialect, settingsFiles: settings, plugins, baseDir: projectDir });
    for (const w of engine.limits.warnings) options.warn(w);
    stream = judgeStream(
      engine.pipeline({ log: options.log, source: "dispatch", snapshot: freshSnapshot(engine, options.warn, warnedSnapshots), services, background, once }),
    );
    streams.set(key, stream);
    return stream;
  };

  const judge = async (request: HookRequest): Promise<HookAnswer> => {
    const host = hostDialect(request.dialect);
    // The rule of `qhooks run --format hook`: a host whose own levels hold the entries that call qhooks names a file.
    if (request.settings.length === 0 && !host.callsQhooksFromOutsideLevels) {
      return textAnswer(400, `/hook/${request.dialect} needs ?settings=FILE: qhooks must never read the settings of the agent that calls it`);
    }
    for (const file of request.settings) if (!existsSync(file)) return textAnswer(400, `settings ${file}: no such file`);
    const project = projectOf(request.project, cwdOf(request.body), host.projectFolder, options.homeDir);
    if (typeof project === "string") return textAnswer(400, project);
    const arrival: Arrival = { input: request.body, receivedAt: new Date(), startedAt: performance.now() };
    const judgement = await firstValueFrom(streamFor(request.dialect, project.dir, request.settings, request.plugins).judge(arrival));
    if (judgement.kind === "failed") return textAnswer(500, `qhooks: ${judgement.error}`);
    if (judgement.kind === "rejected") {
      for (const w of judgement.warnings) options.warn(w);
      return textAnswer(judgement.rejection.kind === "invalid-payload" ? 400 : 500, `qhooks: ${judgement.rejection.error}`);
    }
    for (const w of judgement.outcome.warnings) options.warn(w);
    return httpAnswer(host, judgement.outcome);
  };

  const track = (answer: Promise<HookAnswer>): Promise<HookAnswer> => {
    pending.add(answer);
    void answer.then(() => pending.delete(answer));
    return answer;
  };
  const forwarding = options.forwarding;

  return {
    handle(request) {
      return track(judge(request).catch((e: unknown) => textAnswer(500, `qhooks: internal error: ${messageOf(e)}`)));
    },
    judgeRun(body, take) {
      if (forwarding === undefined) return Promise.resolve(textAnswer(409, "this server takes no forwarded runs"));
      const setup = { ...forwarding, homeDir: options.homeDir, log: forwarding.logged ? options.log : null };
      return track(forwardedRun(body, setup, take).catch((e: unknown) => textAnswer(500, `qhooks: internal error: ${messageOf(e)}`)));
    },
    get inFlight() {
      return pending.size;
    },
    async drain() {
      while (pending.size > 0) await Promise.all(pending);
    },
    async close() {
      await background.close();
      for (const stream of streams.values()) stream.close();
      streams.clear();
    },
  };
}

/** The payload's `cwd`, read for finding the project (the pipeline validates the payload itself). */
function cwdOf(body: string): unknown {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>).cwd : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The settings as they are on disk at each event, as `qhooks run` reads them, without reading them for every event:
 * the files the last snapshot came from (and the levels that do not exist yet) are stat'ed, and read again only when
 * one changed. A snapshot's warnings are told once.
 */
function freshSnapshot(engine: EngineContext, warn: (line: string) => void, warned: Set<string>): () => SettingsSnapshot {
  let snapshot: SettingsSnapshot | null = null;
  let paths: readonly string[] = engine.sources.map((s) => s.path);
  let stamps: readonly string[] = [];
  return () => {
    if (snapshot !== null && paths.every((path, i) => stampOf(path) === stamps[i])) return snapshot;
    // Stamped before reading: an edit during the read changes a stamp again, and the next event reads again.
    const before = new Map(paths.map((path) => [path, stampOf(path)]));
    snapshot = engine.load();
    paths = [...new Set([...paths, ...snapshot.watched])];
    stamps = paths.map((path) => before.get(path) ?? stampOf(path));
    if (!warned.has(snapshot.hash)) {
      warned.add(snapshot.hash);
      for (const w of snapshot.warnings) warn(w);
    }
    return snapshot;
  };
}
