import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { group, Sandbox } from "../support/sandbox.js";
import { bearer, post, startServer, type ForegroundServer } from "../server/serveSupport.js";

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), or the one QHOOKS_CHROMIUM names. */
const CHROMIUM = process.env.QHOOKS_CHROMIUM ?? "/usr/bin/chromium";

/** A command and a session id that would run script if the page took them as HTML. */
const HOSTILE_COMMAND = `rm -rf "</script><script>window.__pwned = 1</script><img src=x onerror='window.__pwned = 2'>"`;
const HOSTILE_SESSION = `evil"><svg onload="window.__pwned = 3">`;

describe("qhooks serve: the live view in a real browser (headless Chromium)", function () {
  this.timeout(180_000);
  let sb: Sandbox;
  let server: ForegroundServer;
  let browser: Browser;

  const fire = (session: string, command: string) =>
    post(
      server.port,
      "/hook/claude",
      { session_id: session, transcript_path: "/tmp/t.jsonl", cwd: sb.project, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } },
      bearer(server.token),
    );
  const liveUrl = async (): Promise<string> => {
    const r = await sb.run(["live"]);
    expect(r.code, r.stderr).to.equal(0);
    return r.stdout.trim();
  };

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set QHOOKS_CHROMIUM`);
    sb = new Sandbox();
    const guard = sb.script("guard.sh", `grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0`);
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", guard)] } });
    server = await startServer(sb);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });

  after(async () => {
    await browser?.close();
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sb?.cleanup();
  });

  it("opens from the one-time URL (which then leaves the address bar) on the report, and adds a fired event without a reload, as text", async () => {
    expect((await fire("before", "ls")).status).to.equal(200);
    const url = await liveUrl();
    expect(url).to.match(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/live\\?ticket=`));
    expect(url, "the secret never enters a URL").not.to.include(server.token);
    const page = await browser.newPage();
    await page.goto(url);
    expect(page.url(), "the ticket is gone from the address bar").to.equal(`http://127.0.0.1:${server.port}/live`);
    await page.locator("#live-status", { hasText: "live" }).waitFor();
    // The report, as qhooks report draws it: its counts, the timeline with the event fired before, its sections.
    expect(await page.locator("h1").textContent()).to.equal("qhooks report");
    expect(await page.locator("#timeline details.ev", { hasText: "ls" }).count()).to.equal(1);
    expect(await page.locator("#timeline .session h3", { hasText: "before" }).count()).to.equal(1);
    expect(await page.locator("h2", { hasText: "Sessions" }).count()).to.equal(1);
    const totals = () => page.locator("#totals b").allTextContents();
    const [events, blocked] = (await totals()).map(Number);
    expect(blocked).to.equal(0);
    const errors: string[] = [];
    page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
    // A mark on this document: still there after the event, so the page was not loaded again.
    await page.evaluate(() => void ((globalThis as { __sameDocument?: boolean }).__sameDocument = true));

    const denied = await fire(HOSTILE_SESSION, HOSTILE_COMMAND);
    expect(denied.status).to.equal(200);
    const row = page.locator("#live-events .live-ev", { hasText: "DENY" });
    await row.waitFor();
    expect(await row.locator(".session").textContent()).to.equal(HOSTILE_SESSION);
    expect(await row.locator(".tried").textContent()).to.include("</script><script>window.__pwned = 1</script>");
    expect(await row.locator(".reason").textContent()).to.include("no rm -rf here");
    expect((await totals()).slice(0, 2), "the counts of events and blocked ones went up").to.deep.equal([String(events! + 1), "1"]);
    expect(await fire("after", "ls")).to.have.property("status", 200);
    await page.locator("#live-events .live-ev", { hasText: "after" }).waitFor();
    expect(await page.locator("#live-events .live-ev").count(), "each event once").to.equal(2);
    expect(errors, "no script error (a blocked inline script or stream reports one)").to.deep.equal([]);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned ?? null), "no field ran as script").to.equal(null);
    expect(await page.locator("img, svg").count(), "no field became an element").to.equal(0);
    expect(await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument ?? false), "no reload").to.equal(true);
    await page.close();
  });

  it("a URL opens once; without its cookie, or from another site, nothing of the log is given", async () => {
    const url = await liveUrl();
    const first = await browser.newContext();
    const opened = await (await first.newPage()).goto(url);
    expect(opened?.status()).to.equal(200);
    const second = await browser.newContext();
    const again = await (await second.newPage()).goto(url);
    expect(again?.status()).to.equal(401);
    expect(await again?.text()).not.to.include("before");
    const stranger = await (await second.newPage()).goto(`http://127.0.0.1:${server.port}/live/events`);
    expect(stranger?.status()).to.equal(401);
    // What a page of another site would send: refused before any cookie is looked at.
    const crossSite = await post(server.port, "/live/events", "", { Origin: "http://evil.example", "Sec-Fetch-Site": "cross-site" }, "GET");
    expect(crossSite.status).to.equal(403);
    expect(crossSite.headers["access-control-allow-origin"]).to.equal(undefined);
    const rebound = await post(server.port, "/live", "", { Host: `localhost:${server.port}` }, "GET");
    expect(rebound.status).to.equal(421);
    await first.close();
    await second.close();
  });
});
