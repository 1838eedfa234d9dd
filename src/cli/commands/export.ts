import { z } from "zod";
import { EXIT, QhooksError, isQhooksError } from "../../errors.js";
import { openStore } from "../../store/openStore.js";
import { FilterFlagsSchema } from "../filterFlags.js";
import { parseInterval, pause, stopOnSignals } from "../intervalArg.js";
import { out, warn } from "../io.js";
import type { CliContext } from "../globals.js";

export const ExportFlagsSchema = z.object({
  otlp: z.string({ error: "--otlp URL is required (the collector, e.g. http://localhost:4318)" }),
  protocol: z.enum(["protobuf", "json"], { error: "expected protobuf or json" }).default("protobuf"),
  filter: FilterFlagsSchema,
  watch: z.boolean().default(false),
  interval: z.string().default("10s"),
  version: z.string(),
});
export type ExportFlags = z.infer<typeof ExportFlagsSchema>;

/** How far back each round of `--watch` looks again, for events logged late (shipped from a laptop, judged slowly). */
const WATCH_MARGIN_MS = 60 * 60_000;

/** `qhooks export --otlp URL`: the log's events as OpenTelemetry log records, sent to a collector over OTLP/HTTP. */
export async function exportCommand(flags: ExportFlags, context: CliContext): Promise<number> {
  const interval = parseInterval("--interval", flags.interval);
  const { exportOtlp, logsEndpoint } = await import("../../export/otlpExport.js");
  const endpoint = logsEndpoint(flags.otlp);
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    if (!flags.watch) {
      const done = await exportOtlp({ log, url: flags.otlp, protocol: flags.protocol, filter: flags.filter, version: flags.version });
      out(`exported ${done.sent.length} event${done.sent.length === 1 ? "" : "s"} to ${endpoint}`);
      return EXIT.ok;
    }
    // Continuous: each round reads from a little before the newest event sent, skipping what was sent; an event
    // still waiting for its outcome is sent once it has one.
    const sent = new Map<number, number>();
    let since = flags.filter.since;
    const stop = stopOnSignals();
    while (!stop.aborted) {
      try {
        const round = await exportOtlp({ log, url: flags.otlp, protocol: flags.protocol, filter: { ...flags.filter, since }, skip: (seq) => sent.has(seq), holdUnfinished: true, version: flags.version });
        const now = Date.now();
        for (const seq of round.sent) sent.set(seq, now);
        if (round.lastTs !== null) {
          const from = new Date(Date.parse(round.lastTs) - WATCH_MARGIN_MS);
          if (since === undefined || from > since) since = from;
        }
        // Seqs sent long before the window's start cannot come back into it.
        for (const [seq, at] of sent) if (at < now - 2 * WATCH_MARGIN_MS) sent.delete(seq);
        if (round.sent.length > 0) out(`exported ${round.sent.length} event${round.sent.length === 1 ? "" : "s"} to ${endpoint}`);
      } catch (e) {
        if (!isQhooksError(e) || e.code === "usage") throw e;
        warn(`${e.message}; trying again in ${flags.interval}`);
      }
      await pause(interval, stop);
    }
    return EXIT.ok;
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    throw e;
  } finally {
    await log.close();
  }
}
