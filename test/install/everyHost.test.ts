import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";
import { sh } from "../support/shell.js";

interface HostCase {
  readonly host: "gemini" | "codex" | "cursor" | "copilot";
  /** The user's own file, relative to HOME, as a person writes it (their spacing, a hook of their own). */
  readonly file: string;
  readonly userText: string;
  /** The host's name for PreToolUse, the key install and hooks add write under. */
  readonly preToolUse: string;
  /** The fixture of a PreToolUse in the host's own payload shape, and the session qhooks logs it under. */
  readonly fixture: string;
  readonly session: string;
  /** The command of the entry install wrote for PreToolUse, as the host would run it. */
  readonly entryCommand: (file: Record<string, unknown>) => string;
  /** What the host reads as "no": the answer of `run --format hook` when a hook refuses with exit 2. */
  readonly deny: (reason: string) => { code: number; stdout: unknown; stderr: string };
}

const hooksOf = (file: Record<string, unknown>) => file.hooks as Record<string, Record<string, unknown>[]>;
/** The last entry under an event: install appends after the user's own. */
const groupCommand = (event: string) => (file: Record<string, unknown>) => {
  const group = hooksOf(file)[event]!.at(-1) as { hooks: { command: string }[] };
  return group.hooks[0]!.command;
};

const CASES: readonly HostCase[] = [
  {
    host: "gemini",
    file: ".gemini/settings.json",
    userText: `{
  "general": {"vimMode": true},
  "hooks": {
    "AfterAgent": [{"hooks": [{"type": "command", "command": "true", "timeout": 5000}]}]
  }
}
`,
    preToolUse: "BeforeTool",
    fixture: "gemini/BeforeTool.json",
    session: "gem-7f3a",
    entryCommand: groupCommand("BeforeTool"),
    deny: (reason) => ({ code: 2, stdout: "", stderr: reason }),
  },
  {
    host: "codex",
    file: ".codex/hooks.json",
    userText: `{
    "description": "my hooks",
    "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }
}
`,
    preToolUse: "PreToolUse",
    fixture: "codex/PreToolUse.json",
    session: "019a-codex-42",
    entryCommand: groupCommand("PreToolUse"),
    deny: (reason) => ({ code: 2, stdout: "", stderr: reason }),
  },
  {
    host: "cursor",
    file: ".cursor/hooks.json",
    userText: `{
  "version": 1,
  "hooks": {
    "stop": [ { "command": "true", "timeout": 5 } ]
  }
}
`,
    preToolUse: "preToolUse",
    fixture: "cursor/preToolUse.json",
    session: "c-7f3a",
    entryCommand: (file) => hooksOf(file).preToolUse!.at(-1)!.command as string,
    deny: (reason) => ({ code: 0, stdout: { permission: "deny", userMessage: reason, agentMessage: reason }, stderr: "" }),
  },
  {
    host: "copilot",
    file: ".copilot/hooks/hooks.json",
    userText: `{
  "version": 1,
  "hooks": {
    "sessionEnd": [ { "type": "command", "bash": "true", "timeoutSec": 5 } ]
  }
}
`,
    preToolUse: "preToolUse",
    fixture: "copilot/preToolUse.json",
    session: "cp-51e2",
    entryCommand: (file) => hooksOf(file).preToolUse!.at(-1)!.bash as string,
    deny: (reason) => ({ code: 0, stdout: { permissionDecision: "deny", permissionDecisionReason: reason }, stderr: "" }),
  },
];

