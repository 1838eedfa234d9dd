import { expect } from "chai";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { group, payloadFor, Sandbox } from "../support/sandbox.js";

/**
 * The remembered dialect (`~/.qhooks/config.json`): written by `qhooks config dialect HOST` or the first install, read
 * by the commands a person types after --dialect and $QHOOKS_DIALECT and before detection; never by `run`/`record`.
 */
describe("config dialect: the dialect is remembered and shown", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const configFile = () => join(sb.home, ".qhooks", "config.json");
  /** Both hosts' files: detection cannot choose, so the default (qoder) stands unless a dialect is remembered. */
  function bothHosts(): void {
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", "exit 2")] } });
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks: { PreToolUse: [group("Bash", "echo claude-guard")] } });
  }
  const dialectOfHooks = async (args: string[] = [], env: Record<string, string> = {}) => {
    const r = await sb.run(["hooks", "--json", ...args], { env });
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout).dialect as string;
  };

  it("config dialect HOST remembers it; interactive commands read it after --dialect and $QHOOKS_DIALECT; --unset forgets it", async () => {
    bothHosts();
    const shown = await sb.run(["config", "dialect"]);
    expect(shown.stdout).to.equal("qoder (Qoder CN CLI): the default: none is remembered, and no single host's settings files exist here\n");
    expect(await dialectOfHooks()).to.equal("qoder");

    const set = await sb.run(["config", "dialect", "claude"]);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.equal(`Remembered the dialect claude (Claude Code) in ${configFile()}\n`);
    expect(JSON.parse(readFileSync(configFile(), "utf8"))).to.deep.equal({ dialect: "claude", dialectSetBy: "config" });
    expect((await sb.run(["config", "dialect"])).stdout).to.equal(`claude (Claude Code): remembered in ${configFile()}\n`);
    expect(await dialectOfHooks()).to.equal("claude");
    // The flag and the environment still come first, and `config dialect` says which one decided.
    expect(await dialectOfHooks(["--dialect", "qoder"])).to.equal("qoder");
    expect(await dialectOfHooks([], { QHOOKS_DIALECT: "qoder" })).to.equal("qoder");
    const overridden = await sb.run(["config", "dialect"], { env: { QHOOKS_DIALECT: "qoder" } });
    expect(overridden.stdout).to.equal(`qoder (Qoder CN CLI): $QHOOKS_DIALECT; remembered: claude in ${configFile()}\n`);

    const unset = await sb.run(["config", "dialect", "--unset"]);
    expect(unset.stdout).to.equal(`Forgot the dialect claude (${configFile()})\n`);
    expect(existsSync(configFile())).to.equal(false);
    expect(await dialectOfHooks()).to.equal("qoder");
    expect((await sb.run(["config", "dialect", "--unset"])).stdout).to.equal("No dialect is remembered; nothing to do\n");
  });

  it("a remembered dialect comes before detection, and keys qhooks does not know are kept", async () => {
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks: {} });
    expect((await sb.run(["config", "dialect"])).stdout).to.equal("claude (Claude Code): detected: only Claude Code's settings files exist here\n");
    sb.file(configFile(), { dialect: "qoder", later: { kept: true } });
    expect(await dialectOfHooks()).to.equal("qoder");
    await sb.run(["config", "dialect", "gemini"]);
    expect(JSON.parse(readFileSync(configFile(), "utf8"))).to.deep.equal({ later: { kept: true }, dialect: "gemini", dialectSetBy: "config" });
    await sb.run(["config", "dialect", "--unset"]);
    expect(JSON.parse(readFileSync(configFile(), "utf8"))).to.deep.equal({ later: { kept: true } });
  });

  it("a hook's call never reads it: run without --dialect is judged by Qoder's hooks whatever is remembered", async () => {
    bothHosts();
    sb.file(configFile(), { dialect: "claude", dialectSetBy: "config" });
    const r = await sb.run(["run", "PreToolUse", "--no-log"], { input: JSON.stringify(payloadFor("PreToolUse")) });
    expect(r.code).to.equal(2);
    expect(JSON.parse(r.stdout).decision).to.equal("deny");
    expect(r.stderr).to.not.include("config.json");
  });

  it("a config that is not JSON, or names no host: one warning naming the file, then detection as before", async () => {
    sb.file(join(sb.home, ".claude", "settings.json"), { hooks: {} });
    for (const text of ["{ not json", JSON.stringify({ dialect: "vscode" })]) {
      sb.file(configFile(), text);
      const r = await sb.run(["hooks", "--json"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(JSON.parse(r.stdout).dialect).to.equal("claude");
      const lines = r.stderr.trim().split("\n");
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(new RegExp(`^qhooks: warning: ${configFile()}: (not JSON|dialect: expected).*; ignored`));
    }
    // Writing a dialect replaces the bad file.
    const set = await sb.run(["config", "dialect", "qoder"]);
    expect(set.code).to.equal(0);
    expect(JSON.parse(readFileSync(configFile(), "utf8")).dialect).to.equal("qoder");
  });

  it("bad input: an unknown host, an unknown setting, --unset with a host: one line, exit 1, nothing written", async () => {
    for (const args of [
      ["config", "dialect", "vscode"],
      ["config", "colour"],
      ["config", "dialect", "claude", "--unset"],
    ]) {
      const r = await sb.run(args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stderr.trim().split("\n"), args.join(" ")).to.have.length(1);
    }
    expect(existsSync(configFile())).to.equal(false);
  });

  describe("install remembers the dialect when none is set", () => {
    const install = (args: string[]) => sb.run(["install", "claude", "--scope", "user", ...args]);

    it("install writes it, uninstall takes it back; --dry-run says so and writes nothing", async () => {
      sb.userSettings({ hooks: {} });
      mkdirSync(join(sb.home, ".claude"));
      writeFileSync(join(sb.home, ".claude", "settings.json"), "{}\n");
      const dry = await install(["--dry-run"]);
      expect(dry.stdout).to.include(`and remember the dialect claude in ${configFile()})`);
      expect(existsSync(configFile())).to.equal(false);

      const r = await install([]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.include(`Remembered claude as the dialect of the commands you type (${configFile()}`);
      expect(JSON.parse(readFileSync(configFile(), "utf8"))).to.deep.equal({ dialect: "claude", dialectSetBy: "install" });
      expect(await dialectOfHooks()).to.equal("claude");
      expect((await sb.run(["config", "dialect"])).stdout).to.equal(`claude (Claude Code): remembered in ${configFile()}, by qhooks install claude\n`);

      const u = await sb.run(["uninstall", "claude"]);
      expect(u.stdout).to.include(`Forgot the dialect claude install remembered (${configFile()})`);
      expect(existsSync(configFile())).to.equal(false);
    });

    it("a dialect already set is left as it is; one the person set after install survives uninstall", async () => {
      sb.file(configFile(), { dialect: "qoder", dialectSetBy: "config" });
      const r = await install([]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.not.include("Remembered");
      expect(JSON.parse(readFileSync(configFile(), "utf8")).dialect).to.equal("qoder");
      await sb.run(["uninstall", "claude"]);
      expect(JSON.parse(readFileSync(configFile(), "utf8")).dialect).to.equal("qoder");

      writeFileSync(configFile(), "{}\n");
      await install([]);
      expect(JSON.parse(readFileSync(configFile(), "utf8")).dialectSetBy).to.equal("install");
      await sb.run(["config", "dialect", "claude"]);
      const u = await sb.run(["uninstall", "claude"]);
      expect(u.stdout).to.not.include("Forgot");
      expect(JSON.parse(readFileSync(configFile(), "utf8"))).to.deep.equal({ dialect: "claude", dialectSetBy: "config" });
    });
  });
});
