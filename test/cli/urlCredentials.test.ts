import { expect } from "chai";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { deadPort, loopbackServer } from "../handlers/loopback.js";

type Json = Record<string, unknown>;

/** Every path under a folder, relative to it (file and folder names are where a password must not end up either). */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).map((p) => relative(dir, join(dir, p)));
}

/** The bytes of the SQLite log and its WAL, as `grep -a` would read them. */
const logBytes = (db: string): string => ["", "-wal"].map((s) => (existsSync(db + s) ? readFileSync(db + s).toString("latin1") : "")).join("");

describe("cli: a URL's credentials never reach the log, a file name, the page or the terminal", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  describe("a PostgreSQL log named by a URL with a password", () => {
    let db: TestDatabase;
    before(async () => (db = await createTestDatabase()));
    after(() => db.drop());
    const PASSWORD = "pw-Pg-4b1d9e";
    // Trust authentication: the server never asks for the password, so any password connects.
    const withPassword = () => {
      const u = new URL(db.url);
      u.password = PASSWORD;
      return u.toString();
    };

    it("once markers go to the local data folder (~/.qhooks/once), not to a folder named after the URL in the working directory", async () => {
      const count = join(sb.root, "once-count");
      sb.userSettings({ hooks: { Stop: [{ hooks: [{ type: "command", command: `echo x >> '${count}'`, once: true }] }] } });
      const env = { QHOOKS_DB: withPassword() };
      const a = await sb.runEvent("Stop", payloadFor("Stop"), [], env);
      const b = await sb.runEvent("Stop", payloadFor("Stop"), [], env);
      expect([a.code, b.code], a.stderr + b.stderr).to.deep.equal([0, 0]);
      expect((b.outcome!.skipped as Json[]).map((s) => s.reason)).to.deep.equal(["once"]);
      expect(readFileSync(count, "utf8")).to.equal("x\n");
      expect(readdirSync(join(sb.home, ".qhooks", "once"))).to.have.length(1);
      expect(readdirSync(sb.project)).to.deep.equal([]);
      expect(walk(sb.root).filter((p) => p.includes(PASSWORD) || p.includes("postgres"))).to.deep.equal([]);
    });

    it("the report page and what report prints show the URL with *** for the password", async () => {
      await sb.runEvent("Stop", payloadFor("Stop"), [], { QHOOKS_DB: withPassword() });
      const page = await sb.run(["report", "-o", "-"], { env: { QHOOKS_DB: withPassword() } });
      expect(page.code, page.stderr).to.equal(0);
      expect(page.stdout).to.include(`:***@127.0.0.1:5432/${db.name}`);
      expect(page.stdout + page.stderr).to.not.include(PASSWORD);
      const file = await sb.run(["report", "-o", "r.html"], { env: { QHOOKS_DB: withPassword() } });
      expect(file.code, file.stderr).to.equal(0);
      expect(file.stdout + file.stderr + readFileSync(join(sb.project, "r.html"), "utf8")).to.not.include(PASSWORD);
    });
  });

  it("http hooks' URLs, QHOOKS_EVALUATOR_URL and URLs in a payload: the outcome, the terminal, the log file and every audit command", async () => {
    const HTTP = "pw-Http-77c1a0";
    const DEAD = "pw-Dead-0e93f2";
    const EVAL = "pw-Eval-51a6b7";
    const PAYLOAD = "pw-Payload-3d5c";
    const server = await loopbackServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    const dead = await deadPort();
    try {
      sb.userSettings({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "http", url: `http://alice:${HTTP}@127.0.0.1:${server.port}/hook` },
                { type: "http", url: `http://bob:${DEAD}@127.0.0.1:${dead}/hook` },
                { type: "prompt", prompt: "Judge: $ARGUMENTS" },
              ],
            },
          ],
        },
      });
      const env = { QHOOKS_EVALUATOR_URL: `http://carol:${EVAL}@127.0.0.1:${dead}/v1` };
      const payload = { ...payloadFor("PreToolUse"), tool_input: { command: `git clone https://dave:${PAYLOAD}@example.com/r.git` } };
      const r = await sb.runEvent("PreToolUse", payload, [], env);
      expect(r.code, r.stderr).to.equal(0);
      expect(server.received).to.have.length(1);
      const secrets = [HTTP, DEAD, EVAL];
      const shown = r.stdout + r.stderr;
      for (const s of secrets) expect(shown, s).to.not.include(s);
      const hooks = r.outcome!.hooks as Json[];
      expect(hooks.map((h) => h.command)).to.deep.equal([
        `POST http://alice:***@127.0.0.1:${server.port}/hook`,
        `POST http://bob:***@127.0.0.1:${dead}/hook`,
        "prompt: Judge: $ARGUMENTS",
      ]);
      expect(hooks[1]!.error).to.include(`could not reach http://bob:***@127.0.0.1:${dead}/hook`);
      expect(hooks[2]!.error).to.include(`evaluator http://carol:***@127.0.0.1:${dead}/v1/chat/completions unreachable`);

      const bytes = logBytes(sb.db);
      expect(bytes).to.include("[REDACTED:url-password:");
      for (const s of [...secrets, PAYLOAD]) expect(bytes, s).to.not.include(s);
      const { seq } = (JSON.parse((await sb.run(["log", "--json"])).stdout) as { seq: number }[])[0]!;
      for (const args of [["log", "--json"], ["show", String(seq), "--json"], ["explain", String(seq)], ["hooks"], ["report", "-o", "-"]]) {
        const a = await sb.run(args, { env });
        expect(a.code, `${args.join(" ")}: ${a.stderr}`).to.equal(0);
        for (const s of [...secrets, PAYLOAD]) expect(a.stdout + a.stderr, `${args.join(" ")} ${s}`).to.not.include(s);
      }
    } finally {
      await server.close();
    }
  });
});
