import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { messageOf } from "../../errors.js";
import type { FileIdentity } from "./connection.js";
import { betterSqliteAddonPath } from "./nativeBinding.js";
import { catchUpStep } from "./projections.js";
import { projectorMain, type ProjectorData } from "./projectorThread.js";

/** Records a log must have appended before it starts a projector thread: a short-lived writer never does. */
export const START_AFTER_RECORDS = 500;

/**
 * SQLite's page cache, in KiB, of each connection of a long-lived log: the writer's once its projector thread
 * starts, and the thread's own. better-sqlite3 builds SQLite with 16 MB per connection, which a one-shot audit
 * reading much of the file uses well; but a server fills both caches over its hours with pages it rarely reads
 * again (the journal's tail and the projections' indexes), and their 32 MB showed as RSS that kept growing
 * (bench S4). SQLite's own default is this size.
 */
export const LONG_LIVED_CACHE_KIB = 2000;

export type ProjectorState = "idle" | "running" | "stopped" | "dead";

/**
 * The projector thread of one open log, started once the log has appended enough to be worth it (a `qhooks run`
 * appends one or two records and exits: a thread would cost it more than it saves). The writer tells it of each
 * commit through shared memory (no message per commit); it reports nothing back but its death, which the log
 * turns into one warning.
 */
export class Projector {
  private worker: Worker | null = null;
  private current: ProjectorState = "idle";
  private readonly signal = new SharedArrayBuffer(16);
  private appended = 0;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly identity: FileIdentity | null,
    private readonly onDeath: (why: string) => void,
    /** When the thread starts: the log has become long-lived (see LONG_LIVED_CACHE_KIB). */
    private readonly onStart: () => void = () => undefined,
  ) {}

  get state(): ProjectorState {
    return this.current;
  }

  /** The running thread, if any: for tests that need it to die. */
  get thread(): Worker | null {
    return this.worker;
  }

  /** After each commit of this log. */
  committed(records: number): void {
    if (this.current === "idle") {
      this.appended += records;
      if (this.appended >= START_AFTER_RECORDS) this.start();
    }
    if (this.current === "running") {
      const signal = new Int32Array(this.signal);
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
    }
  }

  /**
   * Runs a write transaction of the writer, taking turns with the projector thread: while it runs, this waits for
   * the batch under way, at most `waitMs` (then SQLite's own lock decides).
   */
  exclusive<T>(transaction: () => T, waitMs = 100): T {
    if (this.current !== "running") return transaction();
    const lock = new Int32Array(this.signal);
    const deadline = Date.now() + waitMs;
    let held = true;
    while (Atomics.compareExchange(lock, 2, 0, 1) !== 0) {
      const left = deadline - Date.now();
      if (left <= 0) {
        held = false;
        break;
      }
      Atomics.wait(lock, 2, 1, left);
    }
    try {
      return transaction();
    } finally {
      if (held) {
        Atomics.store(lock, 2, 0);
        Atomics.notify(lock, 2);
      }
    }
  }

  private start(): void {
    if (this.identity === null) return;
    const data: ProjectorData = {
      path: this.path,
      dev: this.identity.dev,
      ino: this.identity.ino,
      betterSqlite: fileURLToPath(import.meta.resolve("better-sqlite3")),
      addon: betterSqliteAddonPath(),
      signal: this.signal,
      batch: 200,
      gatherMs: 20,
      maxLag: 20_000,
      idleMs: 1_000,
      restartFrames: 2_000,
      cacheKib: LONG_LIVED_CACHE_KIB,
    };
    // From source text, so that it runs alike from the library and from the CLI's single-file bundle.
    // Its own require, made from process: the source runs as a script or, when the process was started with
    // --input-type=module (which a worker inherits), as a module, where require does not exist.
    const source = [
      `"use strict";`,
      `const load = process.getBuiltinModule("node:module").createRequire(${JSON.stringify(data.betterSqlite)});`,
      `const catchUpStep = ${catchUpStep.toString()};`,
      `(${projectorMain.toString()})(load, process.getBuiltinModule("node:worker_threads").workerData, catchUpStep);`,
    ].join("\n");
    let worker: Worker;
    try {
      // Loaded here, not with this module: a `qhooks run` never starts a thread, and loading it costs start-up time.
      const { Worker } = process.getBuiltinModule("node:worker_threads");
      worker = new Worker(source, { eval: true, workerData: data, execArgv: [], stdout: true, stderr: true });
    } catch (e) {
      this.died(`it could not start: ${messageOf(e)}`);
      return;
    }
    // An embedder that forgets close() must not be kept alive by this thread.
    worker.unref();
    this.worker = worker;
    this.current = "running";
    this.onStart();
    let failure: string | null = null;
    worker.on("error", (e) => (failure = messageOf(e)));
    this.exited = new Promise((resolve) =>
      worker.once("exit", (code) => {
        this.worker = null;
        if (this.current === "running") {
          // Asked by nobody: it died, unless it left because the file was replaced (the writer reopens the path
          // when it next appends, with a projector of its own).
          if (failure === null && Atomics.load(new Int32Array(this.signal), 3) === 1) this.current = "stopped";
          else this.died(failure ?? `it exited with code ${code}`);
        }
        resolve();
      }),
    );
  }

  private died(why: string): void {
    this.current = "dead";
    this.onDeath(why);
  }

  /** Stops the thread (it finishes the transaction under way) and waits until it is gone. */
  async stop(): Promise<void> {
    if (this.current === "running") {
      this.current = "stopped";
      const signal = new Int32Array(this.signal);
      Atomics.store(signal, 1, 1);
      Atomics.notify(signal, 0);
      const timer = setTimeout(() => void this.worker?.terminate(), 5_000);
      await this.exited;
      clearTimeout(timer);
    } else if (this.current === "idle") this.current = "stopped";
  }
}
