import { expect } from "chai";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { runDoctor } from "../../src/doctor/runDoctor.js";
import { RULES } from "../../src/doctor/rules/index.js";
import type { Dialect } from "../../src/hosts/hostDialect.js";
import { DoctorFindingSchema, type DoctorFinding } from "../../src/schema/doctor.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { planSettings } from "../../src/settings/settingsPlan.js";
import { createTrustPolicy } from "../../src/trust/trustPolicy.js";
import { group, Sandbox } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** The doctor over the sandbox's real files, as the CLI runs it (in-process: one CLI start per case would cost seconds). */
function doctorOf(sb: Sandbox, dialect: Dialect = "qoder"): DoctorFinding[] {
  const plan = planSettings({ homeDir: sb.home, projectDir: sb.project, dialect, baseDir: sb.project });
  const snapshot = loadSettings(plan.sources, plan.plugins);
  const env = { PATH: process.env.PATH };
  const trust = createTrustPolicy({ homeDir: sb.home, projectDir: sb.project, env, dialect, trustCommand: "qhooks trust" }).check(snapshot);
  const findings = runDoctor({ snapshot, dialect, projectDir: sb.project, homeDir: sb.home, env, trust });
  for (const f of findings) DoctorFindingSchema.parse(f);
  return findings;
}

/** A script in the project (where relative commands start). */
const projectScript = (sb: Sandbox, name: string, body: string, mode = 0o755) => sb.file(join(sb.project, "scripts", name), body, mode);
const hooksOf = (event: string, ...groups: Json[]) => ({ hooks: { [event]: groups } });

interface Case {
  readonly rule: string;
  readonly dialect?: Dialect;
  /**
   * Writes settings (and files) that trigger the rule; returns a text of the settings file the finding's line holds,
   * or a text and how many lines above it the finding is (a hook's own line is its `{`).
   */
  readonly bad: (sb: Sandbox) => string | readonly [string, number];
  /** Settings close to the bad ones that must not trigger it. */
  readonly good: (sb: Sandbox) => void;
}

