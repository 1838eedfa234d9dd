import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { HealthAnswerSchema, type HealthAnswer } from "./schemas.js";
import { LOOPBACK } from "./httpTransport.js";
import { provesToken } from "./token.js";

/**
 * Asks who listens on a loopback port, with a fresh challenge instead of the secret: the answer counts only when it
 * proves the listener holds the secret and names the pid expected, so that a process squatting the port is never
 * taken for qhooks (and never learns the secret). null: nothing there, or not our server.
 */
export function probeServer(port: number, token: string, expectedPid: number | null, timeoutMs = 2000): Promise<HealthAnswer | null> {
  const challenge = randomBytes(24).toString("base64url");
  return new Promise((resolve) => {
    const req = request(
      { host: LOOPBACK, port, path: "/health", method: "GET", headers: { Host: `${LOOPBACK}:${port}`, "X-Qhooks-Challenge": challenge }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > 4096) req.destroy();
          else chunks.push(c);
        });
        res.on("end", () => {
          try {
            const parsed = HealthAnswerSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
            if (!parsed.success || res.statusCode !== 200) return resolve(null);
            const health = parsed.data;
            const proven = health.proof !== undefined && provesToken(health.proof, token, challenge);
            resolve(proven && (expectedPid === null || health.pid === expectedPid) ? health : null);
          } catch {
            resolve(null);
          }
        });
        res.on("error", () => resolve(null));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(null));
    req.end();
  });
}
