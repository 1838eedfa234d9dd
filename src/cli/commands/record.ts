import { z } from "zod";
import { openEventLogWithWarnings } from "../../engine/openEventLog.js";
import { recordEvent } from "../../engine/recordEvent.js";
import { loadSettings } from "../../settings/loadSettings.js";
import { discoverSettings } from "../../settings/settingsSources.js";
import { EXIT, QhooksError } from "../../errors.js";
import { MAX_PAYLOAD_BYTES } from "../../payload/parsePayload.js";
import type { EventName } from "../../schema/events.js";
import { CLASSIC_EVENT_NAMES } from "../../schema/eventNames.js";
import { err, out, readStdin, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import { hostDialect } from "../../hosts/hosts.js";
import { callerHostOf } from "../../hosts/callerHost.js";
import { CALL_CHAIN_VAR } from "../../exec/hookEnvironment.js";
import { hostEventOf } from "../../hosts/hostEventNames.js";

export const RecordFlagsSchema = z.object({ printSettings: z.boolean().default(false) });
export type RecordFlags = z.infer<typeof RecordFlagsSchema>;

/**
 * `qhooks record [<event>]`: a hook that only records. Silent and exit 0 so that it never changes what the agent
 * does; exit 1 (never 2) when the payload is invalid or the log cannot be written.
 */
export async function recordCommand(event: EventName | undefined, flags: RecordFlags, context: CliContext): Promise<number> {
  if (flags.printSettings) {
    const host = hostDialect(context.dialect);
    const names = host.events.map((event) => hostEventOf(host.eventNames, event) ?? event);
    out(JSON.stringify(recorderSettings(names, host.timeoutUnit === "milliseconds" ? 10_000 : 10), null, 2));
    return EXIT.ok;
  }
  const input = await readStdin(MAX_PAYLOAD_BYTES, "qhooks record");
  // Started as a hook of a replay: the payload is an event of the log being re-judged. Recording it again would
  // add it to live history, which a replay never changes; the replay keeps its own record of it.
  // Started as a hook of `qhooks test`: a test's payload is no live event either.
  if (context.env.QHOOKS_REPLAY === "1" || context.env.QHOOKS_TEST === "1") return EXIT.ok;
  // Started as a hook of a live `qhooks run` judging this very session's event (a recorder entry in a level `run`
  // reads): that run logs the event itself, so recording it here would log it twice.
  if (startedByJudgingQhooks(input, context.env)) return EXIT.ok;
  const { log, warnings } = openEventLogWithWarnings({ db: context.dbPath, env: context.env, homeDir: context.homeDir });
  for (const w of warnings) warn(w);
  try {
    // The user's redaction patterns (qhooks.redact) apply here too; the settings' other warnings are for qhooks hooks.
    const { redactor } = loadSettings(discoverSettings(context.homeDir, context.projectDir, context.dialect, context.env));
    // Cursor runs the recorder `install claude` wrote into Claude Code's files too: its events are logged as Cursor's.
    const sender = callerHostOf(input, context.dialect) ?? context.dialect;
    const host = hostDialect(sender);
    const result = await recordEvent({
      input,
      event,
      projectDir: context.projectDir,
      log,
      redactor,
      hostEvents: host.eventNames,
      readPayload: host.readPayload,
      host: sender,
    });
    // With what the append left running (its head being signed): said now, before this process exits.
    for (const w of [...result.logWarnings, ...((await log.settle?.()) ?? [])]) warn(`event log: ${w.message}`);
    if (!result.ok) {
      err(`qhooks: ${result.error}`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } catch (e) {
    throw e instanceof QhooksError ? e : new QhooksError("log", `cannot record the event: ${String(e)}`, { cause: e });
  } finally {
    await log.close();
  }
}

/**
 * Settings that put `qhooks record` on every event, to capture whole sessions of a real agent: the twelve classic
 * ones (which Qoder knows), or every event Claude Code documents (the claude dialect); `timeout` in the host's unit.
 */
export function recorderSettings(events: readonly string[] = CLASSIC_EVENT_NAMES, timeout = 10) {
  return {
    hooks: Object.fromEntries(events.map((event) => [event, [{ hooks: [{ type: "command", command: `qhooks record ${event}`, timeout }] }]])),
  };
}

/**
 * Whether qhooks started this recorder as a hook of the event it is judging: the hook environment names the calling
 * chain and the session (exec/hookEnvironment.ts), and the payload is of that session. An agent a hook starts has
 * sessions of its own, which are still recorded.
 */
function startedByJudgingQhooks(input: string, env: Readonly<Record<string, string | undefined>>): boolean {
  const session = env.QHOOKS_SESSION_ID;
  if (!env[CALL_CHAIN_VAR] || session === undefined) return false;
  try {
    // Each host's name for the session (Claude Code's, Cursor's, Copilot CLI's).
    const fields = JSON.parse(input) as { session_id?: unknown; conversation_id?: unknown; sessionId?: unknown } | null;
    return fields !== null && [fields.session_id, fields.conversation_id, fields.sessionId].includes(session);
  } catch {
    return false;
  }
}
