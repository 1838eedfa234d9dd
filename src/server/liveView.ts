import { randomBytes } from "node:crypto";
import { RecentMap } from "../core/recentMap.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { contentSecurityPolicy, PAGE_SCRIPT } from "../report/pageAssets.js";
import { emptyReport, REPORT_LIMITS, reportStep } from "../report/reportData.js";
import { renderReport } from "../report/renderReport.js";
import { attestSessions } from "../report/sessionAttestations.js";
import type { LogRecord } from "../schema/logRecord.js";
import type { Store } from "../store/openStore.js";
import { shownUrl } from "../text/shownUrl.js";
import { LIVE_SCRIPT } from "./livePage.js";
import { redeemTicket } from "./liveTicket.js";

/** How many live-view cookies the server knows at most: one per page a person opened, the most recently used. */
const LIVE_SESSIONS_KEPT = 64;

/** How often each open page's stream reads the log for events settled since its last read. */
const POLL_MS = 500;
/**
 * Events the page's report is rendered from when it loads: the newest, read-only from the log. It bounds the time the
 * server spends on a page (it judges hooks meanwhile); `qhooks report --limit all` reads everything.
 */
export const LIVE_REPORT_EVENTS = 5000;

export interface LiveViewOptions {
  /** The server's secret as it is now (re-read when `serve --rotate-token` replaces it): what tickets are signed with. */
  readonly token: () => string;
  /** Opens the log's read side (once, at the first page). */
  readonly openLog: () => Store;
  /** The log's path, shown in the page's header as `qhooks report` shows it. */
  readonly logPath: string;
  readonly log: (line: string) => void;
}

/** What a page is sent of an event: small, and only text and numbers it shows with textContent. */
export interface LiveEvent {
  readonly seq: number;
  readonly ts: string;
  readonly event: string | null;
  readonly sessionId: string | null;
  readonly matchValue: string | null;
  readonly tried: string | null;
  readonly decision: string;
  readonly blocked: boolean;
  readonly reason: string | null;
  readonly hooks: readonly string[];
}

export const liveEventOf = (r: LogRecord): LiveEvent => ({
  seq: r.seq,
  ts: r.ts,
  event: r.event,
  sessionId: r.sessionId,
  matchValue: r.matchValue,
  tried: r.tried,
  decision: r.decision,
  blocked: r.blocked,
  reason: r.reason,
  hooks: [...r.hooks, ...r.asyncHooks].map((h) => (h.outcome === "success" ? h.name : `${h.name}:${h.outcome}`)),
});

