import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One log record as the receiver decoded it. */
export interface ReceivedRecord {
  readonly resource: Record<string, unknown>;
  readonly timeUnixNano: bigint;
  readonly severityNumber: number;
  readonly severityText: string;
  readonly body: unknown;
  readonly attributes: Record<string, unknown>;
}

/**
 * An OTLP/HTTP logs receiver on loopback, as a collector would be: it decodes each request (protobuf, by the wire
 * format of opentelemetry-proto's logs service, or JSON), keeps the records, and answers as OTLP says. `refuse`
 * makes it answer 400 (a request the collector will not take).
 */
export class OtlpReceiver {
  readonly records: ReceivedRecord[] = [];
  readonly contentTypes: string[] = [];
  refuse = false;
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.url !== "/v1/logs" || this.refuse) {
          res.writeHead(this.refuse ? 400 : 404).end();
          return;
        }
        const type = req.headers["content-type"] ?? "";
        this.contentTypes.push(type);
        const body = Buffer.concat(chunks);
        if (type.includes("json")) {
          this.records.push(...fromJson(JSON.parse(body.toString("utf8"))));
          res.writeHead(200, { "content-type": "application/json" }).end("{}");
        } else {
          this.records.push(...fromProtobuf(body));
          res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

// --- JSON (OTLP/JSON: lowerCamelCase fields, 64-bit integers as strings) ---

function anyValueJson(v: Record<string, unknown> | undefined): unknown {
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v) return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValueJson);
  if ("kvlistValue" in v) return attributesJson((v.kvlistValue as { values?: { key: string; value: Record<string, unknown> }[] }).values);
  return undefined;
}
const attributesJson = (kvs: { key: string; value: Record<string, unknown> }[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, anyValueJson(kv.value)]));

function fromJson(request: {
  resourceLogs?: { resource?: { attributes?: [] }; scopeLogs?: { logRecords?: Record<string, unknown>[] }[] }[];
}): ReceivedRecord[] {
  return (request.resourceLogs ?? []).flatMap((rl) =>
    (rl.scopeLogs ?? []).flatMap((sl) =>
      (sl.logRecords ?? []).map((r) => ({
        resource: attributesJson(rl.resource?.attributes),
        timeUnixNano: BigInt(r.timeUnixNano as string),
        severityNumber: Number(r.severityNumber ?? 0),
        severityText: (r.severityText as string) ?? "",
        body: anyValueJson(r.body as Record<string, unknown>),
        attributes: attributesJson(r.attributes as []),
      })),
    ),
  );
}

// --- protobuf wire format ---

type Field = { no: number; wire: number; varint?: bigint; bytes?: Buffer; fixed?: Buffer };

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, varint: varint() });
    else if (wire === 1) out.push({ no, wire, fixed: buf.subarray(i, (i += 8)) });
    else if (wire === 2) {
      const len = Number(varint());
      out.push({ no, wire, bytes: buf.subarray(i, (i += len)) });
    } else if (wire === 5) out.push({ no, wire, fixed: buf.subarray(i, (i += 4)) });
    else throw new Error(`unknown wire type ${wire}`);
  }
  return out;
}
const sub = (fs: Field[], no: number) => fs.filter((f) => f.no === no).map((f) => fields(f.bytes!));
const str = (fs: Field[], no: number) => fs.find((f) => f.no === no)?.bytes?.toString("utf8");

function anyValue(fs: Field[]): unknown {
  for (const f of fs) {
    if (f.no === 1) return f.bytes!.toString("utf8");
    if (f.no === 2) return f.varint !== 0n;
    if (f.no === 3) return Number(BigInt.asIntN(64, f.varint!));
    if (f.no === 4) return f.fixed!.readDoubleLE(0);
    if (f.no === 5) return sub(fields(f.bytes!), 1).map(anyValue);
    if (f.no === 6) return keyValues(sub(fields(f.bytes!), 1));
    if (f.no === 7) return f.bytes;
  }
  return undefined;
}
const keyValues = (kvs: Field[][]) => Object.fromEntries(kvs.map((kv) => [str(kv, 1), anyValue(sub(kv, 2)[0] ?? [])]));

/** ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1 } and what it holds. */
function fromProtobuf(body: Buffer): ReceivedRecord[] {
  return sub(fields(body), 1).flatMap((rl) => {
    const resource = keyValues(sub(sub(rl, 1)[0] ?? [], 1));
    return sub(rl, 2).flatMap((sl) =>
      sub(sl, 2).map((r) => ({
        resource,
        timeUnixNano: r.find((f) => f.no === 1)?.fixed?.readBigUInt64LE(0) ?? 0n,
        severityNumber: Number(r.find((f) => f.no === 2)?.varint ?? 0n),
        severityText: str(r, 3) ?? "",
        body: anyValue(sub(r, 5)[0] ?? []),
        attributes: keyValues(sub(r, 6)),
      })),
    );
  });
}
