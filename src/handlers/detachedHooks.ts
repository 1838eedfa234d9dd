import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageOf } from "../errors.js";
import type { ValidEvent } from "../payload/parsePayload.js";
import { jobSpecOf, type AsyncJob } from "./asyncJob.js";
import { oneLineText } from "../text/oneLine.js";
import type { BackgroundRunner } from "./backgroundHooks.js";
import { builtInRedactor, type Redactor } from "../redact/redactor.js";
import type { SelectedHook } from "../core/hookDescriptor.js";

export type DetachedSetup = Omit<AsyncJob, "seq" | "valid" | "spec" | "redact">;

/**
 * `qhooks run`'s async hooks: each is handed to a detached qhooks process of its own (a new session, its stdio
 * closed), which runs it within its timeout and appends its result to the log, so that `qhooks run` replies and
 * exits at once. The agent's process group going down does not take the hook with it; its timeout does.
 */
export class DetachedHooks implements BackgroundRunner {
  constructor(
    private readonly setup: DetachedSetup,
    /** The qhooks CLI script to start (`process.argv[1]` of the CLI). */
    private readonly cliScript: string,
    private readonly warn: (line: string) => void = () => undefined,
    /** Where an event's records went when not to `setup.db` (the fallback file of a central log that failed). */
    private readonly placeOf: (seq: number | null) => string | null = () => null,
  ) {}

  start(seq: number | null, valid: ValidEvent, spec: SelectedHook, _run$?: unknown, redactor: Redactor = builtInRedactor): void {
    // The CLI has no in-process hooks; a bus runs its async hooks itself (BackgroundHooks).
    if (spec.kind === "in-process") return;
    try {
      const job: AsyncJob = {
        ...this.setup,
        db: this.setup.db === null ? null : (this.placeOf(seq) ?? this.setup.db),
        // The user's patterns go with the hook: the detached process redacts its result as this one would have.
        redact: redactor.userPatterns.map((p) => ({ pattern: p.pattern, kind: p.kind })),
        seq,
        valid: { event: valid.event, sessionId: valid.sessionId, payload: { ...valid.payload }, json: valid.json, matchValue: valid.matchValue },
        spec: jobSpecOf(spec),
      };
      const dir = mkdtempSync(join(tmpdir(), "qhooks-async-"));
      const file = join(dir, "job.json");
      writeFileSync(file, JSON.stringify(job), { mode: 0o600 });
      const env = Object.fromEntries(Object.entries(this.setup.baseEnv).filter((e): e is [string, string] => e[1] !== undefined));
      const failed = (e: unknown) => {
        rmSync(dir, { recursive: true, force: true });
        this.warn(`async hook ${oneLineText(spec.name)} could not be started: ${messageOf(e)}`);
      };
      // child_process loads only when a run has an async hook (the pending import keeps the process alive until then).
      void import("./spawnDetached.js").then(({ spawnDetached }) => {
        try {
          spawnDetached(process.execPath, [this.cliScript, "__async-hook", file], { cwd: this.setup.projectDir, env }, failed);
        } catch (e) {
          failed(e);
        }
      }, failed);
    } catch (e) {
      this.warn(`async hook ${oneLineText(spec.name)} could not be started: ${messageOf(e)}`);
    }
  }

  /** Nothing runs here: the detached processes are on their own. */
  async settled(): Promise<void> {}
}
