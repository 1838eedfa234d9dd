import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { QhooksError, messageOf } from "../errors.js";
import { MAX_PAYLOAD_BYTES } from "../payload/parsePayload.js";
import { TOKEN_VARIABLE } from "../install/serverEntries.js";
import { oneLineText } from "../text/oneLine.js";
import { FORWARD_HEARTBEAT_MS } from "./forwardTiming.js";
import { textAnswer, type HookAnswer } from "./httpAnswer.js";
import type { HookService } from "./hookService.js";
import type { LiveView } from "./liveView.js";
import { ChallengeSchema, HookDialectSchema, HookQuerySchema, type HealthAnswer } from "./schemas.js";
import { proofOf, sameToken } from "./token.js";

/** The only address the server listens on: loopback, never a name that DNS could point elsewhere. */
export const LOOPBACK = "127.0.0.1";

/** Limits of one request: a slow or endless client is cut off, and cannot hold others up. */
export interface RequestLimits {
  /** Bytes of a body; a larger one is refused (413) without being read. */
  readonly maxBodyBytes: number;
  /** Milliseconds to receive the headers. */
  readonly headersTimeoutMs: number;
  /** Milliseconds to receive the whole request, body included (judging it is not counted). */
  readonly requestTimeoutMs: number;
}

/**
 * Node starts both clocks when it accepts the connection, not when the bytes arrive: with hundreds of connections
 * accepted at once on a loaded machine, the last ones are read only after the others' requests have been handled,
 * and at 10 s some were cut off with their request unread (so the kernel answered with a reset, issue 24). 30 s
 * still cuts off a slow or half-open client.
 */
export const DEFAULT_LIMITS: RequestLimits = { maxBodyBytes: MAX_PAYLOAD_BYTES, headersTimeoutMs: 30_000, requestTimeoutMs: 60_000 };
/** Room for a forwarded run's environment and command line beside its payload. */
const FORWARD_OVERHEAD_BYTES = 1024 * 1024;
/** Connections the kernel queues before they are accepted (Node's default, 511, is just above the 500 tested at once). */
const LISTEN_BACKLOG = 2048;

export interface HttpTransportOptions {
  readonly service: HookService;
  /** The secret as it is now: read for every request, so that a rotated secret takes effect at once. */
  readonly token: () => string;
  /** Where the secret is kept, for the line a refused caller gets. */
  readonly tokenFile: string;
  /** 0: any free port. */
  readonly port: number;
  readonly version: string;
  readonly startedAt: string;
  readonly limits?: RequestLimits;
  /** One line per refused or failed request (never the secret). */
  readonly log: (line: string) => void;
  /** The live view, which answers under /live with its own credentials (liveView.ts). */
  readonly live?: LiveView;
  /** Called when an authorized event arrives and when its answer is sent: what keeps an idle server alive. */
  readonly onEvent?: () => void;
}

export interface HttpTransport {
  readonly port: number;
  /** Stops accepting, answers the requests under way (new ones on open connections get 503), then closes them. */
  close(): Promise<void>;
}

/**
 * The server's HTTP transport: loopback only; every request must name the exact Host the server gave
 * (`127.0.0.1:<port>`, so that no DNS rebinding reaches it) and carry the secret (`Authorization: Bearer`); no CORS
 * headers, so no web page reads an answer. `POST /hook/<dialect>` judges an event; `GET /health` says who listens,
 * and with an `X-Qhooks-Challenge` instead of the secret, proves it holds the secret without revealing it.
 */
