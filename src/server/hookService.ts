import { existsSync } from "node:fs";
import { firstValueFrom } from "rxjs";
import type { Arrival } from "../core/arrival.js";
import type { PipelineWarning } from "../core/warnings.js";
import { RecentMap } from "../core/recentMap.js";
import type { Judgement } from "../engine/stages.js";
import { engineContext, type EngineContext } from "../engine/context.js";
import { judgeStream, type JudgeStream } from "../engine/judgeStream.js";
import { stampOf } from "../engine/settings$.js";
import { messageOf } from "../errors.js";
import { BackgroundHooks } from "../handlers/backgroundHooks.js";
import { chatEvaluatorFromEnv } from "../handlers/chatEvaluator.js";
import { fileNoticeCounter, memoryCounter } from "../handlers/noticeMemory.js";
import { fileOnce, memoryOnce, type OnceMemory } from "../handlers/once.js";
import { runNotices } from "../engine/runNotices.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { EventLog, LogWarning } from "../store/eventLog.js";
import { forwardedRun } from "./forwardedRun.js";
import { httpAnswer, textAnswer, type HookAnswer } from "./httpAnswer.js";
import { projectOf } from "./projectOf.js";

/** How many project streams the server keeps (the most recently used), and how many settings it remembers warning of. */
export const STREAMS_KEPT = 64;
const SNAPSHOTS_WARNED = 1024;

interface StreamEntry {
  readonly stream: JudgeStream;
  /** What the stream's limits said when it was made (a variable set wrong...). */
  readonly warnings: readonly string[];
  /** Its events being judged now. */
  inFlight: number;
}

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
  /** Project streams kept warm now (at most `streamsKept`, beyond it only while their events are judged). */
  readonly streams: number;
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
  /** Where notices are counted per session (beside the log, as `qhooks run` counts them); null: this server's memory. */
  readonly noticesDir: string | null;
  /**
   * The server's own warnings that hold for every event (its log could not be opened, or is in a folder others can
   * write...): said in each session's answers as the event's own warnings are, and to forwarded runs as `run` says them.
   */
  readonly standing: readonly string[];
  readonly warn: (line: string) => void;
  /** How many project streams are kept warm: STREAMS_KEPT unless a test says fewer. */
  readonly streamsKept?: number;
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
  // The streams of the projects last used: a server that lives for weeks sees many projects, and one it dropped is
  // made again when its project comes back (its settings read again). A stream with an event under way is kept, so
  // that the events of one project are never judged by two streams at once (their order is the stream's).
  const streams = new RecentMap<string, StreamEntry>(options.streamsKept ?? STREAMS_KEPT, {
    keep: (entry) => entry.inFlight > 0,
    onEvict: (entry) => entry.stream.close(),
  });
  const background = new BackgroundHooks(options.log, options.warn);
  const once: OnceMemory = options.onceDir === null ? memoryOnce() : fileOnce(options.onceDir);
  const services = { evaluator: chatEvaluatorFromEnv(options.env) };
  const pending = new Set<Promise<unknown>>();
  const warnedSnapshots = new RecentMap<string, true>(SNAPSHOTS_WARNED);
  // What the log said once of a lasting state of its own (its key cannot sign heads): the log says it with one event,
  // each `run` process hears it anew, and so every session of the server hears it from then on (once, then counted).
  const lasting = new Map<LogWarning["kind"], LogWarning>();
  const heardLog = (warnings: readonly PipelineWarning[]): LogWarning[] => {
    for (const w of logWarningsOf(warnings)) if (w.kind === "heads-unsigned") lasting.set(w.kind, w);
    return [...lasting.values()];
  };
  // One counter for the server's life: in memory it must outlive the event, or every notice would be a first.
  const counter = options.noticesDir === null ? memoryCounter() : fileNoticeCounter(options.noticesDir);

  /** The stream of this project and settings choice, counted as judging one more event until the caller is done. */
  const streamFor = (dialect: Dialect, projectDir: string, settings: readonly string[], plugins: readonly string[]) => {
    const key = JSON.stringify([dialect, projectDir, settings, plugins]);
    const known = streams.get(key);
    if (known) {
      known.inFlight++;
      return known;
    }
    const engine = engineContext({ homeDir: options.homeDir, projectDir, env: options.env, dialect, settingsFiles: settings, plugins, baseDir: projectDir });
    for (const w of engine.limits.warnings) options.warn(w);
    const stream = judgeStream(
      engine.pipeline({ log: options.log, source: "dispatch", snapshot: freshSnapshot(engine, options.warn, warnedSnapshots), services, background, once }),
    );
    // Counted before it is added: the bound never drops the stream it was made for.
    const made: StreamEntry = { stream, warnings: engine.limits.warnings, inFlight: 1 };
    streams.set(key, made);
    return made;
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
    const entry = streamFor(request.dialect, project.dir, request.settings, request.plugins);
    const { warnings } = entry;
    let judgement: Judgement;
    try {
      judgement = await firstValueFrom(entry.stream.judge(arrival));
    } finally {
      entry.inFlight--;
      // A stream kept past the bound for its events under way goes once they are done.
      if (entry.inFlight === 0) streams.trim();
    }
    if (judgement.kind === "failed") return textAnswer(500, `qhooks: ${judgement.error}`);
    if (judgement.kind === "rejected") {
      for (const w of judgement.warnings) options.warn(w);
      return textAnswer(judgement.rejection.kind === "invalid-payload" ? 400 : 500, `qhooks: ${judgement.rejection.error}`);
    }
    const { outcome, stage } = judgement;
    for (const w of outcome.warnings) options.warn(w);
    // What `run` says on stderr (the warnings of the server, the settings, the limits and the event) has no place
    // in an HTTP answer but its notices: without them a log that cannot be written would be known to serve.log alone.
    const said = [...options.standing, ...warnings, ...stage.snapshot.warnings, ...outcome.warnings];
    return httpAnswer(
      host,
      outcome,
      runNotices(outcome, stage.snapshot, host.showsNotices(outcome), () => counter, { logWarnings: heardLog(stage.warnings), warnings: said }),
    );
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
      const setup = { ...forwarding, homeDir: options.homeDir, log: forwarding.logged ? options.log : null, logWarnings: options.standing };
      return track(forwardedRun(body, setup, take).catch((e: unknown) => textAnswer(500, `qhooks: internal error: ${messageOf(e)}`)));
    },
    get inFlight() {
      return pending.size;
    },
    get streams() {
      return streams.size;
    },
    async drain() {
      while (pending.size > 0) await Promise.all(pending);
    },
    async close() {
      await background.close();
      for (const { stream } of streams.values()) stream.close();
      streams.clear();
    },
  };
}

/** What the log said of itself while the event was appended, as `run` hears it: a notice `run` and the server count as one. */
const logWarningsOf = (warnings: readonly PipelineWarning[]): LogWarning[] =>
  warnings.flatMap((w) => (w.kind === "log" ? [{ kind: w.of, message: w.message }] : []));

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
function freshSnapshot(engine: EngineContext, warn: (line: string) => void, warned: RecentMap<string, true>): () => SettingsSnapshot {
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
      warned.set(snapshot.hash, true);
      for (const w of snapshot.warnings) warn(w);
    }
    return snapshot;
  };
}