describe("every host end to end: hooks add, install, an event in its own shape judged and answered as it reads, one log, uninstall", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  for (const c of CASES) {
    it(`${c.host}: the user's guard added with hooks add --host ${c.host} judges, the installed recorder logs, uninstall restores every byte`, async () => {
      const file = join(sb.home, c.file);
      const payload = readFileSync(join(REPO_ROOT, "test", "fixtures", "hosts", c.fixture), "utf8");
      // Gemini CLI's system files are moved into the sandbox, so that the machine's never count.
      const env = { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "etc", "d.json"), GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "etc", "s.json") };
      const run = (args: string[], input?: string) => sb.run(args, { env, ...(input === undefined ? {} : { input }) });

      // The user's own setup: their file, and a guard added in the host's own shape.
      sb.file(file, c.userText);
      const guard = sb.script("guard.sh", 'echo "not on this machine" >&2; exit 2');
      const added = await run(["hooks", "add", "PreToolUse", "--command", guard, "--host", c.host]);
      expect(added.code, added.stderr).to.equal(0);
      expect(added.stdout).to.include(`hooks.${c.preToolUse}[`);
      const withGuard = readFileSync(file, "utf8");
      expect(withGuard.startsWith(c.userText.slice(0, c.userText.indexOf("hooks")))).to.equal(true);

      // install: qhooks' recorder beside the user's hooks, under the host's own event names.
      const installed = await run(["install", c.host]);
      expect(installed.code, installed.stderr).to.equal(0);
      expect(installed.stdout).to.include(`Undo: qhooks uninstall ${c.host}`);
      const document = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      const entry = c.entryCommand(document);
      expect(entry).to.match(new RegExp(`qhooks\\.cjs record ${c.preToolUse} --dialect ${c.host}$`));
      expect(hooksOf(document)[c.preToolUse]).to.have.length(2);

      // The host calls the installed entry with its own payload: it answers nothing, so the host goes on as before.
      const recorded = await sh(entry, payload, sb.project, sb.env({ ...env, PATH: "/usr/bin:/bin" }));
      expect([recorded.code, recorded.stdout, recorded.stderr]).to.deep.equal([0, "", ""]);

      // The same payload judged by the host's hooks (the user's guard; the recorder entry is qhooks' own and skipped),
      // answered in the host's own protocol.
      const judged = await run(["run", c.preToolUse, "--format", "hook", "--host", c.host], payload);
      const want = c.deny("not on this machine");
      expect(judged.code, judged.stderr).to.equal(want.code);
      expect(judged.stdout === "" ? "" : JSON.parse(judged.stdout)).to.deep.equal(want.stdout);
      expect(judged.stderr.trim()).to.equal(want.stderr);

      // One log: the recorded event and the judged one, both under the host, in its session.
      const log = JSON.parse((await run(["log", "--json"])).stdout) as {
        event: string;
        decision: string;
        sessionId: string;
        origin: { host: string | null };
      }[];
      expect(log.map((r) => [r.event, r.decision, r.origin.host, r.sessionId])).to.have.deep.members([
        ["PreToolUse", "recorded", c.host, c.session],
        ["PreToolUse", "deny", c.host, c.session],
      ]);
      const shown = await run(["log"]);
      expect(shown.code, shown.stderr).to.equal(0);
      expect(shown.stdout).to.include(c.host);

      // uninstall: the file exactly as the user had it, their guard included.
      const removed = await run(["uninstall", c.host]);
      expect(removed.code, removed.stderr).to.equal(0);
      expect(removed.stdout).to.include("byte for byte");
      expect(readFileSync(file, "utf8")).to.equal(withGuard);
      expect((await run(["install", "--status"])).stdout).to.match(/, user: not installed/);
    });

    it(`${c.host}: on a HOME without the host's folder, install creates the file and uninstall removes it and the folders it made`, async () => {
      const installed = await sb.run(["install", c.host]);
      expect(installed.code, installed.stderr).to.equal(0);
      expect(existsSync(join(sb.home, c.file))).to.equal(true);
      const removed = await sb.run(["uninstall", c.host]);
      expect(removed.code, removed.stderr).to.equal(0);
      expect(existsSync(join(sb.home, c.file.split("/")[0]!))).to.equal(false);
    });
  }

  it("all four installed at once: each file holds its own host's recorder, and uninstalling one leaves the others", async () => {
    for (const c of CASES) expect((await sb.run(["install", c.host])).code).to.equal(0);
    const status = (await sb.run(["install", "--status"])).stdout;
    for (const c of CASES) expect(readFileSync(join(sb.home, c.file), "utf8")).to.include(`--dialect ${c.host}`);
    expect(status.match(/, user: installed/g)).to.have.length(4);
    expect((await sb.run(["uninstall", "cursor"])).code).to.equal(0);
    expect(existsSync(join(sb.home, ".cursor"))).to.equal(false);
    for (const c of CASES.filter((x) => x.host !== "cursor")) expect(existsSync(join(sb.home, c.file))).to.equal(true);
  });
});