export function listenHttp(options: HttpTransportOptions): Promise<HttpTransport> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  let closing = false;
  let port = 0;
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often the two timeouts above are checked (Node's default, 30 s, would let a slow client hold on that long).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      keepAliveTimeout: 5000,
    },
    (req, res) => {
      void handle(req, res).catch((e: unknown) => {
        options.log(`qhooks serve: ${req.method} ${pathOf(req)}: internal error: ${messageOf(e)}`);
        if (!res.headersSent) send(res, textAnswer(500, "qhooks: internal error"));
        else res.destroy();
      });
    },
  );
  server.maxHeadersCount = 64;

  const refuse = (req: IncomingMessage, res: ServerResponse, answer: HookAnswer, why: string, close = false): void => {
    options.log(`qhooks serve: refused ${req.method} ${oneLineText(pathOf(req), 200)} from ${req.socket.remoteAddress ?? "?"}: ${why}`);
    send(res, answer, close);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The Host check comes first: a page that rebinds a name to 127.0.0.1 learns nothing, not even that qhooks runs.
    if (req.headers.host !== `${LOOPBACK}:${port}`)
      return refuse(req, res, textAnswer(421, `qhooks: Host must be ${LOOPBACK}:${port}`), `Host ${oneLineText(String(req.headers.host), 100)}`, true);
    if (closing) return send(res, textAnswer(503, "qhooks: the server is stopping"), true);
    const url = new URL(req.url ?? "/", `http://${LOOPBACK}:${port}`);
    if (options.live && (url.pathname === "/live" || url.pathname.startsWith("/live/"))) return options.live.handle(req, res, url, port);
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    const token = options.token();
    const authorized = bearer !== undefined && sameToken(bearer, token);

    if (url.pathname === "/health" && req.method === "GET") {
      const challenge = req.headers["x-qhooks-challenge"];
      const checked = typeof challenge === "string" ? ChallengeSchema.safeParse(challenge) : null;
      if (!authorized && !checked?.success)
        return refuse(req, res, textAnswer(401, "qhooks: send the server's secret or a challenge"), bearer === undefined ? "no secret" : "wrong secret", true);
      const health: HealthAnswer = {
        service: "qhooks serve",
        pid: process.pid,
        version: options.version,
        port,
        startedAt: options.startedAt,
        uid: typeof process.getuid === "function" ? process.getuid() : null,
        ...(checked?.success ? { proof: proofOf(token, checked.data) } : {}),
      };
      return send(res, { status: 200, body: JSON.stringify(health), contentType: "application/json" });
    }
    if (!authorized)
      return refuse(
        req,
        res,
        textAnswer(
          401,
          `qhooks: wrong or missing secret (Authorization: Bearer <the secret in the server's token file>); installed entries send $${TOKEN_VARIABLE}: export ${TOKEN_VARIABLE}="$(cat ${options.tokenFile})" before starting the agent`,
        ),
        bearer === undefined ? "no secret" : "wrong secret",
        true,
      );

    if (url.pathname === "/run") return forwarded(req, res);
    const route = /^\/hook\/([^/]+)$/.exec(url.pathname);
    if (route === null) return send(res, textAnswer(404, "qhooks: the routes are POST /hook/<dialect>, POST /run and GET /health"), true);
    if (req.method !== "POST") return send(res, textAnswer(405, "qhooks: POST the event"), true);
    const dialect = HookDialectSchema.safeParse(route[1]);
    if (!dialect.success) return send(res, textAnswer(404, `qhooks: ${dialect.error.issues[0]!.message}`), true);
    const query = HookQuerySchema.safeParse({
      project: (req.headers["x-qhooks-project"] as string | undefined) ?? url.searchParams.get("project") ?? undefined,
      settings: url.searchParams.getAll("settings"),
      plugin: url.searchParams.getAll("plugin"),
    });
    if (!query.success) return send(res, textAnswer(400, `qhooks: ${query.error.issues[0]!.message}`), true);
    if (!/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? ""))
      return send(res, textAnswer(415, "qhooks: the event must be sent as Content-Type: application/json"), true);
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > limits.maxBodyBytes)
      return refuse(req, res, textAnswer(413, `qhooks: the event is larger than ${limits.maxBodyBytes} bytes`), `body of ${declared} bytes`, true);

    const body = await readBody(req, limits.maxBodyBytes);
    if (body === "gone") return options.log(`qhooks serve: POST ${pathOf(req)}: the client went away before sending the whole event; not judged`);
    if (body === "too large") return refuse(req, res, textAnswer(413, `qhooks: the event is larger than ${limits.maxBodyBytes} bytes`), "body too large", true);
    options.onEvent?.();
    const answer = await options.service.handle({
      dialect: dialect.data,
      project: query.data.project,
      settings: query.data.settings,
      plugins: query.data.plugin,
      body,
    });
    options.onEvent?.();
    // A caller that went away still had its event judged and logged; there is no one left to answer.
    if (!res.destroyed) send(res, answer);
  }

  /**
   * POST /run: a `qhooks run` that forwarded itself (cli/forwardClient.ts); its body carries the caller's environment
   * besides the payload, so it may be larger than an event by FORWARD_OVERHEAD_BYTES.
   */
  async function forwarded(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return send(res, textAnswer(405, "qhooks: POST the run"), true);
    const limit = limits.maxBodyBytes + FORWARD_OVERHEAD_BYTES;
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > limit) return refuse(req, res, textAnswer(413, `qhooks: the run is larger than ${limit} bytes`), `body of ${declared} bytes`, true);
    const body = await readBody(req, limit);
    if (body === "gone") return options.log("qhooks serve: POST /run: the client went away before sending the whole run; not judged");
    if (body === "too large") return refuse(req, res, textAnswer(413, `qhooks: the run is larger than ${limit} bytes`), "body too large", true);
    options.onEvent?.();
    // The run's heartbeat (forwardTiming.ts): the caller counts only silence, so a run as long as its hooks' timeouts
    // is waited for, and a server that stalls or dies is given up within FORWARD_SILENCE_MS.
    let heartbeat: NodeJS.Timeout | undefined;
    const take = (): boolean => {
      if (callerGone(req, res)) return false;
      res.writeProcessing();
      heartbeat = setInterval(() => res.writeProcessing(), FORWARD_HEARTBEAT_MS);
      return true;
    };
    let answer: HookAnswer;
    try {
      answer = await options.service.judgeRun(body, take);
    } finally {
      clearInterval(heartbeat);
    }
    options.onEvent?.();
    if (!callerGone(req, res)) return send(res, answer);
    // Judged here and logged, but its caller gave up on the server and judged the run itself: say so where the
    // server's owner looks, since the event's hooks may have run twice.
    if (heartbeat !== undefined)
      options.log("qhooks serve: POST /run: the caller stopped waiting before its answer and judged the run itself; its hooks may have run twice");
  }

  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new QhooksError(
          "io",
          e.code === "EADDRINUSE"
            ? `port ${options.port} of ${LOOPBACK} is in use by another program; start with --port 0 for a free one`
            : `cannot listen on ${LOOPBACK}:${options.port}: ${messageOf(e)}`,
        ),
      ),
    );
    server.listen({ port: options.port, host: LOOPBACK, backlog: LISTEN_BACKLOG }, () => {
      port = (server.address() as AddressInfo).port;
      server.on("error", (e) => options.log(`qhooks serve: ${messageOf(e)}`));
      resolve({
        port,
        async close() {
          closing = true;
          const closed = new Promise<void>((done) => server.close(() => done()));
          server.closeIdleConnections();
          await options.service.drain();
          server.closeAllConnections();
          await closed;
        },
      });
    });
  });
}

/** A caller that closed its side or the connection: no answer reaches it (the forward client never half-closes). */
const callerGone = (req: IncomingMessage, res: ServerResponse): boolean => res.destroyed || req.socket.destroyed || req.socket.readableEnded;

const pathOf = (req: IncomingMessage): string => (req.url ?? "/").split("?", 1)[0]!;

/** Sends an answer; `close` ends the connection after it (a refused client keeps no connection open). */
function send(res: ServerResponse, answer: HookAnswer, close = false): void {
  const headers: Record<string, string | number> = {
    "Content-Type": answer.contentType,
    "Content-Length": Buffer.byteLength(answer.body),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  };
  if (close) headers.Connection = "close";
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

/** The body as UTF-8 text; "too large" as soon as it passes `limit` (the rest is never read); "gone" if the client left. */
function readBody(req: IncomingMessage, limit: number): Promise<string | "too large" | "gone"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.pause();
      req.removeListener("data", onData);
      resolve("too large");
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks, size).toString("utf8")));
    req.on("error", () => resolve("gone"));
    req.on("aborted", () => resolve("gone"));
  });
}
