import { expect } from "chai";
import { mintTicket, redeemTicket, TICKET_LIFETIME_MS } from "../../src/server/liveTicket.js";
import { Sandbox } from "../support/sandbox.js";

describe("the live view's one-time tickets", () => {
  const token = "a".repeat(43);
  const now = Date.parse("2026-12-05T07:00:00.000Z");

  it("a ticket works once, within its lifetime, for the secret it was made with; it never holds the secret", () => {
    const used = new Map<string, number>();
    const ticket = mintTicket(token, now);
    expect(ticket).not.to.include(token);
    expect(redeemTicket("b".repeat(43), ticket, used, now)).to.equal("not made with this server's secret");
    expect(redeemTicket(token, ticket, used, now + TICKET_LIFETIME_MS + 1)).to.match(/^expired/);
    expect(redeemTicket(token, ticket, used, now + 1000)).to.equal(null);
    expect(redeemTicket(token, ticket, used, now + 2000)).to.match(/^already used/);
    expect(redeemTicket(token, mintTicket(token, now), used, now)).to.equal(null);
    expect(used.size).to.equal(2);
    // Nonces of expired tickets are forgotten: the expiry refuses those tickets already.
    expect(redeemTicket(token, ticket, used, now + TICKET_LIFETIME_MS + 1)).to.match(/^expired/);
    expect(used.size).to.equal(0);
  });

  it("a changed expiry, nonce or mark is refused", () => {
    const [expiry, nonce, mac] = mintTicket(token, now).split(".");
    const used = new Map<string, number>();
    expect(redeemTicket(token, `${Number(expiry) + 1}.${nonce}.${mac}`, used, now)).to.equal("not made with this server's secret");
    expect(redeemTicket(token, `${expiry}.${"A".repeat(22)}.${mac}`, used, now)).to.equal("not made with this server's secret");
    expect(redeemTicket(token, "nonsense", used, now)).to.equal("not a ticket");
    expect(used.size).to.equal(0);
  });

  it("qhooks live without a running server says how to start one, in one line", async () => {
    const sb = new Sandbox();
    try {
      const r = await sb.run(["live"]);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal("");
      expect(r.stderr.trim().split("\n")).to.deep.equal(["qhooks: no qhooks server runs; start one with qhooks serve --ensure, then run qhooks live again"]);
    } finally {
      await sb.cleanup();
    }
  });
});
