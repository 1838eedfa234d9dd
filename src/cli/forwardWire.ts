import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { FORWARD_SILENCE_MS } from "../server/forwardTiming.js";
import { provesToken } from "../server/token.js";

/** The server the state file names: where it listens, which process it is, and the secret it should hold. */
export interface ForwardTarget {
  readonly port: number;
  readonly pid: number;
  readonly token: string;
}

/**
 * How handing a run to the server went. Nothing was sent (the run is this process's, silently): `unreached` (no
 * connection), `other` (a proven server of another qhooks version, which would refuse the run). Nothing was sent
 * either, but something is wrong: `unproven` (the listener did not prove it holds the secret, which it never saw).
 * The run was sent: `answer` (a whole HTTP answer), or `lost` (none came: the server went silent for
 * FORWARD_SILENCE_MS or closed the connection); `taken` when it had said it was judging the run (its heartbeat).
 */
export type Exchange =
  | { readonly kind: "unreached" }
  | { readonly kind: "other" }
  | { readonly kind: "unproven"; readonly why: string }
  | { readonly kind: "answer"; readonly status: number; readonly body: string }
  | { readonly kind: "lost"; readonly taken: boolean; readonly silent: boolean };

/** How long connecting may take: nothing has been sent yet, so giving up costs only the in-process run. */
const CONNECT_TIMEOUT_MS = 1000;
/** How long the listener has to answer the challenge: nothing has been sent yet either. */
const PROOF_TIMEOUT_MS = 2000;
/** A /health answer is a few hundred bytes; a listener that sends more is not the server. */
const MAX_PROOF_BYTES = 4096;

/**
 * The run, handed over on one connection in two steps, over a plain socket (node:http costs more start-up than the
 * round trips): GET /health with a fresh challenge and no secret, and only when the answer proves the secret (an
 * HMAC of the challenge under it) from the pid and port the state file names, POST /run with the secret. A process
 * squatting the port learns neither the secret nor the run. Once the run is sent, only silence is bounded
 * (forwardTiming.ts): the server's heartbeat keeps a long judgement waited for.
 */
export function exchange(target: ForwardTarget, version: string, body: string): Promise<Exchange> {
  const host = `127.0.0.1:${target.port}`;
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: target.port });
    let phase: "connecting" | "proving" | "running" = "connecting";
    let received: Buffer = Buffer.alloc(0);
    let taken = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const arm = (ms: number, outcome: () => Exchange): void => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(outcome()), ms);
    };
    const challenge = randomBytes(24).toString("base64url");
    arm(CONNECT_TIMEOUT_MS, () => ({ kind: "unreached" }));

    socket.once("connect", () => {
      phase = "proving";
      socket.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\nX-Qhooks-Challenge: ${challenge}\r\n\r\n`);
      arm(PROOF_TIMEOUT_MS, () => ({ kind: "unproven", why: `no answer to the challenge within ${PROOF_TIMEOUT_MS / 1000} s` }));
    });

    const proved = (): void => {
      const answer = takeResponse(received);
      if (answer === "incomplete") {
        if (received.length > MAX_PROOF_BYTES) finish({ kind: "unproven", why: "an answer too large for the challenge's" });
        return;
      }
      if (answer === null || answer.status !== 200)
        return finish({ kind: "unproven", why: answer === null ? "an answer that is not HTTP" : `HTTP ${answer.status}` });
      const health = healthOf(answer.body);
      if (health === null || !provesToken(health.proof, target.token, challenge)) return finish({ kind: "unproven", why: "no proof of the secret" });
      if (health.pid !== target.pid || health.port !== target.port)
        return finish({ kind: "unproven", why: `the proof of pid ${health.pid}, port ${health.port}` });
      if (health.version !== version) return finish({ kind: "other" });
      received = answer.rest;
      phase = "running";
      socket.write(
        `POST /run HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${target.token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      arm(FORWARD_SILENCE_MS, () => ({ kind: "lost", taken, silent: true }));
    };

    const answered = (): void => {
      // Any byte is a sign of life: the silence starts again.
      arm(FORWARD_SILENCE_MS, () => ({ kind: "lost", taken, silent: true }));
      for (;;) {
        const answer = takeResponse(received);
        if (answer === "incomplete") return;
        if (answer === null) return finish({ kind: "lost", taken, silent: false });
        if (answer.status >= 200) return finish({ kind: "answer", status: answer.status, body: answer.body });
        // An interim answer: "102 Processing", the server's heartbeat, sent once it judges the run.
        if (answer.status === 102) taken = true;
        received = answer.rest;
      }
    };

    socket.on("data", (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      if (phase === "proving") proved();
      else if (phase === "running") answered();
    });
    socket.once("error", () => undefined);
    socket.once("close", () => {
      if (phase === "connecting") finish({ kind: "unreached" });
      else if (phase === "proving") finish({ kind: "unproven", why: "the connection closed before an answer" });
      else finish({ kind: "lost", taken, silent: false });
    });
  });
}

/** One HTTP/1.1 answer at the start of `raw`: its status, body (by Content-Length; none for 1xx) and what follows. */
export function takeResponse(raw: Buffer): { readonly status: number; readonly body: string; readonly rest: Buffer } | "incomplete" | null {
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) return raw.length > 0 && !"HTTP/1.".startsWith(raw.subarray(0, 7).toString("latin1")) ? null : "incomplete";
  const head = raw.subarray(0, end).toString("latin1");
  const status = /^HTTP\/1\.[01] (\d{3})(?: |\r|$)/.exec(head);
  if (status === null) return null;
  const code = Number(status[1]);
  if (code < 200) return { status: code, body: "", rest: raw.subarray(end + 4) };
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length === null) return null;
  const bodyEnd = end + 4 + Number(length[1]);
  if (raw.length < bodyEnd) return "incomplete";
  return { status: code, body: raw.subarray(end + 4, bodyEnd).toString("utf8"), rest: raw.subarray(bodyEnd) };
}

/** The fields of a /health answer the client checks (server/schemas.ts's HealthAnswerSchema, by hand: no zod here). */
function healthOf(body: string): { readonly pid: unknown; readonly port: unknown; readonly version: unknown; readonly proof: string } | null {
  try {
    const h = JSON.parse(body) as Record<string, unknown>;
    return h !== null && typeof h === "object" && h.service === "qhooks serve" && typeof h.proof === "string"
      ? { pid: h.pid, port: h.port, version: h.version, proof: h.proof }
      : null;
  } catch {
    return null;
  }
}
