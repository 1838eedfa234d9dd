import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";

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
});
