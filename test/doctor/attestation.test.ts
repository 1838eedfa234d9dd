import { expect } from "chai";
import { join } from "node:path";
import { LoadAttestationSchema } from "../../src/schema/doctor.js";
import { group, Sandbox } from "../support/sandbox.js";

describe("cli: qhooks hooks attests what loaded: configured on disk vs loaded, each skipped hook with why", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("an invalid entry, an unknown event, an untrusted project hook and an unreadable file: each said, with why", async () => {
    sb.userSettings({ qhooks: { requireTrust: true }, hooks: { Stop: [group(undefined, "true")] } });
    sb.projectSettings({
      hooks: {
        PreToolUse: [group("Bash", "./guard.sh", { command: "", timeout: 5 })],
        PreToolUze: [group("Bash", "true")],
      },
    });
    sb.localSettings("{ not json");
    const r = await sb.run(["hooks", "--json"]);
    const attestation = LoadAttestationSchema.parse(JSON.parse(r.stdout).attestation);
    expect([attestation.configured, attestation.loaded]).to.deep.equal([4, 1]);
    expect(attestation.skipped.map((s) => [s.level, s.path])).to.deep.equal([
      ["project", "hooks.PreToolUse[0].hooks[0]"],
      ["project", "hooks.PreToolUse[0].hooks[1]"],
      ["project", "hooks.PreToolUze[0].hooks[0]"],
    ]);
    expect(attestation.skipped[0]!.why).to.match(/^not trusted: new, not trusted yet/);
    // Each with its kind, read from the file's structure and trust, never from the message.
    expect(attestation.skipped.map((s) => s.kind)).to.deep.equal(["untrusted", "invalid", "unknown-event"]);
    expect(attestation.skipped[1]!.why).to.match(/^hooks\.PreToolUse\[0\]\.hooks\[1\]\.command: /);
    expect(attestation.skipped[2]!.why).to.match(/^hooks\.PreToolUze: unknown event \(did you mean PreToolUse\?\)/);
    expect(attestation.unreadFiles).to.have.length(1);
    expect(attestation.unreadFiles[0]!.file).to.equal(".qoder/settings.local.json");

    const table = await sb.run(["hooks"]);
    expect(table.stdout).to.include("Loaded 1 of 4 hooks configured on disk; 1 file(s) could not be read, their hooks not counted.");
    expect(table.stdout).to.include("  skipped .qoder/settings.json hooks.PreToolUze[0].hooks[0] (unknown-event): hooks.PreToolUze: unknown event");
  });

  it("everything loaded: the counts agree and nothing is listed; doctor passes the attestation rule", async () => {
    sb.file(join(sb.project, ".qoder", "settings.json"), { hooks: { PreToolUse: [group("Bash", { command: "true", timeout: 5 })] } });
    const r = await sb.run(["hooks", "--json"]);
    expect(JSON.parse(r.stdout).attestation).to.deep.equal({ configured: 1, loaded: 1, skipped: [], unreadFiles: [] });
    expect((await sb.run(["hooks"])).stdout).to.include("Loaded 1 of 1 hook configured on disk.\n");
  });

  it("some configured, none loaded: doctor exits 1 with hooks-not-loaded", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "" })] } });
    const r = await sb.run(["doctor"]);
    expect(r.code).to.equal(1);
    expect(r.stdout).to.match(/^\(no file\): error hooks-not-loaded: 1 hook configured on disk, none loaded$/m);
  });
});
