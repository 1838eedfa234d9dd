import { expect } from "chai";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), or the one QHOOKS_CHROMIUM names. */
const CHROMIUM = process.env.QHOOKS_CHROMIUM ?? "/usr/bin/chromium";
/** Screenshots kept for people to look at after a run (CI keeps the folder). */
const ARTIFACTS = join(REPO_ROOT, "artifacts", "browser");

/** The computed background colour of an element, in the page (no DOM types here: the tests run in Node). */
const backgroundOf = (el: object): string =>
  (globalThis as unknown as { getComputedStyle(e: object): { backgroundColor: string } }).getComputedStyle(el).backgroundColor;

/** A command whose reason, session id and payload would run script if the page took them as HTML. */
const HOSTILE_COMMAND = `rm -rf "</script><script>window.__pwned = 1</script><img src=x onerror='window.__pwned = 2'>"`;
const HOSTILE_SESSION = `evil"><svg onload="window.__pwned = 3">`;

describe("report: the page in a real browser (headless Chromium)", function () {
  this.timeout(180_000);
  let sb: Sandbox;
  let browser: Browser;
  let page: Page;
  let rmSeq: number;
  let hostileSeq: number;
  const problems: string[] = [];

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set QHOOKS_CHROMIUM`);
    sb = new Sandbox();
    // The demo's session through the demo's hooks, as `npm run demo` runs it.
    const settings = join(REPO_ROOT, "demo", "settings.json");
    const env = { QODERCN_PROJECT_DIR: REPO_ROOT };
    const lines = readFileSync(join(REPO_ROOT, "demo", "session.jsonl"), "utf8")
      .trim()
      .split("\n");
    const judge = async (payload: Record<string, unknown>) => {
      const r = await sb.run(["--project-dir", REPO_ROOT, "run", String(payload.hook_event_name), "--settings", settings], {
        input: JSON.stringify(payload),
        env,
      });
      expect(r.code, r.stderr).to.be.oneOf([0, 2]);
      return JSON.parse(r.stdout) as { seq: number; blocked: boolean };
    };
    for (const line of lines) {
      const payload = JSON.parse(line) as { tool_input?: { command?: string } };
      const outcome = await judge(payload);
      if (payload.tool_input?.command === "rm -rf /tmp/build") rmSeq = outcome.seq;
    }
    const hostile = await judge({
      session_id: HOSTILE_SESSION,
      hook_event_name: "PreToolUse",
      cwd: "/tmp",
      tool_name: "Bash",
      tool_input: { command: HOSTILE_COMMAND },
    });
    expect(hostile.blocked).to.equal(true);
    hostileSeq = hostile.seq;

    const file = join(sb.root, "report.html");
    const r = await sb.run(["report", "-o", file]);
    expect(r.code, r.stderr).to.equal(0);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("dialog", (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on("request", (req) => {
      if (req.url() !== pathToFileURL(file).href && !req.url().startsWith(`${pathToFileURL(file).href}#`)) problems.push(`request: ${req.url()}`);
    });
    await page.goto(pathToFileURL(file).href);
  });

  after(async () => {
    await browser?.close();
    await sb?.cleanup();
  });

  it("loads with no error, no request beyond the file, and no script but its own", async () => {
    expect(problems).to.deep.equal([]);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).to.equal(undefined);
    expect(await page.locator("h1").textContent()).to.equal("qhooks report");
    expect(await page.locator("#totals").innerText()).to.match(/15\s+matching events/);
    // The script ran: it filled in the count.
    expect(await page.locator("#f-count").textContent()).to.equal("15 of 15 drawn events shown");
  });

  it("the blocked rm -rf of the demo is listed, with its reason readable, and opens in the timeline", async () => {
    const row = page.locator("#blocked tr", { hasText: "rm -rf /tmp/build" });
    await row.waitFor({ state: "visible" });
    expect(await row.locator("td.reason").innerText()).to.equal("Dangerous command blocked: rm -rf /tmp/build");
    expect(await row.innerText()).to.include("block-rm");

    const event = page.locator(`#e${rmSeq}`);
    const badge = event.locator("summary .dec");
    expect(await badge.innerText()).to.equal("DENY");
    expect(await badge.evaluate(backgroundOf)).to.equal("rgb(211, 58, 58)");
    // What the agent tried, next to the tool, and whole on hover.
    expect(await event.locator("summary .tried").innerText()).to.equal("rm -rf /tmp/build");
    expect(await event.locator("summary .tried").evaluate((el) => el.parentElement?.getAttribute("title"))).to.equal("Bash: rm -rf /tmp/build");
    // Hooks as bars by duration, each with its outcome and reason on hover.
    const bar = event.locator(".hb", { hasText: "block-rm" });
    expect(await bar.getAttribute("title")).to.match(/^block-rm: block, [\d.]+ ms — Dangerous command blocked: rm -rf \/tmp\/build$/);
    expect(await bar.locator(".bar").evaluate(backgroundOf)).to.equal("rgb(211, 58, 58)");
    const width = await bar.locator(".bar").evaluate((el) => el.getBoundingClientRect().width);
    expect(width).to.be.greaterThan(2);

    // Following the link opens the event: its reason, its hooks' commands and output.
    expect(await event.locator(".body").isVisible()).to.equal(false);
    await row.locator(`a[href="#e${rmSeq}"]`).click();
    await event.locator(".body").waitFor({ state: "visible" });
    const body = await event.locator(".body").innerText();
    expect(body).to.include("Reason: Dangerous command blocked: rm -rf /tmp/build");
    expect(body).to.include("Tried: rm -rf /tmp/build");
    expect(body).to.include("$QODERCN_PROJECT_DIR/demo/hooks/block-rm.sh");
    expect(body).to.match(/exit 2, [\d.]+ ms/);
    expect(body).to.include('"command": "rm -rf /tmp/build"');
    // Kept for people to look at: the whole page, the event open (from the top, so the sticky filters are there).
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await page.screenshot({ path: join(ARTIFACTS, "report.png"), fullPage: true });
  });

  it("strings from payloads and hooks show as text, never as markup", async () => {
    const row = page.locator("#blocked tr", { hasText: "window.__pwned = 1" });
    expect(await row.locator("td.reason").innerText()).to.equal(`Dangerous command blocked: ${HOSTILE_COMMAND}`);
    expect(await page.locator(`#e${hostileSeq} summary .reason-line`).textContent()).to.equal(`Dangerous command blocked: ${HOSTILE_COMMAND}`);
    expect(await page.locator("#sessions").innerText()).to.include(HOSTILE_SESSION);
    expect(await page.locator("img, svg, iframe, object, embed").count()).to.equal(0);
    expect(await page.locator("script").count()).to.equal(1);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).to.equal(undefined);
  });

  it("filters by event, by hook and to blocked events", async () => {
    const shownEvents = () => page.locator("details.ev:visible").evaluateAll((els) => els.map((el) => el.getAttribute("data-event")));
    await page.selectOption("#f-event", "Stop");
    expect(await shownEvents()).to.deep.equal(["Stop", "Stop"]);
    expect(await page.locator("#f-count").textContent()).to.equal("2 of 15 drawn events shown");
    expect(await page.locator("#blocked tbody tr:visible").count()).to.equal(1);
    // The hostile session has no Stop: its section is hidden.
    expect(await page.locator("section.session:visible").count()).to.equal(1);

    await page.selectOption("#f-event", "");
    await page.selectOption("#f-hook", "block-rm");
    const withBlockRm = await shownEvents();
    expect(withBlockRm.length).to.be.greaterThan(1);
    expect(new Set(withBlockRm)).to.deep.equal(new Set(["PreToolUse"]));

    await page.check("#f-blocked");
    expect(await page.locator("details.ev:visible").count()).to.equal(2);
    expect(await page.locator("details.ev:visible summary .dec").allInnerTexts()).to.deep.equal(["DENY", "DENY"]);

    await page.uncheck("#f-blocked");
    await page.selectOption("#f-hook", "");
    expect(await page.locator("#f-count").textContent()).to.equal("15 of 15 drawn events shown");
  });

  it("per-hook statistics and counts by event are drawn as charts", async () => {
    const blockRm = page.locator('#hook-stats tr[data-hook-row="block-rm"]');
    const cells = await blockRm.locator("td").allInnerTexts();
    expect(cells[0]).to.equal("block-rm");
    expect(Number(cells[2])).to.be.greaterThan(1);
    expect(Number(cells[3])).to.equal(2);
    const segments = await blockRm
      .locator(".stack")
      .first()
      .locator("span")
      .evaluateAll((els) => els.map((el) => [el.className, el.getBoundingClientRect().width > 0]));
    expect(segments).to.deep.include(["o-block", true]);
    expect(await page.locator("#event-stats tr", { hasText: "PreToolUse" }).count()).to.equal(1);
    expect(await page.locator("#activity .col").count()).to.be.greaterThan(1);
    expect(problems).to.deep.equal([]);
  });

  it("the budget per hook is a table of each hook and level, its costliest turn drawn as a bar", async () => {
    const rows = page.locator("#hook-budget tbody tr");
    expect(await rows.count()).to.be.greaterThan(0);
    const blockRm = page.locator('#hook-budget tr[data-budget-row="block-rm"]');
    expect(await blockRm.count()).to.equal(1);
    const cells = await blockRm.locator("td").allInnerTexts();
    expect(cells[0]).to.equal("block-rm");
    expect(Number(cells[2])).to.be.at.least(1);
    const widths = await rows.locator(".stack span").evaluateAll((els) => els.map((el) => el.getBoundingClientRect().width));
    expect(Math.max(...widths)).to.be.greaterThan(0);
    expect(problems).to.deep.equal([]);
  });
});
