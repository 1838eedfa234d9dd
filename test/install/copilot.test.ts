import { expect } from "chai";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";
import { sh } from "../support/shell.js";

/** Every file under `dir` with its bytes, for "nothing was written". */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, "base64"));
    }
  };
  walk(dir);
  return files;
}

const fixture = (event: string): string => readFileSync(join(REPO_ROOT, "test", "fixtures", "hosts", "copilot", `${event}.json`), "utf8");

describe("install: the qhooks recorder in front of Copilot CLI, and out again", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const run = (args: string[], input?: string) => sb.run(args, { cwd: sb.project, ...(input === undefined ? {} : { input }) });
  const userFile = () => join(sb.home, ".copilot", "hooks", "hooks.json");
  // The user's own file as a person writes it: their spacing, a hook of their own.
  const userText = `{
  "version": 1,
  "hooks": {
    "sessionStart": [ { "type": "command", "bash": "echo hi >> ~/copilot.log", "timeoutSec": 5 } ]
  }
}
`;

  it("--dry-run writes nothing; install adds a recorder entry per event in Copilot CLI's shape; events are judged and logged under copilot; uninstall restores every byte", async () => {
    sb.file(userFile(), userText);
    sb.file(join(sb.project, ".github", "hooks", "guard.json"), {
      version: 1,
      hooks: {
        preToolUse: [
          { type: "command", bash: `grep -q -- '--force' && echo '{"permissionDecision":"deny","permissionDecisionReason":"no force pushes"}'; exit 0` },
        ],
      },
    });
    const before = tree(sb.root);
    const dry = await run(["install", "copilot", "--dry-run"]);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include('"agentStop"').and.include("dry run: nothing was written");
    expect(tree(sb.root)).to.deep.equal(before);

    const installed = await run(["install", "copilot"]);
    expect(installed.code, installed.stderr).to.equal(0);
    // Each level once, though Copilot CLI reads several files at each, and its installed plugins.
    expect(installed.stdout).to.include("Copilot CLI still runs your system-defaults, user, project, local and plugin hooks itself");
    const text = readFileSync(userFile(), "utf8");
    expect(
      text.startsWith('{\n  "version": 1,\n  "hooks": {\n    "sessionStart": [ { "type": "command", "bash": "echo hi >> ~/copilot.log", "timeoutSec": 5 }'),
    ).to.equal(true);
    const hooks = (JSON.parse(text) as { hooks: Record<string, { type: string; bash: string; timeoutSec: number }[]> }).hooks;
    expect(Object.keys(hooks)).to.deep.equal([
      "sessionStart",
      "preToolUse",
      "permissionRequest",
      "postToolUse",
      "postToolUseFailure",
      "userPromptSubmitted",
      "sessionEnd",
      "agentStop",
      "subagentStart",
      "subagentStop",
      "preCompact",
      "notification",
    ]);
    const recorder = hooks.preToolUse![0]!;
    expect(recorder.type).to.equal("command");
    expect(recorder.bash).to.match(/qhooks\.cjs record preToolUse --dialect copilot$/);
    expect(recorder.timeoutSec).to.be.a("number");
    // As Copilot CLI loads them: the user's hook, then qhooks' recorder, in seconds.
    const listed = JSON.parse((await run(["hooks", "--host", "copilot", "--json"])).stdout) as {
      hooks: { event: string; command: string; timeoutSeconds: number }[];
    };
    expect(listed.hooks.filter((h) => h.event === "SessionStart").map((h) => [h.command.includes("qhooks.cjs record"), h.timeoutSeconds])).to.deep.equal([
      [false, 5],
      [true, recorder.timeoutSec],
    ]);

    // Copilot CLI calls the recorder with its own payload: the event is logged under its host.
    const recorded = await sh(recorder.bash, fixture("preToolUse"), sb.project, sb.env({ PATH: "/usr/bin:/bin" }));
    expect(recorded.code, recorded.stderr).to.equal(0);
    // The repository's guard judges the same payload, answered as Copilot CLI reads it.
    const judged = await run(["run", "preToolUse", "--format", "hook", "--host", "copilot"], fixture("preToolUse"));
    expect([judged.code, judged.stderr]).to.deep.equal([0, ""]);
    expect(JSON.parse(judged.stdout)).to.deep.equal({ permissionDecision: "deny", permissionDecisionReason: "no force pushes" });
    // The recorder Copilot CLI called, and the run (which ran the user's entries, the recorder among them, which
    // records nothing then: the run logs the event itself): both under copilot, the recorded one as its sender.
    const log = JSON.parse((await run(["log", "--json"])).stdout) as { event: string; decision: string; sessionId: string; origin: { host: string | null } }[];
    expect(log.map((r) => [r.event, r.decision, r.origin.host, r.sessionId])).to.have.deep.members([
      ["PreToolUse", "recorded", "copilot", "cp-51e2"],
      ["PreToolUse", "deny", "copilot", "cp-51e2"],
    ]);

    const removed = await run(["uninstall", "copilot"]);
    expect(removed.stdout).to.include("byte for byte");
    expect(readFileSync(userFile(), "utf8")).to.equal(userText);
    expect((await run(["install", "--status"])).stdout).to.include("Copilot CLI, user: not installed");
  });

  it("on a HOME without Copilot CLI's folder install creates hooks.json with version 1; uninstall removes it and the folders it made", async () => {
    const installed = await run(["install", "copilot"]);
    expect(installed.code, installed.stderr).to.equal(0);
    expect((JSON.parse(readFileSync(userFile(), "utf8")) as { version: number }).version).to.equal(1);
    const removed = await run(["uninstall", "copilot"]);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(existsSync(join(sb.home, ".copilot"))).to.equal(false);
  });

  it("an entry of the user's own that already calls qhooks is one clear line, and nothing is written", async () => {
    const own = `${JSON.stringify({ version: 1, hooks: { agentStop: [{ type: "command", bash: "qhooks run agentStop --format hook --host copilot" }] } })}\n`;
    sb.file(userFile(), own);
    const r = await run(["install", "copilot"]);
    expect([r.code, r.stdout]).to.deep.equal([1, ""]);
    expect(r.stderr).to.match(/^qhooks: ~\/\.copilot\/hooks\/hooks\.json already calls qhooks at hooks\.agentStop\[0\] .*nothing was changed\n$/);
    expect(readFileSync(userFile(), "utf8")).to.equal(own);
  });
});
