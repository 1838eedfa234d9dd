import { arch, hostname, type as osType } from "node:os";
import { SeverityNumber, type LogAttributes } from "@opentelemetry/api-logs";
import { ExportResultCode } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { OTLPLogExporter as JsonExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtobufExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { LoggerProvider, type LogRecordExporter, type LogRecordProcessor, type SdkLogRecord, type ReadableLogRecord } from "@opentelemetry/sdk-logs";
import { QhooksError, messageOf } from "../errors.js";
import type { EventDetail } from "../schema/eventDetail.js";
import type { AuditLog, LogFilter } from "../store/eventLog.js";
import { shownUrl, withoutUrlCredentials } from "../text/shownUrl.js";
import { storedInputSummary } from "../core/toolInputSummary.js";

export type OtlpProtocol = "protobuf" | "json";

export interface OtlpExportOptions {
  readonly log: AuditLog;
  /** The collector: its base URL (`/v1/logs` is added) or the full URL of its logs endpoint. */
  readonly url: string;
  readonly protocol?: OtlpProtocol;
  /** Which events: the window, the event type... (live events only unless a replay run is named). */
  readonly filter?: LogFilter;
  /** Only events after this seq (a cursor: what an earlier export got through). */
  readonly after?: number;
  /** Events held by an earlier export (waiting for their outcome), looked at again first. */
  readonly pending?: readonly number[];
  /**
   * Events still waiting for their outcome and younger than this (ms) are held for a later export rather than
   * sent unfinished (continuous mode); older ones are sent as they are (a dispatch that never finished).
   */
  readonly holdUnfinishedMs?: number;
  /** qhooks' version, for the resource. */
  readonly version?: string;
  /** Told after each batch the collector took: how far the export got (what a cursor keeps). */
  readonly onProgress?: (progress: OtlpExportProgress) => void;
}

/** How far an export got: every event up to `after` was sent or is in `pending`. */
export interface OtlpExportProgress {
  readonly after: number | null;
  readonly pending: readonly number[];
  /** The event sent last (the newest seq sent), null when none was. */
  readonly last: { readonly seq: number; readonly ts: string } | null;
}

export interface OtlpExportResult extends OtlpExportProgress {
  /** The seqs sent, in order. */
  readonly sent: number[];
  /** The newest event time sent (ISO), null when nothing was sent. */
  readonly lastTs: string | null;
}

/** Records per request to the collector. */
const BATCH = 512;

/** The OTLP/HTTP logs endpoint of a collector URL: a URL with no path gets the standard `/v1/logs`. */
export function logsEndpoint(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QhooksError("usage", `--otlp ${JSON.stringify(shownUrl(url))}: expected a URL such as http://localhost:4318`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new QhooksError("usage", `--otlp ${JSON.stringify(shownUrl(url))}: expected an http:// or https:// URL (OTLP over HTTP)`);
  if (parsed.pathname === "/" || parsed.pathname === "") parsed.pathname = "/v1/logs";
  return parsed.toString();
}

/**
 * The resource every record comes with: qhooks, and the exporting machine under `qhooks.exporter.*`. The machine
 * an event happened on is each record's own `host.name` (a central log holds many machines' events).
 */
export function machineResource(version: string | undefined) {
  return resourceFromAttributes({
    "service.name": "qhooks",
    ...(version ? { "service.version": version } : {}),
    "qhooks.exporter.host.name": hostname(),
    "qhooks.exporter.host.arch": arch(),
    "qhooks.exporter.os.type": osType().toLowerCase(),
  });
}

/** An event and its outcome as one OTLP log record's fields. */
export function logRecordOf(detail: EventDetail): {
  timestamp: Date;
  severityNumber: SeverityNumber;
  severityText: string;
  body: string;
  attributes: LogAttributes;
  eventName: string;
} {
  const outcome = detail.outcome;
  const hooks = outcome?.hooks ?? [];
  const blocked = outcome?.blocked ?? false;
  const reason = outcome?.reason ?? detail.rejection;
  const attributes: LogAttributes = {
    "qhooks.seq": detail.seq,
    "qhooks.event": detail.event ?? "?",
    "qhooks.decision": detail.decision,
    "qhooks.blocked": blocked,
    "qhooks.source": detail.source,
    "qhooks.project_dir": detail.projectDir,
    "qhooks.hook.names": hooks.map((h) => h.name),
    "qhooks.hook.outcomes": hooks.map((h) => h.outcome),
    "qhooks.hook.durations_ms": hooks.map((h) => h.durationMs),
  };
  if (detail.sessionId !== null) attributes["session.id"] = detail.sessionId;
  if (detail.matchValue !== null) attributes["qhooks.tool"] = detail.matchValue;
  const tried = storedInputSummary(detail.payload);
  if (tried !== null) attributes["qhooks.tool_input"] = tried;
  if (reason) attributes["qhooks.reason"] = reason;
  if (outcome?.durationMs != null) attributes["qhooks.duration_ms"] = outcome.durationMs;
  if (outcome?.configHash) attributes["qhooks.config_hash"] = outcome.configHash;
  if (detail.chain.logId !== null) attributes["qhooks.log_id"] = detail.chain.logId;
  if (detail.replay) attributes["qhooks.replay.run_id"] = detail.replay.runId;
  // Who and where: the event's origin, not the exporting machine.
  const origin = detail.origin;
  if (origin.machine !== null) attributes["host.name"] = origin.machine;
  if (origin.user !== null) attributes["user.name"] = origin.user;
  if (origin.writer !== null) attributes["qhooks.writer"] = origin.writer;
  attributes["qhooks.origin_seq"] = origin.seq;
  if (origin.host !== null) attributes["qhooks.host"] = origin.host;
  const severityNumber = detail.decision === "rejected" ? SeverityNumber.ERROR : blocked ? SeverityNumber.WARN : SeverityNumber.INFO;
  return {
    timestamp: new Date(detail.ts),
    severityNumber,
    severityText: severityNumber === SeverityNumber.ERROR ? "ERROR" : severityNumber === SeverityNumber.WARN ? "WARN" : "INFO",
    body: `${detail.event ?? "?"} ${detail.decision}${reason ? `: ${reason}` : ""}`,
    attributes,
    eventName: `qhooks.${detail.event ?? "unknown"}`,
  };
}

/** Collects what the logger emits, so that each batch is sent by hand and its result known. */
class Collector implements LogRecordProcessor {
  records: ReadableLogRecord[] = [];
  onEmit(record: SdkLogRecord): void {
    this.records.push(record as unknown as ReadableLogRecord);
  }
  forceFlush = async () => undefined;
  shutdown = async () => undefined;
}

// Imported statically: this module is itself loaded only by the export command, and the CLI runs as a script
// (from a code cache) that cannot import() a package.
function newExporter(url: string, protocol: OtlpProtocol): LogRecordExporter {
  const options = { url, timeoutMillis: 10_000 };
  return protocol === "json" ? new JsonExporter(options) : new ProtobufExporter(options);
}

function send(exporter: LogRecordExporter, records: ReadableLogRecord[], where: string): Promise<void> {
  return new Promise((resolve, reject) =>
    exporter.export(records, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve();
      else
        reject(
          new QhooksError(
            "io",
            `the collector at ${where} did not take the records: ${result.error ? withoutUrlCredentials(messageOf(result.error)) : "export failed"}`,
            { cause: result.error },
          ),
        );
    }),
  );
}

/**
 * Sends the log's events, oldest first, as OTLP log records (the official OpenTelemetry SDK and exporter): one
 * record per event with its outcome, its attributes (event, session, tool, decision, hooks and their durations)
 * and a resource naming the machine. Each batch is sent once the one before it was taken; a collector that refuses
 * one stops the export there (what it took stays taken).
 */
export async function exportOtlp(options: OtlpExportOptions): Promise<OtlpExportResult> {
  const url = logsEndpoint(options.url);
  const exporter = newExporter(url, options.protocol ?? "protobuf");
  const collector = new Collector();
  const provider = new LoggerProvider({ resource: machineResource(options.version), processors: [collector] });
  const logger = provider.getLogger("qhooks", options.version);
  const sent: number[] = [];
  let lastTs: string | null = null;
  let pending: number[] = [];
  // Where the export stands: the held events looked at again first, then the new ones in seq order.
  const recheck = [...(options.pending ?? [])];
  const held: number[] = [];
  let after = options.after ?? null;
  let last: OtlpExportProgress["last"] = null;
  let batchLast: OtlpExportProgress["last"] = null;
  const progress = (): OtlpExportProgress => ({ after, pending: [...recheck, ...held], last });
  const flush = async () => {
    if (collector.records.length === 0) return;
    const batch = collector.records;
    collector.records = [];
    await send(exporter, batch, shownUrl(url));
    sent.push(...pending);
    pending = [];
    if (batchLast && (last === null || batchLast.seq > last.seq)) last = batchLast;
    options.onProgress?.(progress());
  };
  const take = async (seq: number): Promise<void> => {
    const detail = await options.log.event(seq);
    if (detail === null) return;
    if (detail.decision === "unfinished" && options.holdUnfinishedMs !== undefined && Date.parse(detail.ts) > Date.now() - options.holdUnfinishedMs) {
      held.push(seq);
      return;
    }
    logger.emit(logRecordOf(detail));
    pending.push(detail.seq);
    if (lastTs === null || detail.ts > lastTs) lastTs = detail.ts;
    if (batchLast === null || detail.seq > batchLast.seq) batchLast = { seq: detail.seq, ts: detail.ts };
  };
  try {
    while (recheck.length > 0) {
      await take(recheck[0]!);
      recheck.shift();
      if (collector.records.length >= BATCH) await flush();
    }
    for await (const stored of options.log.read(options.filter ?? {}, options.after === undefined ? {} : { after: options.after })) {
      await take(stored.seq);
      after = stored.seq;
      if (collector.records.length >= BATCH) await flush();
    }
    await flush();
  } finally {
    await exporter.shutdown().catch(() => undefined);
    await provider.shutdown().catch(() => undefined);
  }
  return { sent, lastTs, ...progress() };
}
