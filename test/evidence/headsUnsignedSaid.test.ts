import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { headsFileOf } from "../../src/store/signedHeads.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { sqlite3 } from "../store/storeHelpers.js";
import { bearer, post, startServer } from "../server/serveSupport.js";

type Json = Record<string, unknown>;

/**
 * A log whose key cannot sign its heads says so before the process exits, even when the append that was due to
 * sign is the process's last one (the signature runs after the append returns): on stderr, and with `--format hook`
 * in the host's answer (Claude Code: `systemMessage`). Real `qhooks` processes, real key files made unusable.
 */
describe("a head that cannot be signed is said before the process exits", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const keyFile = () => `${sb.db}.key`;
  /** Not a private key, though private to its owner. */
  const corruptKey = () => writeFileSync(keyFile(), "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", { mode: 0o600 });
  /** Not readable, even by root (the tests run as root in CI): a directory where the key file should be. */
  const unreadableKey = () => mkdirSync(keyFile(), { mode: 0o700 });

  /** One event through `qhooks run --format hook --dialect claude`, signing every record. */
  async function runHook(event: string, env: Record<string, string> = {}) {
    const r = await sb.run(["run", event, "--format", "hook", "--dialect", "claude"], {
      input: JSON.stringify(payloadFor(event, { session_id: "s1" })),
      env: { CLAUDE_PROJECT_DIR: sb.project, QHOOKS_SIGN_EVERY: "1", ...env },
    });
    const reply = r.stdout.trim().startsWith("{") ? (JSON.parse(r.stdout) as Json) : null;
    return { ...r, reply };
  }

  for (const [what, spoil, says] of [
    ["corrupt", corruptKey, /is not an Ed25519 private key/],
    ["unreadable", unreadableKey, /cannot read the log's key .*EISDIR/],
  ] as const) {
    it(`a ${what} key, the event's one append the last: one stderr line and one systemMessage line, the event logged`, async () => {
      spoil();
      // No hook: the event and its outcome are one append, the process's last; its head is signed after it returns.
      const r = await runHook("PreToolUse");
      expect(r.code, r.stderr).to.equal(0);
      const lines = r.stderr.split("\n").filter((l) => l.includes("heads are not signed"));
      expect(lines, r.stderr).to.have.length(1);
      expect(lines[0])
        .to.match(/^qhooks: warning: event log: the log's heads are not signed: /)
        .and.match(says);
      expect(r.reply, r.stdout).to.not.equal(null);
      expect(String(r.reply!.systemMessage))
        .to.match(/^qhooks: event log: the log's heads are not signed: /)
        .and.match(says);
      expect(sqlite3(sb.db, "SELECT count(*) FROM journal WHERE kind = 'event'").trim()).to.equal("1");
      expect(() => readFileSync(headsFileOf(sb.db))).to.throw(/ENOENT/);
    });
  }

  it("a hook's run between two appends: the arrival's head fails, said with the outcome, in the answer too; once a session", async () => {
    corruptKey();
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks: { PreToolUse: [group(undefined, "true")] } });
    const first = await runHook("PreToolUse");
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr.split("\n").filter((l) => l.includes("heads are not signed"))).to.have.length(1);
    expect(String(first.reply?.systemMessage)).to.include("the log's heads are not signed");
    // The next event of the session: stderr says it again (this process failed too), the answer does not repeat it.
    const second = await runHook("PreToolUse");
    expect(second.stderr).to.include("heads are not signed");
    expect(second.reply?.systemMessage ?? "").to.not.include("heads are not signed");
  });

  it("qhooks record: the warning on stderr, exit 0, the event recorded", async () => {
    corruptKey();
    const r = await sb.run(["record", "PreToolUse"], {
      input: JSON.stringify(payloadFor("PreToolUse", { session_id: "s1" })),
      env: { QHOOKS_SIGN_EVERY: "1" },
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/event log: the log's heads are not signed: .*is not an Ed25519 private key/);
    expect(sqlite3(sb.db, "SELECT count(*) FROM journal WHERE kind = 'event'").trim()).to.equal("1");
  });

  it("a library bus: the last dispatch's head fails, and warnings$ says so as the bus closes", async () => {
    corruptKey();
    const bus = sb.bus({ db: sb.db, env: sb.env({ QHOOKS_SIGN_EVERY: "1" }) });
    const said: string[] = [];
    bus.warnings$.subscribe((w) => said.push(w));
    await bus.dispatch({ hook_event_name: "PreToolUse", session_id: "s1", cwd: sb.project, ...payloadFor("PreToolUse") });
    await bus.close();
    expect(said.filter((w) => w.includes("heads are not signed"))).to.have.length(1);
    expect(said.join("\n")).to.match(/event log: the log's heads are not signed: .*is not an Ed25519 private key/);
  });

  it("qhooks serve: the head due at its last append fails, and the server says so as it stops", async () => {
    corruptKey();
    const server = await startServer(sb, ["--port", "0"], { QHOOKS_SIGN_EVERY: "1" });
    try {
      const res = await post(
        server.port,
        "/hook/claude",
        { hook_event_name: "PreToolUse", session_id: "s1", cwd: sb.project, ...payloadFor("PreToolUse") },
        bearer(server.token),
      );
      expect(res.status).to.equal(200);
    } finally {
      server.child.kill("SIGTERM");
    }
    await server.exited;
    expect(
      server
        .stderr()
        .split("\n")
        .filter((l) => l.includes("heads are not signed")),
    ).to.have.length(1);
    expect(server.stderr()).to.match(/qhooks: warning: event log: the log's heads are not signed: .*is not an Ed25519 private key/);
  });

  it("a usable key: nothing said, the head signed", async () => {
    const r = await runHook("PreToolUse");
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal("");
    expect(readFileSync(headsFileOf(sb.db), "utf8").trim().split("\n")).to.have.length(1);
  });
});
