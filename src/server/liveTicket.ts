import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a live-view URL can be opened, in milliseconds: it is meant to be clicked at once. */
export const TICKET_LIFETIME_MS = 120_000;

const macOf = (token: string, body: string): string => createHmac("sha256", token).update(`qhooks live ticket\n${body}`).digest("base64url");

/**
 * A one-time ticket for the live view's URL, made by whoever holds the server's secret (`qhooks live`), checked by
 * the server without a round trip: `<expiry>.<nonce>.<mac>`. The secret itself never enters a URL.
 */
export function mintTicket(token: string, now: number = Date.now()): string {
  const body = `${now + TICKET_LIFETIME_MS}.${randomBytes(16).toString("base64url")}`;
  return `${body}.${macOf(token, body)}`;
}

/**
 * Why a ticket is refused, or null when it is good. A good ticket's nonce is kept in `used` (with its expiry) so
 * that it works once; nonces whose tickets have expired are dropped, since the expiry refuses those anyway.
 */
export function redeemTicket(token: string, ticket: string, used: Map<string, number>, now: number = Date.now()): string | null {
  for (const [nonce, expiry] of used) if (expiry < now) used.delete(nonce);
  const m = /^(\d{1,16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(ticket);
  if (!m) return "not a ticket";
  const expected = Buffer.from(macOf(token, `${m[1]}.${m[2]}`));
  const given = Buffer.from(m[3]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "not made with this server's secret";
  if (Number(m[1]) < now) return "expired (a live-view URL is good for 2 minutes: run qhooks live again)";
  if (used.has(m[2]!)) return "already used (a live-view URL opens once: run qhooks live again)";
  used.set(m[2]!, Number(m[1]));
  return null;
}
