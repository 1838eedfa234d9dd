import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { MAX_ENV_FILE_BYTES } from "../../src/handlers/envFile.js";
import { runHostile } from "../support/hostileCli.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** Issue 21 items 5 and 18: what a SessionStart hook can do to its $CLAUDE_ENV_FILE, through the real CLI. */
describe("handlers: a hostile $CLAUDE_ENV_FILE", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  /** Runs SessionStart with one hook; the hook first notes where its $CLAUDE_ENV_FILE is. */
  async function sessionStart(body: string) {
    const notePath = join(sb.root, "envfile-path");
    sb.userSettings({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: `echo "$CLAUDE_ENV_FILE" > '${notePath}'; ${body}` }] }] } });
    // A coarse bound: the run takes well under a second; without the fix it never ends.
    const r = await runHostile(sb, ["run", "SessionStart", "--no-log"], { stdin: JSON.stringify(payloadFor("SessionStart")), deadlineMs: 20_000 });
    const envDir = dirname(readFileSync(notePath, "utf8").trim());
    const dirLeft = existsSync(envDir);
    rmSync(envDir, { recursive: true, force: true });
    return { ...r, outcome: r.stdout.trim() ? (JSON.parse(r.stdout) as Json) : null, dirLeft };
  }

  it("a hook that replaces it with a FIFO: the run ends at once with a warning, no variable set, its temp folder removed", async () => {
    const r = await sessionStart(`rm "$CLAUDE_ENV_FILE" && mkfifo "$CLAUDE_ENV_FILE"`);
    expect(r.hung, "qhooks run hung on the FIFO").to.equal(false);
    expect(r.code).to.equal(0);
    expect(r.outcome!.env).to.deep.equal({});
    expect(r.outcome!.warnings).to.deep.equal(["$CLAUDE_ENV_FILE was replaced by a FIFO, not a regular file: not read, no variable set"]);
    expect(r.dirLeft, "the temp folder of $CLAUDE_ENV_FILE is left behind").to.equal(false);
  });

  it("a line cut by the size limit is not set (one warning); whole lines before it are; a cut on a line's end drops nothing", async () => {
    const filler = join(sb.root, "filler");
    // Line 1 whole, line 2 crosses the limit: without the fix BIG was set to its first ~64 KiB.
    sb.file("filler", `export A=1\nexport BIG=${"x".repeat(MAX_ENV_FILE_BYTES)}\nexport AFTER=1\n`);
    const cut = await sessionStart(`cat '${filler}' >> "$CLAUDE_ENV_FILE"`);
    expect(cut.code).to.equal(0);
    expect(cut.outcome!.env).to.deep.equal({ A: "1" });
    expect(cut.outcome!.warnings).to.deep.equal([
      `$CLAUDE_ENV_FILE line 2: cut by the ${MAX_ENV_FILE_BYTES}-byte limit, not set`,
      `$CLAUDE_ENV_FILE: more than ${MAX_ENV_FILE_BYTES} bytes; the rest is ignored`,
    ]);

    // The limit falls right after a newline: every line read is whole.
    const first = "export WHOLE=";
    sb.file("filler", `${first}${"y".repeat(MAX_ENV_FILE_BYTES - first.length - 1)}\nexport LATE=1\n`);
    const exact = await sessionStart(`cat '${filler}' >> "$CLAUDE_ENV_FILE"`);
    expect(Object.keys(exact.outcome!.env as Json)).to.deep.equal(["WHOLE"]);
    expect(exact.outcome!.warnings).to.deep.equal([`$CLAUDE_ENV_FILE: more than ${MAX_ENV_FILE_BYTES} bytes; the rest is ignored`]);
  });
});
