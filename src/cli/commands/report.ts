import { resolve } from "node:path";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import type { LogFilter } from "../../schema/logFilter.js";
import { openStore } from "../../store/openStore.js";
import { oneLineText } from "../../text/oneLine.js";
import { shownUrl } from "../../text/shownUrl.js";
import { FilterFlagsSchema, limitFlag } from "../filterFlags.js";
import type { CliContext } from "../globals.js";
import { out } from "../io.js";
import { showTime } from "../../display/times.js";
import { writePrivateFile } from "../../display/writePrivateFile.js";
import { emptyReport, REPORT_LIMITS, reportStep } from "../../report/reportData.js";
import { renderReport } from "../../report/renderReport.js";
import { attestSessions } from "../../report/sessionAttestations.js";
import { resolveSessions } from "../sessionIds.js";
import { withYoungGenerationCap } from "../youngGeneration.js";
import { withOtherHookNames } from "../hookFilter.js";

/** Events read for a report unless `--limit` says otherwise: enough for weeks of use, read in a few seconds. */
export const DEFAULT_REPORT_LIMIT = 50_000;

export const ReportFlagsSchema = z.object({
  filter: FilterFlagsSchema,
  output: z.string().min(1, { error: "expected a file name, or - for stdout" }).default("qhooks-report.html"),
  limit: limitFlag(DEFAULT_REPORT_LIMIT),
  utc: z.boolean().default(false),
});
export type ReportFlags = z.infer<typeof ReportFlagsSchema>;

/** `qhooks report`: the matching events as one self-contained HTML page; its path on stdout. */
export async function reportCommand(flags: ReportFlags, context: CliContext): Promise<number> {
  const log = openStore(context.dbPath, { mustExist: true });
  let page: string;
  let read: number;
  try {
    const filter = await resolveSessions(log, withOtherHookNames(flags.filter, context));
    const total = await log.count(filter);
    let data = emptyReport();
    for await (const record of withYoungGenerationCap(log.events(filter, flags.limit ?? Number.MAX_SAFE_INTEGER)))
      data = reportStep(data, record, REPORT_LIMITS);
    await attestSessions(log, data.sessions.values());
    read = data.read;
    page = renderReport({
      data,
      total,
      selection: selectionText(filter, flags.utc),
      generatedAt: new Date(),
      utc: flags.utc,
      logPath: shownUrl(context.dbPath),
    });
  } finally {
    await log.close();
  }
  if (flags.output === "-") {
    out(page);
    return EXIT.ok;
  }
  const path = resolve(flags.output);
  try {
    writePrivateFile(path, page);
  } catch (e) {
    throw new QhooksError("io", `cannot write the report ${oneLineText(flags.output)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  out(`Wrote ${path} (${read} event${read === 1 ? "" : "s"})`);
  return EXIT.ok;
}

/** The selection in words, for the page's title: `session 3f2a9b1c, since 2026-01-13 09:00:00 +08:00`. */
export function selectionText(filter: LogFilter, utc: boolean): string {
  const at = (d: Date) => {
    const t = showTime(d.toISOString(), utc);
    return `${t.text} ${t.zone}`;
  };
  const parts = [
    filter.sessions?.length ? `session ${filter.sessions.join(", ")}` : null,
    filter.event ? `event ${filter.event}` : null,
    filter.tool ? `match ${filter.tool}` : null,
    filter.decision ? `decision ${filter.decision}` : null,
    filter.blocked ? "blocked" : null,
    filter.hook ? `hook ${filter.hook}` : null,
    filter.grep ? `containing "${filter.grep}"` : null,
    filter.host ? `host ${filter.host}` : null,
    filter.machine ? `machine ${filter.machine}` : null,
    filter.user ? `user ${filter.user}` : null,
    filter.writer ? `writer ${filter.writer}` : null,
    filter.since ? `since ${at(filter.since)}` : null,
    filter.until ? `until ${at(filter.until)}` : null,
  ];
  return parts.filter((p) => p !== null).join(", ");
}
