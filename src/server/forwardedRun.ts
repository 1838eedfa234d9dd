import { callerContext } from "../engine/callerContext.js";
import { runEvent } from "../engine/runEvent.js";
import { failureLines } from "../errors.js";
import { DIALECTS } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import { eventNamed } from "../hosts/hostEventNames.js";
import type { EventLog } from "../store/eventLog.js";
import type { HookAnswer } from "./httpAnswer.js";
import { ForwardedRunSchema, type ForwardedReply } from "./schemas.js";
import { isDirectory } from "../settings/isDirectory.js";

/** What the server judges forwarded runs with: its own version, home and log. */
export interface ForwardingSetup {
  readonly version: string;
  readonly homeDir: string;
  /** The server's log file or PostgreSQL URL; a caller that logs elsewhere judges in its own process. */
  readonly db: string;
  /** The server's open log; null when it could not open it (then every caller judges in its own process). */
  readonly log: EventLog | null;
  /** The qhooks CLI script async hooks are started with (the server's own). */
  readonly cliScript: string;
}

/** 409: not for this server; the caller judges in its own process, as if no server ran. */
const notMine = (why: string): HookAnswer => ({ status: 409, body: `${why}\n`, contentType: "text/plain; charset=utf-8" });

/**
 * A forwarded `qhooks run --format hook`: judged here only when this server would judge it exactly as the caller's
 * process would (same qhooks version, home and log; an event, dialect and project that process accepts), else
 * refused with 409 before anything runs, so that the caller judges it itself and nothing is run twice. The answer
 * is what the caller prints: the same bytes, lines and exit status as `qhooks run` in its own process.
 * `take` is called once the run is this server's, just before anything of it runs: it tells the caller (the
 * transport's first heartbeat) and says false when the caller has stopped waiting, and then nothing runs.
 */
export async function forwardedRun(body: string, setup: ForwardingSetup, take: () => boolean = () => true): Promise<HookAnswer> {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return notMine("not JSON");
  }
  const parsed = ForwardedRunSchema.safeParse(raw);
  if (!parsed.success) return notMine(`not a forwarded run: ${parsed.error.issues[0]!.message}`);
  const run = parsed.data;
  if (run.version !== setup.version) return notMine(`the server runs qhooks ${setup.version}, the caller ${run.version}`);
  if (run.homeDir !== setup.homeDir) return notMine("another home folder");
  // A replay's or a hook test's run never logs and sees markers of its own: left to its process.
  if (run.env.QHOOKS_REPLAY === "1" || run.env.QHOOKS_TEST === "1") return notMine("a replay's or a hook test's run");
  if (run.log && setup.log === null) return notMine("the server has no log");
  for (const d of [run.globals.dialect, run.globals.host])
    if (d !== undefined && !(DIALECTS as readonly string[]).includes(d)) return notMine("unknown dialect");
  let context: ReturnType<typeof callerContext>;
  try {
    context = callerContext(run.globals, { env: run.env, cwd: run.cwd, homeDir: run.homeDir, detectDialect: false });
  } catch {
    return notMine("the command line is the caller's to refuse");
  }
  if (context.dbPath !== setup.db) return notMine("another log");
  const host = hostDialect(context.dialect);
  const event = eventNamed(run.event, host.eventNames);
  if (event === null) return notMine("unknown event");
  // The errors `qhooks run` gives before it judges are its own to give.
  if (run.settings.length === 0 && !host.callsQhooksFromOutsideLevels) return notMine("--format hook without --settings");
  if (!isDirectory(context.projectDir)) return notMine("no such project directory");
  // A caller that gave up waiting judges the run itself: running it here too would run its hooks twice.
  if (!take()) return notMine("the caller stopped waiting");

  let early = "";
  const err = (line: string): void => void (early += `${line}\n`);
  let reply: ForwardedReply;
  try {
    const judged = await runEvent({
      event,
      input: run.stdin,
      format: "hook",
      settings: run.settings,
      plugins: run.plugins,
      log: run.log,
      hooks: run.hooks,
      failClosed: run.failClosed,
      dialect: context.dialect,
      projectDir: context.projectDir,
      homeDir: context.homeDir,
      dbPath: context.dbPath,
      env: context.env,
      envWarnings: context.envWarnings,
      cwd: run.cwd,
      cliScript: setup.cliScript,
      ...(setup.log !== null ? { openLog: setup.log } : {}),
      err,
    });
    reply = { early, ...judged };
  } catch (e) {
    // What the caller's own process would have said of the same failure (cli/main.ts).
    const failure = failureLines(e, Boolean(run.env.QHOOKS_DEBUG));
    for (const line of failure.lines) err(line);
    reply = { early, stdout: null, blockIfUndelivered: null, stderr: null, exitCode: failure.exitCode };
  }
  return { status: 200, body: JSON.stringify(reply), contentType: "application/json" };
}