const CASES: readonly Case[] = [
  {
    rule: "hooks-not-loaded",
    // A finding of the configuration as a whole: no file, no line (the test's line check is skipped for it).
    bad: (sb) => (
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", { command: "" }), { matcher: "Bash", hooks: [{ type: "comand", command: "x" }] })), ""
    ),
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("Bash", { command: "" }), group("Bash", "true"))),
  },
  {
    rule: "settings-warning",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", { matcher: "Bash", hooks: [{ type: "command", command: "true", timout: 5 }] })), '"timout"'),
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("Bash", { command: "true", timeout: 5 }))),
  },
  {
    rule: "plugin-missing",
    dialect: "claude",
    bad: (sb) => (sb.file(join(sb.project, ".claude", "settings.json"), { enabledPlugins: { "guard@market": true } }), '"enabledPlugins"'),
    good: (sb) => sb.file(join(sb.project, ".claude", "settings.json"), { enabledPlugins: { "guard@market": false } }),
  },
  {
    rule: "hook-untrusted",
    bad: (sb) => {
      sb.userSettings({ qhooks: { requireTrust: true } });
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "true")));
      return ['"command": "true"', 2];
    },
    good: (sb) => {
      sb.userSettings({ qhooks: { requireTrust: true }, ...hooksOf("PreToolUse", group("Bash", "true")) });
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "true")));
    },
  },
  {
    rule: "guard-weakened",
    bad: (sb) => {
      sb.userSettings(hooksOf("PreToolUse", group("Bash", { command: "true", timeout: 30 })));
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", { command: "true", timeout: 30, mode: "shadow" })));
      return ['"command": "true"', 2];
    },
    good: (sb) => {
      sb.userSettings(hooksOf("PreToolUse", group("Bash", { command: "true", timeout: 30 })));
      sb.projectSettings({ env: { OTHER: "1" }, ...hooksOf("PreToolUse", group("Bash", { command: "true", timeout: 60 })) });
    },
  },
  {
    rule: "hook-calls-qhooks",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("Bash", "npx qhooks --dialect qoder run PreToolUse"))), "npx qhooks"),
    good: (sb) => {
      // Its own --settings file (as a qoder guard set kept apart), a record entry, another command: none reads this file.
      sb.file(join(sb.root, "guards.json"), { hooks: {} });
      sb.projectSettings(
        hooksOf(
          "PreToolUse",
          group("Bash", `npx qhooks run PreToolUse --format hook --settings ${join(sb.root, "guards.json")}`, "qhooks record PreToolUse", "npx qhooks hooks"),
        ),
      );
    },
  },
  {
    rule: "command-missing",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("Bash", "./scripts/guard.sh"))), "guard.sh"),
    good: (sb) => {
      projectScript(sb, "guard.sh", "#!/bin/sh\nexit 0\n");
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "./scripts/guard.sh")));
    },
  },
  {
    rule: "command-missing",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("Bash", "cat | no-such-jq-qhooks-test -r .tool_name"))), "no-such-jq"),
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("Bash", "cat | jq -r .tool_name"))),
  },
  {
    rule: "command-missing",
    bad: (sb) => {
      mkdirSync(join(sb.project, "scripts", "guard.sh"), { recursive: true });
      symlinkSync(join(sb.project, "nowhere.sh"), join(sb.project, "scripts", "dangling.sh"));
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "./scripts/guard.sh", "$CLAUDE_PROJECT_DIR/scripts/dangling.sh", "bash scripts/gone.sh")));
      return "guard.sh";
    },
    good: (sb) => {
      projectScript(sb, "x.sh", "echo hi\n", 0o644);
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "bash scripts/x.sh")));
    },
  },
  {
    rule: "command-not-executable",
    bad: (sb) => (projectScript(sb, "x.sh", "#!/bin/sh\nexit 0\n", 0o644), sb.projectSettings(hooksOf("Stop", group(undefined, "./scripts/x.sh"))), "x.sh"),
    good: (sb) => (projectScript(sb, "x.sh", "#!/bin/sh\nexit 0\n", 0o644), sb.projectSettings(hooksOf("Stop", group(undefined, "sh ./scripts/x.sh")))),
  },
  {
    rule: "script-no-shebang",
    bad: (sb) => (projectScript(sb, "x.sh", "exit 0\n"), sb.projectSettings(hooksOf("Stop", group(undefined, "./scripts/x.sh"))), "x.sh"),
    good: (sb) => (projectScript(sb, "x.sh", "#!/bin/sh\nexit 0\n"), sb.projectSettings(hooksOf("Stop", group(undefined, "./scripts/x.sh")))),
  },
  {
    rule: "command-not-checked",
    bad: (sb) => (sb.projectSettings(hooksOf("Stop", group(undefined, '"$GUARD" --strict'))), "GUARD"),
    good: (sb) => (projectScript(sb, "x.sh", "#!/bin/sh\n"), sb.projectSettings(hooksOf("Stop", group(undefined, '"$CLAUDE_PROJECT_DIR/scripts/x.sh"')))),
  },
  {
    rule: "matcher-case",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("bash", "true"))), '"bash"'),
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("Bash", "true"))),
  },
  {
    rule: "matcher-unknown-tool",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("Edit|Wirte", "true"), group("mcp__memory", "true"))), "Wirte"),
    good: (sb) =>
      sb.projectSettings(hooksOf("PreToolUse", group("Edit|Write", "true"), group("mcp__memory__create", "true"), group("mcp__memory__.*", "true"))),
  },
  {
    rule: "matcher-regex-refused",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("(Edit)\\1", "true"))), "Edit"),
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("^(Edit|Write)$", "true"))),
  },
  {
    rule: "matcher-unanchored",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("(Edit|Write)", "true"))), '"(Edit|Write)"'),
    good: (sb) =>
      sb.projectSettings(
        hooksOf(
          "PreToolUse",
          group("^(Edit|Write)$", "true"),
          group("Edit|Write", "true"),
          group("mcp__.*", "true"),
          group("Bash.*", "true"),
          group("Notebook.*", "true"),
        ),
      ),
  },
  {
    rule: "guard-timeout",
    dialect: "claude",
    bad: (sb) => (sb.file(join(sb.project, ".claude", "settings.json"), hooksOf("PreToolUse", group("Bash", "true"))), ['"command": "true"', 2]),
    // A timeout of its own, even one longer than the host's default: the host gives a hook it runs what it asks for
    // (a managed install's entry, which bounds the hooks behind it, is test/doctor/install.test.ts).
    good: (sb) =>
      sb.file(
        join(sb.project, ".claude", "settings.json"),
        hooksOf("PreToolUse", group("Bash", { command: "true", timeout: 10 }), group("Bash", { command: "true", timeout: 900 })),
      ),
  },
  {
    rule: "guard-timeout",
    dialect: "claude",
    bad: (sb) => (sb.file(join(sb.project, ".claude", "settings.json"), hooksOf("Stop", group(undefined, "true"))), ['"command": "true"', 2]),
    // Qoder CN CLI's default (60 s) is no long wait; a timeout of its own longer than that is the hook's to ask.
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("Bash", "true"), group("Bash", { command: "true", timeout: 120 }))),
  },
  {
    rule: "guard-async",
    bad: (sb) => (sb.projectSettings(hooksOf("PreToolUse", group("Bash", { command: "true", async: true }))), '"async"'),
    good: (sb) => sb.projectSettings(hooksOf("SessionEnd", group(undefined, { command: "true", async: true }))),
  },
  {
    rule: "guard-exit-1",
    bad: (sb) => {
      projectScript(sb, "guard.sh", '#!/bin/sh\nif grep -q "rm -rf"; then\n  echo "Blocked: dangerous command" >&2\n  exit 1\nfi\n');
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "./scripts/guard.sh")));
      return "guard.sh";
    },
    good: (sb) => {
      projectScript(sb, "guard.sh", '#!/bin/sh\nif grep -q "rm -rf"; then\n  echo "Blocked: dangerous command" >&2\n  exit 2\nfi\n[ -r x ] || exit 1\n');
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "./scripts/guard.sh")));
    },
  },
  {
    rule: "guard-prints-allow",
    bad: (sb) => {
      projectScript(
        sb,
        "guard.py",
        '#!/usr/bin/env python3\nimport json\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}))\n',
      );
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "python3 scripts/guard.py")));
      return "guard.py";
    },
    good: (sb) => {
      projectScript(sb, "guard.py", "#!/usr/bin/env python3\nprint('{}')\n");
      sb.projectSettings(hooksOf("PreToolUse", group("Bash", "python3 scripts/guard.py")));
    },
  },
  {
    rule: "onfailure-cannot-block",
    bad: (sb) => (sb.projectSettings(hooksOf("SessionEnd", group(undefined, { command: "true", onFailure: "block" }))), '"onFailure"'),
    good: (sb) => sb.projectSettings(hooksOf("PreToolUse", group("Bash", { command: "true", onFailure: "block", timeout: 5 }))),
  },
];

