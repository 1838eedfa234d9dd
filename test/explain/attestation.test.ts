import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { ExplanationSchema, SessionStartSchema } from "../../src/schema/explanation.js";
import { sessionStartOf, type SessionStartLog } from "../../src/explain/sessionStart.js";

/**
 * The log keeps each configuration's load attestation (configured, loaded, each skipped entry with why) when an
 * entry did not load; `qhooks explain` shows it, and counts it from the logged hooks sections when all loaded.
 */
describe("explain: the load attestation kept in the log", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const guard = (name: string, extra: Record<string, unknown> = {}) => ({ type: "command", command: `echo ${name} >&2; exit 2`, name, ...extra });

  it("an entry switched off: the log keeps the attestation, explain shows it in text and JSON", async () => {
    sb.userSettings({ qhooks: { disabled: ["noisy"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("guard"), guard("noisy")] }] } });
    sb.projectSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command" }] }] } });
    const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"));
    const seq = String(r.outcome?.seq);
    const shown = JSON.parse((await sb.run(["show", seq, "--json"])).stdout) as { snapshot: { attestation?: { configured: number; loaded: number } } };
    expect(shown.snapshot.attestation).to.include({ configured: 3, loaded: 1 });

    const text = await sb.run(["explain", seq]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.include("loaded: 1 of 3 hooks configured");
    expect(text.stdout).to.include(
      "skipped ~/.qoder-cn/settings.json hooks.PreToolUse[0].hooks[1]: switched off: qhooks.disabled in ~/.qoder-cn/settings.json",
    );
    expect(text.stdout).to.match(/skipped \.qoder\/settings\.json hooks\.PreToolUse\[0\]\.hooks\[0\]: .*command/);
    const json = JSON.parse((await sb.run(["explain", seq, "--json"])).stdout) as { attestation: { configured: number; loaded: number; skipped: unknown[] } };
    expect(json.attestation.configured).to.equal(3);
    expect(json.attestation.skipped).to.have.length(2);
  });

  it("every entry loaded: the record stays as it was (no attestation kept), and explain counts the logged sections", async () => {
    sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("a"), guard("b")] }] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    const seq = String(r.outcome?.seq);
    const shown = JSON.parse((await sb.run(["show", seq, "--json"])).stdout) as { snapshot: Record<string, unknown> };
    expect(shown.snapshot).to.not.have.property("attestation");
    const text = await sb.run(["explain", seq]);
    expect(text.stdout).to.include("loaded: 2 of 2 hooks configured");
    expect(text.stdout).to.not.include("  skipped ");
  });

  it("an unlogged event (explain EVENT --payload): the attestation of the files as they are now", async () => {
    sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("a"), { type: "command", timeout: "x" }] }] } });
    const payload = sb.file("payload.json", payloadFor("PreToolUse"));
    const r = await sb.run(["explain", "PreToolUse", "--payload", payload]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include("loaded: 1 of 2 hooks configured");
  });

  it("the report shows each session's attestation: loaded of configured, the skipped entries in the cell's title", async () => {
    sb.userSettings({ qhooks: { disabled: ["noisy"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("guard"), guard("noisy")] }] } });
    await sb.runEvent("SessionStart", payloadFor("SessionStart", { session_id: "s-one" }));
    const page = await sb.run(["report", "--output", "-"]);
    expect(page.code, page.stderr).to.equal(0);
    expect(page.stdout).to.include('<th class="n">HOOKS LOADED</th>');
    expect(page.stdout).to.match(
      /title="skipped ~\/\.qoder-cn\/settings\.json hooks\.PreToolUse\[0\]\.hooks\[1\]: switched off: qhooks\.disabled in [^"]*">1 of 2 <span class="muted">\(1 skipped\)/,
    );
  });

  it("loggedAttestation and attestSessions: the kept attestation, else one counted from the logged sections", async () => {
    const { loggedAttestation } = await import("../../src/explain/loggedAttestation.js");
    const { attestSessions } = await import("../../src/report/sessionAttestations.js");
    const kept = { configured: 5, loaded: 4, skipped: [{ level: "user", file: "f", path: "p", why: "w" }], unreadFiles: [] };
    const document = [{ level: "user", file: "/h/s.json", hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }];
    expect(loggedAttestation({ hash: "h", document, warnings: [], attestation: kept })).to.equal(kept);
    expect(loggedAttestation({ hash: "h", document, warnings: [] })).to.include({ configured: 1, loaded: 1 });
    const session = {
      sessionId: "s",
      projectDir: "/p",
      events: 1,
      blocked: 0,
      firstTs: "a",
      lastTs: "b",
      firstSeq: 7,
      attestation: null,
      origin: { machine: null, user: null, writer: null, seq: 7, host: null },
    };
    const none = { ...session, sessionId: "t", firstSeq: 8 };
    await attestSessions({ event: async (seq) => (seq === 7 ? { snapshot: { hash: "h", document, warnings: [], attestation: kept } } : null) }, [
      session,
      none,
    ]);
    expect(session.attestation).to.equal(kept);
    expect(none.attestation).to.equal(null);
  });

  describe("the session's start (what loaded at its SessionStart)", () => {
    const explain = async (seq: number) => {
      const text = await sb.run(["explain", String(seq)]);
      expect(text.code, text.stderr).to.equal(0);
      const json = await sb.run(["explain", String(seq), "--json"]);
      expect(json.code, json.stderr).to.equal(0);
      return { text: text.stdout, json: ExplanationSchema.parse(JSON.parse(json.stdout)) };
    };

    it("settings changed since the start: explain shows what loaded then, and says the configuration is not this event's", async () => {
      sb.userSettings({ qhooks: { disabled: ["noisy"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("guard"), guard("noisy")] }] } });
      const start = await sb.runEvent("SessionStart", payloadFor("SessionStart", { session_id: "s1", source: "startup" }));
      sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("guard"), guard("noisy")] }] } });
      const tool = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s1" }));
      const { text, json } = await explain(tool.outcome!.seq as number);
      const s = SessionStartSchema.parse(json.sessionStart);
      expect(s).to.include({ seq: start.outcome!.seq, source: "startup", sameConfig: false });
      expect(s.attestation).to.include({ configured: 2, loaded: 1 });
      expect(json.attestation).to.include({ configured: 2, loaded: 2 });
      expect(text).to.match(new RegExp(`session start: #${start.outcome!.seq} .* \\(startup\\), configuration [0-9a-f]{12}, changed before this event`));
      expect(text).to.include("  loaded: 1 of 2 hooks configured");
      expect(text).to.include("    skipped ~/.qoder-cn/settings.json hooks.PreToolUse[0].hooks[1]: switched off: qhooks.disabled in ~/.qoder-cn/settings.json");
    });

    it("the same configuration: said in one line; the SessionStart explained is its own start", async () => {
      sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("guard")] }] } });
      const start = await sb.runEvent("SessionStart", payloadFor("SessionStart", { session_id: "s2", source: "startup" }));
      const tool = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s2" }));
      const later = await explain(tool.outcome!.seq as number);
      expect(later.json.sessionStart).to.include({ seq: start.outcome!.seq, sameConfig: true });
      expect(later.text).to.match(/session start: #\d+ .* \(startup\), the same configuration as this event\n/);
      const itself = await explain(start.outcome!.seq as number);
      expect(itself.text).to.include("session start: this event (startup), the same configuration as this event");
    });

    it("a session restarted after the event: the start before it counts; a session never started in the log: null, and said", async () => {
      sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard("guard")] }] } });
      const first = await sb.runEvent("SessionStart", payloadFor("SessionStart", { session_id: "s3", source: "startup" }));
      const tool = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s3" }));
      await sb.runEvent("SessionStart", payloadFor("SessionStart", { session_id: "s3", source: "resume" }));
      expect((await explain(tool.outcome!.seq as number)).json.sessionStart).to.include({ seq: first.outcome!.seq, source: "startup" });
      const orphan = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "no-start" }));
      const none = await explain(orphan.outcome!.seq as number);
      expect(none.json.sessionStart).to.equal(null);
      expect(none.text).to.include("session start: no SessionStart of this session in the log before this event");
    });

    it("sessionStartOf: null for an event of no session, or when the log gives no start", async () => {
      const empty: SessionStartLog = { events: async function* () {}, event: async () => null };
      expect(await sessionStartOf(empty, { seq: 5, sessionId: null, snapshot: null, outcome: null })).to.equal(null);
      expect(await sessionStartOf(empty, { seq: 5, sessionId: "s", snapshot: null, outcome: null })).to.equal(null);
      const gone: SessionStartLog = {
        events: async function* () {
          yield { seq: 9, ts: "t", matchValue: "startup" };
          yield { seq: 4, ts: "t", matchValue: "startup" };
        },
        event: async () => null,
      };
      expect(await sessionStartOf(gone, { seq: 5, sessionId: "s", snapshot: null, outcome: null })).to.equal(null);
    });
  });
});
