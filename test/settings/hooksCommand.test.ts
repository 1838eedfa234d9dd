import { expect } from "chai";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { settings, stderrLines } from "./support.js";

interface Listing {
  configHash: string;
  dialect: string;
  projectDir: string;
  files: { level: string; path: string; display: string; state: string }[];
  hooks: {
    event: string;
    level: string;
    file: string;
    path: string;
    matcher: string | null;
    name: string;
    command: string;
    timeoutSeconds: number;
    sameCommandAs: string | null;
  }[];
  warnings: string[];
}

/** Contract 5, `qhooks hooks`: the effective merged hooks with their level, file and warnings. */
describe("qhooks hooks", () => {
  let sb: Sandbox;
  afterEach(() => sb.cleanup());

  /** user: a guard on Bash; project: a formatter on Write|Edit, a notifier, one bad entry; no local file. */
  function writeConfig(): void {
    sb.userSettings(settings({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/.qoder-cn/hooks/block-rm.sh", timeout: 5 }] }] }));
    sb.projectSettings(
      settings(
        {
          PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "npx prettier --write .", name: "format" }] }],
          PreToolUse: [
            {
              hooks: [
                { type: "command", command: "echo audit", timeout: 1.5 },
                { type: "command", command: "echo bad", timeout: 0 },
              ],
            },
          ],
          Notification: [{ hooks: [{ type: "command", command: "notify-send qoder" }] }],
        },
        { model: "x" },
      ),
    );
  }

  const listing = async (args: string[] = [], options: Parameters<Sandbox["run"]>[1] = {}): Promise<Listing> => {
    const r = await sb.run(["hooks", "--json", ...args], options);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal("");
    return JSON.parse(r.stdout) as Listing;
  };

  describe("text output", () => {
    beforeEach(() => {
      sb = new Sandbox();
      writeConfig();
    });

    it("lists the files with their state, every hook with event, level, matcher, command, timeout and where declared, and the warnings", async () => {
      const r = await sb.run(["hooks"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.equal("");
      const lines = r.stdout.split("\n");
      const lineWith = (text: string) => {
        const found = lines.filter((l) => l.includes(text));
        expect(found, `one line with ${text}:\n${r.stdout}`).to.have.length(1);
        return found[0]!;
      };

      expect(r.stdout).to.include(sb.project);
      expect(lineWith("~/.qoder-cn/settings.json  (")).to.match(/\buser\b.*\(loaded\)/);
      expect(lineWith(".qoder/settings.json  (")).to.match(/\bproject\b.*\(loaded\)/);
      expect(lineWith(".qoder/settings.local.json  (")).to.match(/\blocal\b.*\(missing\)/);

      const guard = lineWith("~/.qoder-cn/hooks/block-rm.sh");
      for (const part of ["PreToolUse", "user", "Bash", "5s", "~/.qoder-cn/settings.json hooks.PreToolUse[0].hooks[0]"]) expect(guard).to.include(part);

      const format = lineWith("npx prettier --write .");
      for (const part of ["PostToolUse", "project", "Write|Edit", "format", "60s", ".qoder/settings.json hooks.PostToolUse[0].hooks[0]"]) {
        expect(format).to.include(part);
      }

      const audit = lineWith("echo audit");
      for (const part of ["PreToolUse", "project", "*", "1.5s", "hooks.PreToolUse[0].hooks[0]"]) expect(audit).to.include(part);
      expect(lineWith("notify-send qoder")).to.include("Notification");

      // The skipped entry is not listed as a hook, but as a warning.
      expect(lines.filter((l) => l.includes("echo bad"))).to.deep.equal([]);
      expect(r.stdout).to.match(/Warnings \(1\)/);
      expect(lineWith(".qoder/settings.json: hooks.PreToolUse[0].hooks[1].timeout: expected a positive number of seconds")).to.match(/^ {2}\.qoder/);
      // And below, what loaded: the same entry as skipped, with why.
      expect(lineWith("Loaded 4 of 5 hooks configured on disk.")).to.not.equal("");
      expect(lineWith("  skipped .qoder/settings.json hooks.PreToolUse[0].hooks[1] (invalid): ")).to.include("expected a positive number of seconds");
    });

    it("--event PreToolUse narrows the list to that event", async () => {
      const r = await sb.run(["hooks", "--event", "PreToolUse"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.include("block-rm.sh");
      expect(r.stdout).to.include("echo audit");
      expect(r.stdout).not.to.include("prettier");
      expect(r.stdout).not.to.include("notify-send");
    });

    it("says so when an event has no hooks", async () => {
      const r = await sb.run(["hooks", "--event", "SessionEnd"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.include("No hooks for SessionEnd.");
    });

    it("marks a command that is declared twice and runs once", async () => {
      sb.localSettings(settings({ PreToolUse: [{ hooks: [{ type: "command", command: "echo audit" }] }] }));
      const r = await sb.run(["hooks", "--event", "PreToolUse"]);
      // Both occurrences are listed where they are declared, and the repeat is explained in full.
      expect(r.stdout.split("\n").filter((l) => l.includes("echo audit"))).to.have.length(2);
      const notes = r.stdout.split("\n").filter((l) => l.includes("same command as"));
      expect(notes).to.deep.equal([
        "  PreToolUse .qoder/settings.local.json hooks.PreToolUse[0].hooks[0]: same command as .qoder/settings.json: hooks.PreToolUse[0].hooks[0], runs once",
      ]);
    });
  });

  describe("--json", () => {
    beforeEach(() => {
      sb = new Sandbox();
      writeConfig();
    });

    it("gives {configHash, dialect, projectDir, files, hooks, warnings, attestation}", async () => {
      const json = await listing();
      expect(Object.keys(json).sort()).to.deep.equal(["attestation", "configHash", "dialect", "files", "hooks", "projectDir", "warnings"]);
      expect(json.dialect).to.equal("qoder");
      expect(json.configHash).to.match(/^[0-9a-f]{64}$/);
      expect(json.projectDir).to.equal(sb.project);
      expect(json.files).to.deep.equal([
        { level: "user", path: join(sb.home, ".qoder-cn", "settings.json"), display: "~/.qoder-cn/settings.json", state: "loaded" },
        { level: "project", path: join(sb.project, ".qoder", "settings.json"), display: ".qoder/settings.json", state: "loaded" },
        { level: "local", path: join(sb.project, ".qoder", "settings.local.json"), display: ".qoder/settings.local.json", state: "missing" },
      ]);
      expect(json.hooks.map((h) => [h.event, h.level, h.matcher, h.name, h.command, h.timeoutSeconds, h.file, h.path])).to.deep.equal([
        ["PreToolUse", "user", "Bash", "block-rm.sh", "~/.qoder-cn/hooks/block-rm.sh", 5, "~/.qoder-cn/settings.json", "hooks.PreToolUse[0].hooks[0]"],
        ["PostToolUse", "project", "Write|Edit", "format", "npx prettier --write .", 60, ".qoder/settings.json", "hooks.PostToolUse[0].hooks[0]"],
        ["PreToolUse", "project", null, "echo audit", "echo audit", 1.5, ".qoder/settings.json", "hooks.PreToolUse[0].hooks[0]"],
        ["Notification", "project", null, "notify-send qoder", "notify-send qoder", 60, ".qoder/settings.json", "hooks.Notification[0].hooks[0]"],
      ]);
      expect(json.warnings).to.deep.equal([
        ".qoder/settings.json: hooks.PreToolUse[0].hooks[1].timeout: expected a positive number of seconds; this hook is skipped",
      ]);
    });

    it("reports the same configHash as the outcome of qhooks run with the same files", async () => {
      const [json, run] = await Promise.all([listing(), sb.runEvent("Notification", payloadFor("Notification"))]);
      expect(run.outcome!.configHash).to.equal(json.configHash);
    });

    it("--event narrows the JSON hooks too; files and warnings stay whole", async () => {
      const json = await listing(["--event", "PreToolUse"]);
      expect(json.hooks.map((h) => h.command)).to.deep.equal(["~/.qoder-cn/hooks/block-rm.sh", "echo audit"]);
      expect(json.files).to.have.length(3);
      expect(json.warnings).to.have.length(1);
    });

    it("--settings lists exactly those files, each level its absolute path", async () => {
      const a = sb.file("conf/a.json", settings({ Stop: [{ hooks: [{ type: "command", command: "echo a" }] }] }));
      const json = await listing(["--settings", a, "--settings", join(sb.root, "conf", "none.json")]);
      expect(json.files.map((f) => [f.level, f.state])).to.deep.equal([
        [a, "loaded"],
        [join(sb.root, "conf", "none.json"), "missing"],
      ]);
      expect(json.hooks.map((h) => [h.level, h.command])).to.deep.equal([[a, "echo a"]]);
    });
  });

  describe("an unknown --event", () => {
    beforeEach(() => (sb = new Sandbox()));

    for (const value of ["PreToolCall", "pretooluse", ""]) {
      it(`--event ${JSON.stringify(value)}: one 'qhooks: ' line on stderr, exit 1, nothing on stdout`, async () => {
        const r = await sb.run(["hooks", "--event", value]);
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        const lines = stderrLines(r.stderr);
        expect(lines).to.have.length(1, r.stderr);
        expect(lines[0]).to.match(/^qhooks: /);
        expect(lines[0]).not.to.match(/^qhooks: warning: /);
        expect(lines[0]).to.include("unknown event");
      });
    }

    it("suggests the right spelling for a case mistake", async () => {
      const r = await sb.run(["hooks", "--event", "pretooluse"]);
      expect(r.stderr).to.include("did you mean PreToolUse?");
    });
  });

  describe("project directory", () => {
    let flagDir: string;
    let envDir: string;
    let cwdDir: string;
    beforeEach(() => {
      sb = new Sandbox();
      flagDir = join(sb.root, "flag-project");
      envDir = join(sb.root, "env-project");
      cwdDir = sb.project;
      for (const [dir, tag] of [
        [flagDir, "flag"],
        [envDir, "env"],
        [cwdDir, "cwd"],
      ] as const) {
        sb.file(join(dir, ".qoder", "settings.json"), settings({ Stop: [{ hooks: [{ type: "command", command: `echo from-${tag}` }] }] }));
      }
    });

    const commandsOf = (json: Listing) => json.hooks.map((h) => h.command);

    it("--project-dir (before or after the command name) wins over $QODERCN_PROJECT_DIR and the working directory", async () => {
      const env = { QODERCN_PROJECT_DIR: envDir };
      const [before, after] = await Promise.all([
        sb.run(["--project-dir", flagDir, "hooks", "--json"], { env }),
        sb.run(["hooks", "--json", "--project-dir", flagDir], { env }),
      ]);
      for (const r of [before, after]) {
        expect(r.code, r.stderr).to.equal(0);
        const json = JSON.parse(r.stdout) as Listing;
        expect(json.projectDir).to.equal(flagDir);
        expect(commandsOf(json)).to.deep.equal(["echo from-flag"]);
      }
    });

    it("$QODERCN_PROJECT_DIR wins over the working directory", async () => {
      const json = await listing([], { env: { QODERCN_PROJECT_DIR: envDir } });
      expect(json.projectDir).to.equal(envDir);
      expect(commandsOf(json)).to.deep.equal(["echo from-env"]);
    });

    it("else the working directory", async () => {
      const json = await listing([], { cwd: cwdDir });
      expect(json.projectDir).to.equal(cwdDir);
      expect(commandsOf(json)).to.deep.equal(["echo from-cwd"]);
    });

    it("a relative --project-dir or $QODERCN_PROJECT_DIR is made absolute against the working directory", async () => {
      const [fromFlag, fromEnv] = await Promise.all([
        listing(["--project-dir", "flag-project"], { cwd: sb.root }),
        listing([], { cwd: sb.root, env: { QODERCN_PROJECT_DIR: "./env-project" } }),
      ]);
      expect(fromFlag.projectDir).to.equal(flagDir);
      expect(commandsOf(fromFlag)).to.deep.equal(["echo from-flag"]);
      expect(fromEnv.projectDir).to.equal(envDir);
      expect(commandsOf(fromEnv)).to.deep.equal(["echo from-env"]);
    });

    it("qhooks run follows the same rule: $QODERCN_PROJECT_DIR selects the project settings", async () => {
      mkdirSync(join(sb.root, "elsewhere"));
      const r = await sb.run(["run", "Stop"], {
        cwd: join(sb.root, "elsewhere"),
        env: { QODERCN_PROJECT_DIR: envDir },
        input: JSON.stringify(payloadFor("Stop")),
      });
      expect(r.code, r.stderr).to.equal(0);
      const outcome = JSON.parse(r.stdout) as { hooks: { command: string; stdout: string }[] };
      expect(outcome.hooks.map((h) => h.command)).to.deep.equal(["echo from-env"]);
    });
  });
});
