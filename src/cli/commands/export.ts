import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { isPostgresUrl, openStore } from "../../store/openStore.js";
import { FilterFlagsSchema, wholeNumberFlag } from "../filterFlags.js";
import { parseInterval } from "../intervalArg.js";
import { DEFAULT_GIVE_UP_AFTER, watchRounds } from "../watchRounds.js";
import { out, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import { shownUrl } from "../../text/shownUrl.js";
import { withOtherHookNames } from "../hookFilter.js";

export const ExportFlagsSchema = z.object({
  otlp: z.string({ error: "required: the collector URL (e.g. http://localhost:4318), or --evidence FILE instead" }),
  protocol: z.enum(["protobuf", "json"], { error: "expected protobuf or json" }).default("protobuf"),
  filter: FilterFlagsSchema,
  watch: z.boolean().default(false),
  interval: z.string().default("10s"),
  giveUpAfter: wholeNumberFlag(1).default(DEFAULT_GIVE_UP_AFTER),
  /** Where the cursor is kept (default with --watch: one file per log and collector in qhooks' directory). */
  cursor: z.string().min(1, { error: "--cursor: expected a file" }).optional(),
  version: z.string(),
});
export type ExportFlags = z.infer<typeof ExportFlagsSchema>;

/** How long an event waiting for its outcome is held by a continuous export before it is sent unfinished. */
const HOLD_UNFINISHED_MS = 60 * 60_000;

/**
 * `qhooks export --otlp URL`: the log's events as OpenTelemetry log records, sent to a collector over OTLP/HTTP.
 * With `--watch` (or `--cursor FILE`) it keeps a cursor, so that the next run goes on after the last event sent.
 */
export async function exportCommand(flags: ExportFlags, context: CliContext): Promise<number> {
  const interval = parseInterval("--interval", flags.interval);
  const { exportOtlp, logsEndpoint } = await import("../../export/otlpExport.js");
  // As shown and as the cursor names it: without credentials (the cursor is a file).
  const endpoint = shownUrl(logsEndpoint(flags.otlp));
  const selected = withOtherHookNames(flags.filter, context);
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    if (!flags.watch && flags.cursor === undefined) {
      const done = await exportOtlp({ log, url: flags.otlp, protocol: flags.protocol, filter: selected, version: flags.version });
      out(`exported ${done.sent.length} event${done.sent.length === 1 ? "" : "s"} to ${endpoint}`);
      return EXIT.ok;
    }
    const { defaultCursorPath, readCursor, writeCursor } = await import("../../export/exportCursor.js");
    const shownLog = isPostgresUrl(context.dbPath) ? shownUrl(context.dbPath) : context.dbPath;
    const path = flags.cursor ?? defaultCursorPath(context.homeDir, shownLog, endpoint);
    let cursor = readCursor(path);
    if (cursor && (cursor.log !== shownLog || cursor.endpoint !== endpoint)) {
      throw new QhooksError("usage", `the export cursor ${path} is for ${cursor.log} to ${cursor.endpoint}, not ${shownLog} to ${endpoint}`);
    }
    if (cursor?.last && (await log.event(cursor.last.seq))?.ts !== cursor.last.ts) {
      warn(`the export cursor ${path} does not match this log (event ${cursor.last.seq} is not the one it sent: a new log?); exporting it from the start`);
      cursor = null;
    }
    const save = (progress: { after: number | null; pending: readonly number[]; last: { seq: number; ts: string } | null }) => {
      cursor = {
        version: 1,
        log: shownLog,
        endpoint,
        after: progress.after ?? cursor?.after ?? null,
        pending: [...progress.pending],
        last: progress.last ?? cursor?.last ?? null,
        updatedAt: new Date().toISOString(),
      };
      writeCursor(path, cursor);
    };
    // A round: what came after the cursor (and what it held), then the cursor moved on, batch by batch. --since
    // says where a new cursor starts; once there is one, every event after it goes, whatever its time (a laptop's
    // events shipped days later come after it too).
    const round = async () => {
      const from = cursor;
      const filter = from ? { ...selected, since: undefined } : selected;
      const done = await exportOtlp({
        log,
        url: flags.otlp,
        protocol: flags.protocol,
        filter,
        version: flags.version,
        holdUnfinishedMs: HOLD_UNFINISHED_MS,
        ...(from?.after != null ? { after: from.after } : {}),
        pending: from?.pending ?? [],
        onProgress: save,
      });
      save(done);
      return done;
    };
    if (!flags.watch) {
      const done = await round();
      out(
        `exported ${done.sent.length} event${done.sent.length === 1 ? "" : "s"} to ${endpoint}${done.pending.length ? ` (${done.pending.length} held for their outcome)` : ""}`,
      );
      return EXIT.ok;
    }
    await watchRounds(
      async () => {
        const done = await round();
        if (done.sent.length > 0) out(`exported ${done.sent.length} event${done.sent.length === 1 ? "" : "s"} to ${endpoint}`);
      },
      { intervalMs: interval, interval: flags.interval, giveUpAfter: flags.giveUpAfter, fatal: (e) => e.code === "usage" },
    );
    return EXIT.ok;
  } finally {
    await log.close();
  }
}
