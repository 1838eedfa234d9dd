import { expect } from "chai";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { hookField, markSet, mark, settings, warningLines } from "./support.js";

/** Contract 1.1: the three levels are concatenated, never overriding; --settings / settingsFiles replace discovery. */
describe("settings levels and merge", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("runs the hooks of user, project and local, concatenated in that order, none overriding another", async () => {
    // The same event and the same matcher at every level: a later level must not replace an earlier one.
    sb.userSettings(settings({ PreToolUse: [group("Bash", mark(sb, "user"))] }));
    sb.projectSettings(settings({ PreToolUse: [group("Bash", mark(sb, "project-1"), mark(sb, "project-2"))] }));
    sb.localSettings(settings({ PreToolUse: [group("Bash", mark(sb, "local"))] }));

    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(hookField(r.outcome, "level")).to.deep.equal(["user", "project", "project", "local"]);
    expect(hookField(r.outcome, "command")).to.deep.equal([mark(sb, "user"), mark(sb, "project-1"), mark(sb, "project-2"), mark(sb, "local")]);
    expect(markSet(sb)).to.deep.equal(["local", "project-1", "project-2", "user"]);
  });

  it("a rewrite from the local level is refused where the user's own hook ran: the user's updatedInput stands", async () => {
    const rewrite = (name: string, command: string) =>
      sb.script(name, `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"${command}"}}}'`);
    sb.userSettings(settings({ PreToolUse: [group("Bash", rewrite("user.sh", "from-user"))] }));
    sb.localSettings(settings({ PreToolUse: [group("Bash", rewrite("local.sh", "from-local"))] }));

    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(hookField(r.outcome, "level")).to.deep.equal(["user", "local"]);
    expect(r.outcome!.updatedInput).to.deep.equal({ command: "from-user" });
  });

  it("is fine with missing levels and ignores the other top-level keys of a settings file", async () => {
    sb.projectSettings(
      settings({ PreToolUse: [group("Bash", mark(sb, "project"))] }, { permissions: { allow: ["Bash(ls)"] }, env: { API_KEY: "secret" }, model: "some-model" }),
    );
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code).to.equal(0);
    expect(r.stderr).to.equal("");
    expect(markSet(sb)).to.deep.equal(["project"]);

    const listing = await sb.run(["hooks", "--json"]);
    const files = (JSON.parse(listing.stdout) as { files: { level: string; state: string }[] }).files;
    expect(files.map((f) => [f.level, f.state])).to.deep.equal([
      ["user", "missing"],
      ["project", "loaded"],
      ["local", "missing"],
    ]);
  });

  describe("--settings FILE (repeatable)", () => {
    let a: string;
    let b: string;
    beforeEach(() => {
      sb.userSettings(settings({ PreToolUse: [group(undefined, mark(sb, "discovered-user"))] }));
      sb.projectSettings(settings({ PreToolUse: [group(undefined, mark(sb, "discovered-project"))] }));
      sb.localSettings(settings({ PreToolUse: [group(undefined, mark(sb, "discovered-local"))] }));
      a = sb.file("conf/a.json", settings({ PreToolUse: [group("Bash", mark(sb, "a"))] }));
      b = sb.file("conf/b.json", settings({ PreToolUse: [group("Bash", mark(sb, "b"))], PreTooluse: [] }));
    });

    it("replaces discovery with exactly those files, in order, each level reported as its absolute path", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", a, "--settings", b]);
      expect(r.code, r.stderr).to.equal(0);
      expect(hookField(r.outcome, "level")).to.deep.equal([a, b]);
      expect(markSet(sb)).to.deep.equal(["a", "b"]);
      // Warnings name the file by its absolute path too.
      expect(warningLines(r.stderr)).to.have.length(1);
      expect(warningLines(r.stderr)[0]).to.match(new RegExp(`^${b.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: hooks\\.PreTooluse: unknown event`));
    });

    it("keeps the order given on the command line", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", b, "--settings", a]);
      expect(r.code, r.stderr).to.equal(0);
      expect(hookField(r.outcome, "level")).to.deep.equal([b, a]);
    });

    it("resolves a relative path against the working directory, not the project directory", async () => {
      const work = join(sb.root, "work");
      const fromCwd = sb.file("work/conf/rel.json", settings({ PreToolUse: [group("Bash", mark(sb, "from-cwd"))] }));
      sb.file(join(sb.project, "conf/rel.json"), settings({ PreToolUse: [group("Bash", mark(sb, "from-project-dir"))] }));

      const r = await sb.run(["--project-dir", sb.project, "run", "PreToolUse", "--settings", "conf/rel.json"], {
        cwd: work,
        input: JSON.stringify(payloadFor("PreToolUse")),
      });
      expect(r.code, r.stderr).to.equal(0);
      const outcome = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(hookField(outcome, "level")).to.deep.equal([fromCwd]);
      expect(markSet(sb)).to.deep.equal(["from-cwd"]);

      const listing = await sb.run(["--project-dir", sb.project, "hooks", "--json", "--settings", "conf/rel.json"], { cwd: work });
      const json = JSON.parse(listing.stdout) as { files: { level: string; path: string }[] };
      expect(json.files).to.have.length(1);
      expect(json.files[0]).to.include({ level: fromCwd, path: fromCwd });
    });

    it("reports a --settings file that does not exist as missing, with a warning, and runs nothing from discovery", async () => {
      const nowhere = join(sb.root, "conf", "nowhere.json");
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", nowhere]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.outcome!.hooks).to.deep.equal([]);
      expect(markSet(sb)).to.deep.equal([]);
      // A mistyped path must not turn its guards off silently.
      expect(r.stderr.trim().split("\n")).to.deep.equal([`qhooks: warning: ${nowhere}: does not exist; no hooks from it`]);
    });
  });

  it("library settingsFiles: exactly those files, in order, levels as absolute paths", async () => {
    sb.userSettings(settings({ PreToolUse: [group(undefined, mark(sb, "discovered-user"))] }));
    sb.projectSettings(settings({ PreToolUse: [group(undefined, mark(sb, "discovered-project"))] }));
    const a = sb.file("conf/a.json", settings({ PreToolUse: [group("Bash", mark(sb, "a"))] }));
    const b = sb.file("conf/b.json", settings({ PreToolUse: [group("Bash", mark(sb, "b"))] }));

    const bus = sb.bus({ settingsFiles: [b, a], watch: false });
    expect(bus.settings().sources.map((s) => s.level)).to.deep.equal([b, a]);
    const outcome = await bus.dispatch({ ...payloadFor("PreToolUse"), hook_event_name: "PreToolUse" });
    expect(outcome.hooks.map((h) => h.level)).to.deep.equal([b, a]);
    expect(markSet(sb)).to.deep.equal(["a", "b"]);
  });

  it("library without settingsFiles discovers the three levels under homeDir and projectDir", async () => {
    sb.userSettings(settings({ Stop: [group(undefined, mark(sb, "user"))] }));
    sb.localSettings(settings({ Stop: [group(undefined, mark(sb, "local"))] }));
    mkdirSync(join(sb.project, ".qoder"), { recursive: true });
    const bus = sb.bus({ watch: false });
    const outcome = await bus.dispatch({ ...payloadFor("Stop"), hook_event_name: "Stop" });
    expect(outcome.hooks.map((h) => h.level)).to.deep.equal(["user", "local"]);
    expect(bus.settings().sources.map((s) => [s.level, s.state])).to.deep.equal([
      ["user", "loaded"],
      ["project", "missing"],
      ["local", "loaded"],
    ]);
  });
});
