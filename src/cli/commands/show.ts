import { z } from "zod";
import { storedInputSummary } from "../../core/toolInputSummary.js";
import { loggedCallerOf } from "../../hosts/callerHost.js";
import { hostDialect } from "../../hosts/hosts.js";
import type { Dialect } from "../../schema/dialect.js";
import { EXIT, QhooksError } from "../../errors.js";
import { prettyStoredJson } from "../../json/storedJson.js";
import type { EventDetail } from "../../schema/eventDetail.js";
import type { HookResult, Outcome } from "../../schema/outcome.js";
import { openStore } from "../../store/openStore.js";
import type { CliContext } from "../globals.js";
import { out } from "../io.js";
import { decisionStyle, hookOutcomeStyle } from "../../display/colour.js";
import { detailText, durationText, fieldLines, indented, type DetailText, type Field } from "../../display/detailText.js";
import { commandTerminal } from "../../display/terminal.js";
import { showTime } from "../../display/times.js";
import { notInLog, seqArgument } from "../seqArg.js";

export const ShowFlagsSchema = z.object({
  json: z.boolean().default(false),
  utc: z.boolean().default(false),
});
export type ShowFlags = z.infer<typeof ShowFlagsSchema>;

/** `qhooks show <seq>`: one event in full, as the log holds it. */
export async function showCommand(seqArg: string, flags: ShowFlags, context: CliContext): Promise<number> {
  const seq = seqArgument(seqArg);
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const detail = await log.event(seq);
    if (detail === null) throw new QhooksError("usage", await notInLog(log, seq));
    if (flags.json) out(JSON.stringify(detail, null, 2));
    else out(showLines(detail, { utc: flags.utc, text: detailText(commandTerminal(context)) }).join("\n"));
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/**
 * The event as people read it: a heading, where and when it came from, what was decided and by which
 * configuration, its place in the hash chain, then its payload, each hook that ran with its command, exit,
 * duration and output, the hooks that did not run, and the rest of the outcome.
 */
export function showLines(d: EventDetail, options: { utc: boolean; text: DetailText }): string[] {
  const { line, lines } = options.text;
  const o = d.outcome;
  const time = showTime(d.ts, options.utc);
  const heading = [`#${d.seq}`, d.event ?? "(no event)", d.matchValue === null ? null : line(d.matchValue), shownDecision(d, options.text)].filter(
    (p) => p !== null,
  );
  const source = d.replay === null ? d.source : `${d.source}: run ${line(d.replay.runId)}, re-judging #${d.replay.of}`;
  const chain = d.chain.records.map((r) => `#${r.seq} ${r.kind} (format ${r.format}) ${r.hash}`);
  const tried = storedInputSummary(d.payload);
  const result: string[] = [
    heading.join("  "),
    ...fieldLines([
      // What the agent tried, in one line, before the details: the whole input is in the payload below.
      ["tried", tried === null ? null : line(tried)],
      ["caller", callerText(d)],
      ["time", `${time.text} ${time.zone}`.trim()],
      ["session", d.sessionId === null ? "-" : line(d.sessionId)],
      ["project", line(d.projectDir)],
      ["source", source],
      ["decision", decisionText(d, options.text)],
      ["took", o === null ? null : durationText(o.durationMs)],
      [
        "config",
        d.snapshot === null
          ? o === null
            ? null
            : o.configHash
          : `${d.snapshot.hash}${d.snapshot.warnings.length ? ` (${plural(d.snapshot.warnings.length, "warning")})` : ""}`,
      ],
      ["chain", chain.length ? chain : ["-"]],
      ["log id", d.chain.logId],
    ]),
    "",
    d.rejection === null ? "Payload" : "Payload (as it arrived)",
    ...indented(lines(prettyStoredJson(d.payload))),
  ];
  if (o !== null) {
    result.push("", o.hooks.length === 0 ? "Hooks: none ran" : `Hooks: ${o.hooks.length} ran`);
    o.hooks.forEach((h) => result.push(...hookLines(h, options.text)));
    if (o.skipped.length) {
      result.push("", `Skipped: ${o.skipped.length}`);
      for (const s of o.skipped) {
        result.push(`  ${line(s.name)}: ${s.reason}`);
        result.push(
          ...fieldLines(
            [
              ["command", s.command === null ? null : line(s.command)],
              ["from", from(s.level, s.matcher, line)],
              ["why", line(s.message)],
            ],
            "    ",
          ),
        );
      }
    }
    const rest = outcomeFields(o, options.text);
    if (rest.length) result.push("", "Outcome", ...rest);
  }
  if (d.snapshot?.warnings.length) result.push("", "Settings warnings", ...d.snapshot.warnings.map((w) => `  ${line(w)}`));
  return result;
}

/** The host that called the entry of another host that judged the event (Cursor through Claude Code's), or null. */
function callerText(d: EventDetail): string | null {
  let payload: unknown = null;
  try {
    payload = JSON.parse(d.payload);
  } catch {
    return null;
  }
  const caller = loggedCallerOf(payload, d.origin.host);
  return caller === null ? null : `${hostDialect(caller).name}, through the entry pinned to ${hostDialect(d.origin.host as Dialect).name}`;
}

/** `DENY` for a blocking decision (as the log's table shows it), the decision otherwise. */
function decisionWord(d: EventDetail): string {
  return d.outcome?.blocked ? d.decision.toUpperCase() : d.decision;
}

/** The decision word in its colour on a terminal that takes colour. */
const shownDecision = (d: EventDetail, text: DetailText): string => text.paint(decisionWord(d), decisionStyle(d.decision, d.outcome?.blocked));

function decisionText(d: EventDetail, text: DetailText): string {
  const { line } = text;
  if (d.rejection !== null) return `${text.paint("rejected", "red")}: ${line(d.rejection)}`;
  if (d.outcome === null) return d.decision === "recorded" ? "recorded (qhooks record: no hook judged it)" : `${d.decision} (no outcome was logged)`;
  const why = d.outcome.reason === null ? "" : `: ${line(d.outcome.reason)}`;
  return `${shownDecision(d, text)}${d.outcome.blocked ? " (blocked)" : ""}${why}`;
}

/** `block-rm: block (exit 2, 12 ms)` and its command, provenance, decision, error and output. */
function hookLines(h: HookResult, text: DetailText): string[] {
  const { line, lines } = text;
  const ended = [
    h.exitCode === null ? null : `exit ${h.exitCode}`,
    h.signal === null ? null : `signal ${h.signal}`,
    h.timedOut ? "timed out" : null,
    durationText(h.durationMs),
  ];
  const output = (s: string) => (s === "" ? "(empty)" : lines(s.replace(/\n$/, "")));
  const fields: Field[] = [
    ["command", h.command === null ? "(in-process handler)" : line(h.command)],
    ["from", from(h.level, h.matcher, line)],
    ["decision", h.decision === "none" && h.reason === null ? null : `${h.decision}${h.reason === null ? "" : `: ${line(h.reason)}`}`],
    ["error", h.error === null ? null : text.paint(line(h.error), "red")],
    ["stdout", output(h.stdout)],
    ["stderr", output(h.stderr)],
    ["output", h.truncated ? "cut: the hook wrote more than qhooks keeps" : null],
  ];
  return [
    "",
    `  ${line(h.name)}: ${text.paint(h.outcome, hookOutcomeStyle(h.outcome))} (${ended.filter((e) => e !== null).join(", ")})`,
    ...fieldLines(fields, "    "),
  ];
}

const from = (level: string, matcher: string | null, line: (s: string) => string): string =>
  `${line(level)}${matcher === null || matcher === "" ? "" : `, matcher ${line(matcher)}`}`;

/** The outcome's fields beyond the decision: only those that say something. */
function outcomeFields(o: Outcome, text: DetailText): string[] {
  const { line, lines } = text;
  return fieldLines([
    ["continue", o.continue ? null : `no${o.stopReason === null ? "" : `: ${line(o.stopReason)}`}`],
    ["messages", o.systemMessages.length ? o.systemMessages.map(line) : null],
    ["context", o.additionalContext.length ? o.additionalContext.flatMap(lines) : null],
    ["new input", o.updatedInput === null ? null : lines(JSON.stringify(o.updatedInput, null, 2))],
    ["quiet", o.suppressOutput ? "yes (suppressOutput)" : null],
    ["warnings", o.warnings.length ? o.warnings.map(line) : null],
  ]);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
