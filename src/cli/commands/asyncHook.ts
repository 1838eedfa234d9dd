import { heardLog } from "../../engine/heardLog.js";
import { openEventLog } from "../../engine/openEventLog.js";
import { leaveWarnings } from "../../handlers/leftWarnings.js";
import { hookEnvironment } from "../../exec/hookEnvironment.js";
import { BackgroundHooks } from "../../handlers/backgroundHooks.js";
import { chatEvaluatorFromEnv } from "../../handlers/chatEvaluator.js";
import { hookOfJob, takeAsyncJob } from "../../handlers/asyncJob.js";
import { runOneHook } from "../../engine/steps/runHooks.js";
import { nullEventLog, type EventLog } from "../../store/eventLog.js";
import { redactorFor } from "../../redact/userPatterns.js";
import { deferStopSignals } from "../stopSignal.js";
import { noticesDir } from "../../engine/runNotices.js";

/**
 * `qhooks __async-hook <job>` (not listed): the detached process of one async hook of a `qhooks run`. Runs it
 * within its timeout and appends its result to the log against its event. Nobody reads its output or its status.
 */
export async function asyncHookCommand(file: string): Promise<number> {
  const job = takeAsyncJob(file);
  let log: EventLog = nullEventLog;
  try {
    if (job.db !== null) log = openEventLog({ db: job.db, env: job.baseEnv, homeDir: job.homeDir });
  } catch {
    log = nullEventLog;
  }
  // Its warnings (its key could not sign the head its append passed) have nobody to go to here: they are left
  // beside the log for the next `qhooks run` to say in the host's answer.
  const hearing = heardLog(log);
  const background = new BackgroundHooks(hearing.log);
  // Stopped from outside (a logout, a `kill`): the hook goes down with this process, and the log says so; the
  // signal is raised again once that is appended and the log closed.
  const stopSignal = deferStopSignals((signal) => void background.close(`its process (qhooks __async-hook) got ${signal}`));
  try {
    const envFor = hookEnvironment({
      baseEnv: job.baseEnv,
      projectDir: job.projectDir,
      homeDir: job.homeDir,
      event: job.valid.event,
      sessionId: job.valid.sessionId,
      replay: job.replay,
      callChain: job.callChain,
    });
    const spec = hookOfJob(job);
    const run$ = runOneHook(spec, job.valid, envFor, {
      projectDir: job.projectDir,
      maxOutputBytes: job.maxOutputBytes,
      services: { evaluator: chatEvaluatorFromEnv(job.baseEnv) },
    });
    background.start(job.seq, job.valid, spec, run$, redactorFor(job.redact));
    await background.settled();
    const late = (await log.settle?.()) ?? [];
    if (job.db !== null)
      leaveWarnings(
        noticesDir(job.db, job.homeDir),
        [...hearing.heard, ...late].filter((w) => w.kind === "heads-unsigned"),
      );
    return 0;
  } finally {
    await log.close();
    stopSignal.release();
  }
}