export interface LiveView {
  /** Answers a request under /live (the transport checked the Host). */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, port: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The live view: `GET /live?ticket=T` trades a one-time ticket (liveTicket.ts) for an HttpOnly, SameSite=Strict
 * cookie and redirects to `/live`, which serves the page; the page's script reads `/live/events`, a Server-Sent
 * Events stream of the log's events as they are settled. Every route needs the cookie; none changes anything; a
 * request another site started (Sec-Fetch-Site, Origin) is refused.
 */
export function liveView(options: LiveViewOptions): LiveView {
  const usedTickets = new Map<string, number>();
  // Each cookie's session, and where its stream starts: the log's end when its page was last rendered. The pages last
  // opened only: a cookie dropped past the bound is told to open the view again from `qhooks live`.
  const sessions = new RecentMap<string, number>(LIVE_SESSIONS_KEPT);
  const streams = new Set<() => void>();
  let store: Store | null = null;
  const cookieName = (port: number) => `qhooks_live_${port}`;

  const plain = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
    res.end(`${text}\n`);
  };

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, port: number): Promise<void> {
    if (req.method !== "GET") return plain(res, 405, "qhooks: the live view only reads");
    const site = req.headers["sec-fetch-site"];
    const origin = req.headers.origin;
    if ((site !== undefined && site !== "same-origin" && site !== "none") || (origin !== undefined && origin !== `http://127.0.0.1:${port}`)) {
      options.log(`qhooks serve: refused GET ${url.pathname}: started by another site (${String(origin ?? site)})`);
      return plain(res, 403, "qhooks: the live view opens only from its own URL");
    }
    const ticket = url.searchParams.get("ticket");
    if (url.pathname === "/live" && ticket !== null) {
      const why = redeemTicket(options.token(), ticket, usedTickets);
      if (why !== null) {
        options.log(`qhooks serve: refused a live-view ticket: ${why}`);
        return plain(res, 401, `qhooks: this live-view URL is ${why.startsWith("not") ? "not valid" : why}`);
      }
      const session = randomBytes(32).toString("base64url");
      sessions.set(session, 0);
      res.writeHead(303, {
        ...SECURITY_HEADERS,
        Location: "/live",
        "Set-Cookie": `${cookieName(port)}=${session}; HttpOnly; SameSite=Strict; Path=/live`,
        "Content-Length": 0,
      });
      return void res.end();
    }
    const cookie = cookiesOf(req).get(cookieName(port));
    if (cookie === undefined || !sessions.has(cookie)) return plain(res, 401, "qhooks: open the live view from the URL `qhooks live` prints");
    if (url.pathname === "/live") return page(res, cookie);
    if (url.pathname === "/live/events") return stream(req, res, sessions.get(cookie)!);
    return plain(res, 404, "qhooks: the live view's routes are /live and /live/events");
  }

  /** The report of the log's newest events, rendered now; the stream of this cookie goes on from here. */
  async function page(res: ServerResponse, session: string): Promise<void> {
    store ??= options.openLog();
    const log = store;
    let body: string;
    try {
      // The end first: an event settled while the report is read is sent again, and its row in the report gives way.
      const { through } = await log.settledAfter({}, Number.MAX_SAFE_INTEGER, 1);
      const total = await log.count({});
      let data = emptyReport();
      for await (const r of log.events({}, LIVE_REPORT_EVENTS)) data = reportStep(data, r, REPORT_LIMITS);
      await attestSessions(log, data.sessions.values());
      body = renderReport({ data, total, selection: "", generatedAt: new Date(), utc: false, logPath: shownUrl(options.logPath), liveScript: LIVE_SCRIPT });
      sessions.set(session, through);
    } catch (e) {
      options.log(`qhooks serve: the live view cannot read the log: ${(e as Error).message}`);
      return plain(res, 500, "qhooks: the live view cannot read the log (the server's output says why)");
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      // The report's own policy (its two scripts by hash, the stream from this origin), never framed.
      "Content-Security-Policy": `${contentSecurityPolicy(PAGE_SCRIPT, LIVE_SCRIPT)}; frame-ancestors 'none'`,
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  async function stream(req: IncomingMessage, res: ServerResponse, from: number): Promise<void> {
    store ??= options.openLog();
    const log = store;
    res.writeHead(200, { ...SECURITY_HEADERS, "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive" });
    const send = (records: readonly LogRecord[]) => {
      for (const r of records) res.write(`event: record\ndata: ${JSON.stringify(liveEventOf(r))}\n\n`);
    };
    let open = true;
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      open = false;
      clearTimeout(timer);
      streams.delete(end);
      res.end();
    };
    streams.add(end);
    req.on("close", end);
    try {
      let through = from;
      res.write(": listening\n\n");
      const poll = async (): Promise<void> => {
        if (!open) return;
        try {
          const settled = await log.settledAfter({}, through, 500);
          through = settled.through;
          send(settled.records);
        } catch (e) {
          options.log(`qhooks serve: the live view cannot read the log: ${(e as Error).message}`);
        }
        if (open) timer = setTimeout(() => void poll(), POLL_MS);
      };
      timer = setTimeout(() => void poll(), POLL_MS);
    } catch (e) {
      options.log(`qhooks serve: the live view cannot read the log: ${(e as Error).message}`);
      end();
    }
  }

  return {
    handle,
    async close() {
      for (const end of [...streams]) end();
      await store?.close();
      store = null;
    },
  };
}

/** Sent with every answer of the live view: its own script only, never framed, no referrer, nothing cached. */
const SECURITY_HEADERS = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

function cookiesOf(req: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) found.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return found;
}
