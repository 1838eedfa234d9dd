import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { QhooksError, EXIT } from "../../errors.js";
import { explainLogged, explainPayload } from "../../explain/explain.js";
import { conformanceTable, judgeOnEveryHost } from "../../explain/hostConformance.js";
import { hostDialect } from "../../hosts/hosts.js";
import { formatExplanation } from "../../explain/formatExplanation.js";
import { sessionStartOf } from "../../explain/sessionStart.js";
import { MAX_PAYLOAD_BYTES } from "../../payload/parsePayload.js";
import type { Explanation } from "../../schema/explanation.js";
import { openStore } from "../../store/openStore.js";
import { oneLineText } from "../../text/oneLine.js";
import { eventArgument, isEventName } from "../eventArg.js";
import { requireProjectDir, requireSettingsFiles, type CliContext } from "../globals.js";
import { out, readStdin } from "../io.js";
import { decisionStyle, paint as paintText } from "../../display/colour.js";
import { commandTerminal } from "../../display/terminal.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";
import { showTime } from "../../display/times.js";
import { notInLog, seqArgument } from "../seqArg.js";

export const ExplainFlagsSchema = z.object({
  payload: z.string().min(1).optional(),
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  /** With --payload: how each host's rules would judge the event, side by side. */
  eachHost: z.boolean().default(false),
  json: z.boolean().default(false),
  utc: z.boolean().default(false),
});
export type ExplainFlags = z.infer<typeof ExplainFlagsSchema>;

/**
 * `qhooks explain <seq>`: why a logged event got its outcome, from the log alone; `qhooks explain EVENT --payload
 * FILE|-`: which hooks an event would run with the settings as they are, without running any.
 */
export async function explainCommand(target: string, flags: ExplainFlags, context: CliContext): Promise<number> {
  if (flags.eachHost) {
    if (flags.payload === undefined) throw new QhooksError("usage", "--each-host goes with --payload FILE (or - for stdin): the event to judge on every host");
    return eachHost(target, flags.payload, flags, context);
  }
  const explanation = flags.payload !== undefined ? await unlogged(target, flags.payload, flags, context) : await logged(target, flags, context);
  if (flags.json) out(JSON.stringify(explanation, null, 2));
  else {
    const terminal = commandTerminal(context);
    const text = terminal.utf8 ? escapeForTerminal : escapeToAscii;
    const on = terminal.colour === true;
    const paint = {
      decision: (word: string, decision: string, blocked: boolean) => paintText(word, decisionStyle(decision, blocked), on),
      failure: (s: string) => paintText(s, "red", on),
    };
    out(formatExplanation(explanation, { text, time: (iso) => showTime(iso, flags.utc).text, paint }));
  }
  return EXIT.ok;
}

async function logged(target: string, flags: ExplainFlags, context: CliContext): Promise<Explanation> {
  if (isEventName(target))
    throw new QhooksError("usage", `explain ${target} needs --payload FILE (or - for stdin): the event to explain; or give a logged event's SEQ`);
  if (flags.settings.length || flags.plugin.length)
    throw new QhooksError("usage", "--settings and --plugin go with --payload: a logged event is explained with the configuration logged with it");
  const seq = seqArgument(target);
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const detail = await log.event(seq);
    if (detail === null) throw new QhooksError("usage", await notInLog(log, seq));
    const made = explainLogged(detail);
    if (!made.ok) throw new QhooksError("usage", made.problem.message);
    // What loaded when the session started: the files may have changed since, and a guard with them.
    return { ...made.explanation, sessionStart: await sessionStartOf(log, detail) };
  } finally {
    await log.close();
  }
}

async function unlogged(target: string, payload: string, flags: ExplainFlags, context: CliContext): Promise<Explanation> {
  const made = explainPayload({ ...(await unloggedEvent(target, payload, flags, context)), dialect: context.dialect });
  if (!made.ok) throw new QhooksError("invalid-payload", made.problem.message);
  return made.explanation;
}

/** What `explain EVENT --payload F` judges, whichever host's rules it is judged under. */
async function unloggedEvent(target: string, payload: string, flags: ExplainFlags, context: CliContext) {
  // The host's own name for the event is read too (`explain BeforeTool --host gemini`).
  const event = eventArgument(target, hostDialect(context.dialect).eventNames);
  const projectDir = requireProjectDir(context);
  // A mistyped file would otherwise explain a configuration with no hooks at all.
  requireSettingsFiles(flags.settings);
  const input = payload === "-" ? await readStdin(MAX_PAYLOAD_BYTES, "qhooks explain --payload -") : readPayloadFile(payload);
  return { event, input, projectDir, homeDir: context.homeDir, settingsFiles: flags.settings, plugins: flags.plugin, env: context.env };
}

/** `explain EVENT --payload F --each-host`: the event under every host's settings and answer protocol, side by side. */
async function eachHost(target: string, payload: string, flags: ExplainFlags, context: CliContext): Promise<number> {
  const judged = await unloggedEvent(target, payload, flags, context);
  const { event } = judged;
  const hosts = judgeOnEveryHost(event).map((judgement) => {
    const made = explainPayload({ ...judged, dialect: judgement.host });
    if (!made.ok) return { ...judgement, wouldRun: null, problem: made.problem.message };
    const wouldRun = made.explanation.hooks.filter((h) => h.verdict.kind === "would-run").map((h) => h.name ?? h.command ?? "?");
    return { ...judgement, wouldRun, problem: null };
  });
  if (flags.json) {
    out(JSON.stringify({ event, hosts }, null, 2));
    return EXIT.ok;
  }
  const terminal = commandTerminal(context);
  const text = terminal.utf8 ? escapeForTerminal : escapeToAscii;
  out(conformanceTable([event]));
  out("");
  for (const h of hosts) {
    const running =
      h.wouldRun === null
        ? `payload not read: ${text(h.problem ?? "")}`
        : `${h.wouldRun.length} hook${h.wouldRun.length === 1 ? "" : "s"} would run${h.wouldRun.length ? `: ${text(h.wouldRun.join(", "))}` : ""}`;
    out(`${h.name} (${h.host}): ${running}`);
    // A hook that would run here may rely on a decision this host ignores (with no hook, there is nothing to warn of).
    if (h.wouldRun?.length) for (const w of h.warnings) out(`  warning ${w.kind}: ${w.message}`);
  }
  return EXIT.ok;
}

function readPayloadFile(file: string): string {
  try {
    const bytes = readFileSync(resolve(file));
    if (bytes.length > MAX_PAYLOAD_BYTES) throw new QhooksError("usage", `--payload ${oneLineText(file)}: larger than ${MAX_PAYLOAD_BYTES} bytes`);
    return bytes.toString("utf8");
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new QhooksError("io", `--payload ${oneLineText(file)}: ${code === "ENOENT" ? "no such file" : (code ?? String(e))}`);
  }
}