describe("doctor: each rule, with settings that trigger it and settings that do not", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("every rule of the catalog has a case here (command-unreadable below, the install rules in install.test.ts)", () => {
    const elsewhere = new Set(["command-unreadable", "install-event-missing", "install-cli-missing"]);
    expect(new Set(CASES.map((c) => c.rule))).to.deep.equal(new Set(RULES.map((r) => r.id).filter((id) => !elsewhere.has(id))));
  });

  for (const c of CASES) {
    it(`${c.rule}: found, at the line of its entry`, () => {
      const [needle, above] = ((bad) => (typeof bad === "string" ? [bad, 0] : bad))(c.bad(sb));
      const findings = doctorOf(sb, c.dialect).filter((f) => f.rule === c.rule);
      expect(findings, JSON.stringify(doctorOf(sb, c.dialect), null, 1)).to.have.length.greaterThan(0);
      const f = findings[0]!;
      expect(f.fix).to.not.equal("");
      if (needle === "") return void expect([f.file, f.line]).to.deep.equal([null, null]);
      expect(f.file).to.be.a("string");
      expect(f.fix).to.not.equal("");
      const text = readFileSync(f.filePath!, "utf8");
      const expected = text.split("\n").findIndex((l) => l.includes(needle)) + 1 - above;
      expect(f.line, `${f.path} in\n${text}`).to.equal(expected);
    });
    it(`${c.rule}: not found in settings close to the bad ones`, () => {
      c.good(sb);
      const all = doctorOf(sb, c.dialect);
      expect(
        all.filter((f) => f.rule === c.rule),
        JSON.stringify(all, null, 1),
      ).to.deep.equal([]);
    });
  }

  it("guard-weakened: a project's qhooks.disabled and a guarded variable in its env block each a finding; the user's own env block is not", () => {
    sb.projectSettings({ qhooks: { disabled: ["guard"] }, env: { QHOOKS_DISABLE: "1", QHOOKS_DB: "/tmp/x.db" } });
    sb.userSettings({ env: { QHOOKS_DB: "/tmp/x.db" } });
    const found = doctorOf(sb).filter((f) => f.rule === "guard-weakened");
    expect(found.map((f) => f.path).sort()).to.deep.equal(["env.QHOOKS_DISABLE", "qhooks.disabled"]);
    expect(doctorOf(sb).filter((f) => f.rule === "settings-warning")).to.deep.equal([]);
  });

  it("command-unreadable: a script this user cannot read is a finding, not a crash", function () {
    if (process.getuid?.() === 0) this.skip(); // root reads every file: nothing to find
    projectScript(sb, "x.sh", "#!/bin/sh\n", 0o311);
    sb.projectSettings(hooksOf("Stop", group(undefined, "./scripts/x.sh")));
    expect(doctorOf(sb).map((f) => f.rule)).to.include("command-unreadable");
  });

  it("a dangling symlink, a directory and a missing interpreter script each get their own message", () => {
    CASES.find((c) => c.rule === "command-missing" && String(c.bad).includes("dangling"))!.bad(sb);
    const messages = doctorOf(sb)
      .filter((f) => f.rule === "command-missing")
      .map((f) => f.message);
    expect(messages.some((m) => /is a directory/.test(m))).to.equal(true);
    expect(messages.some((m) => /symlink to .*nowhere\.sh, which does not exist/.test(m))).to.equal(true);
    expect(messages.some((m) => /script .*gone\.sh does not exist/.test(m))).to.equal(true);
  });

  it("one finding per matcher group, however many hooks the group holds", () => {
    sb.projectSettings(hooksOf("PreToolUse", group("bash", "true", "false", ":")));
    expect(doctorOf(sb).filter((f) => f.rule === "matcher-case")).to.have.length(1);
  });
});
