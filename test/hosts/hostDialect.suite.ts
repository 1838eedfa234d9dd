import { expect } from "chai";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { HostDialect } from "../../src/hosts/hostDialect.js";
import { hostDialect } from "../../src/hosts/hosts.js";
import { EVENT_NAMES } from "../../src/schema/eventNames.js";
import type { EventName } from "../../src/schema/events.js";
import { hostEventOf, qhooksEventOf } from "../../src/hosts/hostEventNames.js";
import { HANDLER_TYPES, MAX_TIMEOUT_SECONDS } from "../../src/schema/settings.js";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { outcomeOf } from "../support/outcomes.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { defaultTestFile } from "../../src/hooktest/testFile.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/**
 * What every host dialect must do, whatever host it speaks for: one suite that each implementation runs
 * (test/hosts/hosts.test.ts), with real settings files, a real `qhooks run` and a temporary HOME.
 */
export function describeHostDialect(host: HostDialect): void {
  describe(`host dialect ${host.id} (${host.name})`, () => {
    /** The host's name for an event it fires: what its settings files and payloads say. */
    const named = (event: EventName): string => hostEventOf(host.eventNames, event)!;
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());

    /** A move for each machine-wide level, into the sandbox (the host's own variables; none for the others). */
    const machineWide = (): Record<string, string> => ({
      GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "etc", "system-defaults.json"),
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "etc", "settings.json"),
      QHOOKS_COPILOT_POLICY_DIR: join(sb.root, "etc", "copilot-policy.d"),
      QHOOKS_CURSOR_ENTERPRISE_FILE: join(sb.root, "etc", "cursor-hooks.json"),
    });

    it("has a user level then a project level (and a local one after it), each file where its level says; machine-wide ones the environment moves", () => {
      const levels = host.settingsLevels(sb.home, sb.project, machineWide());
      // A host may read several files at one level (Copilot CLI's hooks files, then its settings.json): each level once.
      const own = [...new Set(levels.map((l) => l.level).filter((l) => l === "user" || l === "project" || l === "local"))];
      expect([
        ["user", "project"],
        ["user", "project", "local"],
      ]).to.deep.include(own);
      for (const l of levels) {
        if (l.level === "user") {
          expect(l.path.startsWith(`${sb.home}/`), l.path).to.equal(true);
          expect(l.display.startsWith("~/")).to.equal(true);
        } else if (l.level === "project" || l.level === "local") {
          // Another host's file it reads too (Claude Code's, under Copilot CLI) is in that host's folder.
          const folder = l.ownedBy === undefined ? host.projectFolder : hostDialect(l.ownedBy).projectFolder;
          expect(l.path.startsWith(`${join(sb.project, folder)}/`), l.path).to.equal(true);
          expect(l.display.startsWith(`${folder}/`), l.display).to.equal(true);
        } else {
          expect(l.path.startsWith(`${sb.root}/etc/`), l.path).to.equal(true);
          expect(l.display).to.equal(l.path);
        }
      }
      expect(new Set(levels.map((l) => l.path)).size).to.equal(levels.length);
    });

    it("the hooks written at each of its levels load, in level order, under that level", () => {
      const env = machineWide();
      const levels = host.settingsLevels(sb.home, sb.project, env);
      for (const l of levels) {
        sb.file(l.path, { hooks: { [named("PreToolUse")]: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo ${l.level}` }] }] } });
      }
      const snapshot = loadSettings(discoverSettings(sb.home, sb.project, host.id, env));
      expect(snapshot.warnings).to.deep.equal([]);
      expect(snapshot.hooks.map((h) => [h.level, h.command])).to.deep.equal(levels.map((l) => [l.level, `echo ${l.level}`]));
    });

    it("says where its managed settings are (a folder the environment can move) and its command-hook timeout", () => {
      // Copilot CLI gives 30 s; the others 60 s or more.
      expect(host.defaultTimeoutSeconds("command", "PreToolUse")).to.be.at.least(30);
      const managed = host.managedSettings({ QHOOKS_CLAUDE_MANAGED_DIR: sb.root }, "linux");
      if (managed === null) return; // a host with no managed settings: install offers --scope user only
      expect(managed.file.startsWith(`${managed.dir}/`), managed.file).to.equal(true);
      expect(managed.file.endsWith(".json")).to.equal(true);
      expect(Object.keys(managed.onlyManagedHooks).length).to.be.greaterThan(0);
      expect(host.managedSettings({}, "linux")!.dir.startsWith("/")).to.equal(true);
    });

    it("keeps the project's hook tests in its project folder", () => {
      expect(defaultTestFile(sb.project, host.id)).to.equal(join(sb.project, host.projectFolder, "hook-tests.jsonl"));
    });

    it("fires known events only, the tool events among them", () => {
      expect(host.events.length).to.be.greaterThan(0);
      for (const e of host.events) expect(EVENT_NAMES).to.include(e);
      expect(host.events).to.include.members(["PreToolUse", "PostToolUse", "Stop"]);
    });

    /** The project's own settings file of the host. */
    const projectFile = (): string => host.settingsLevels(sb.home, sb.project).find((l) => l.level === "project")!.path;
    /** Where a hook of the host runs: the project named by the host's first variable, or the working directory. */
    const inProject = (cwd: string): { env: Record<string, string>; cwd: string } => {
      const [first] = host.projectDirVariables;
      return first === undefined ? { env: machineWide(), cwd: sb.project } : { env: { ...machineWide(), [first]: sb.project }, cwd };
    };

    it("finds the project by the first of its variables (the working directory for a host that sets none)", async () => {
      const elsewhere = join(sb.root, "elsewhere");
      mkdirSync(elsewhere);
      sb.file(projectFile(), {
        hooks: { [named("PreToolUse")]: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 2" }] }] },
      });
      const r = await sb.run(["run", "PreToolUse", "--dialect", host.id, "--no-log"], {
        input: JSON.stringify(payloadFor("PreToolUse")),
        ...inProject(elsewhere),
      });
      expect(OutcomeSchema.parse(JSON.parse(r.stdout)).blocked, r.stderr).to.equal(true);
    });

    it("answers a block as a block: exit 2 or a blocking decision, never a go-ahead", () => {
      const outcome = outcomeOf("PreToolUse", { decision: "deny", blocked: true, reason: "rm -rf is not allowed" });
      const reply = host.answer(outcome);
      const said = reply.stdout ? JSON.stringify(JSON.parse(reply.stdout)) : "";
      const blocks = reply.exitCode === 2 || /"(deny|block)"/.test(said);
      expect(blocks, JSON.stringify(reply)).to.equal(true);
      expect(`${reply.stderr}${said}`).to.include("rm -rf is not allowed");
    });

    it("gives every handler type a positive default timeout on every event it fires", () => {
      for (const type of HANDLER_TYPES)
        for (const event of host.events) {
          const seconds = host.defaultTimeoutSeconds(type, event);
          expect(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS, `${type} ${event}: ${seconds}`).to.equal(true);
        }
    });

    it("puts a notice where it says the person sees it, and nowhere else; the decision is the same with it", () => {
      const notice = 'qhooks: hook "guard.sh" failed (exit 127)';
      const outcomes = [
        outcomeOf("PreToolUse", { decision: "deny", blocked: true, reason: "rm -rf is not allowed" }),
        outcomeOf("PreToolUse", { decision: "allow" }),
        outcomeOf("Stop", { decision: "block", blocked: true, reason: "tests fail" }),
        outcomeOf("PostToolUse"),
        outcomeOf("Notification"),
        outcomeOf("TaskCompleted", { decision: "block", blocked: true, reason: "not done" }),
      ];
      for (const outcome of outcomes) {
        const plain = host.answer(outcome);
        const told = host.answer(outcome, [notice]);
        const message = told.stdout ? (JSON.parse(told.stdout) as { systemMessage?: string }).systemMessage : undefined;
        const said = `${message ?? ""}\n${told.stderr}`;
        if (!host.showsNotices(outcome)) {
          expect(told, outcome.event).to.deep.equal(plain);
          continue;
        }
        expect(said, outcome.event).to.include(notice);
        const blocks = (r: typeof plain) => r.exitCode === 2 || /"(deny|block)"/.test(r.stdout);
        expect(blocks(told), outcome.event).to.equal(blocks(plain));
        expect(/"allow"/.test(told.stdout), outcome.event).to.equal(/"allow"/.test(plain.stdout));
      }
    });

    it("names every event it fires, and maps each of its names to a qhooks event and back, one to one (a narrowed name or an alias one way)", () => {
      for (const event of host.events) expect(qhooksEventOf(host.eventNames, named(event)), event).to.equal(event);
      const { narrowed, aliases } = host.eventNames;
      for (const [name, event] of host.eventNames.toQhooks) {
        const back = narrowed.has(name)
          ? hostEventOf(host.eventNames, narrowed.get(name)!.event)
          : aliases.has(name)
            ? hostEventOf(host.eventNames, event)
            : name;
        expect(hostEventOf(host.eventNames, event), name).to.equal(back);
        expect(host.eventNames.unmapped.has(name), name).to.equal(false);
      }
      expect(host.eventNames.toHost.size + narrowed.size + aliases.size).to.equal(host.eventNames.toQhooks.size);
    });

    it("loads the hooks of its event names; an event with no qhooks equivalent is one warning naming file and event", () => {
      const user = host.settingsLevels(sb.home, sb.project).find((l) => l.level === "user");
      const unmapped = [...host.eventNames.unmapped];
      const hook = (command: string) => [{ hooks: [{ type: "command", command }] }];
      sb.file(user!.path, {
        hooks: {
          ...Object.fromEntries(unmapped.map((name) => [name, hook(`echo ${name}`)])),
          [named("Stop")]: hook("echo stop"),
          NoSuchEvent: hook("echo none"),
        },
      });
      const snapshot = loadSettings(discoverSettings(sb.home, sb.project, host.id, machineWide()));
      expect(snapshot.hooks.map((h) => [h.event, h.command])).to.deep.equal([["Stop", "echo stop"]]);
      expect(snapshot.warnings).to.have.length(unmapped.length + 1);
      for (const name of unmapped)
        expect(
          snapshot.warnings.some((w) => w.startsWith(`${user!.display}: hooks.${name}: `)),
          name,
        ).to.equal(true);
      expect(snapshot.warnings.at(-1)).to.match(new RegExp(`^${user!.display.replace(/[.]/g, "[.]")}: hooks[.]NoSuchEvent: unknown event`));
    });

    it("judges a payload that names its event in the host's words as that event", async () => {
      sb.file(projectFile(), {
        hooks: { [named("PreToolUse")]: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo no >&2; exit 2" }] }] },
      });
      const payload = { ...payloadFor("PreToolUse"), hook_event_name: named("PreToolUse") };
      const r = await sb.run(["run", named("PreToolUse"), "--dialect", host.id, "--no-log"], { input: JSON.stringify(payload), ...inProject(sb.project) });
      const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
      expect([outcome.event, outcome.blocked], r.stderr).to.deep.equal(["PreToolUse", true]);
    });

    it("answers nothing to say with an empty exit 0", () => {
      const outcome = outcomeOf("PostToolUse");
      expect(host.answer(outcome)).to.deep.equal({ exitCode: 0, stdout: "", stderr: "" });
    });
  });
}
