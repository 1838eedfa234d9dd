import { expect } from "chai";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { claudeHost } from "../../src/hosts/claude.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { sh } from "../support/shell.js";

type Json = Record<string, unknown>;

/** Every file under `dir` with its bytes, for "nothing was written" and "restored byte for byte". */
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

/**
 * `qhooks install` and `uninstall` on a fresh HOME with a Claude Code setup (user and project hooks, one plugin):
 * the managed drop-in in a temporary managed folder, the user scope in the user's own file; real files, the real CLI,
 * and the installed command line run as Claude Code runs it.
 */
describe("install: qhooks in front of Claude Code, and out again", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let managed: string;
  let marks: string;
  let env: Record<string, string>;
  beforeEach(() => {
    sb = new Sandbox();
    managed = join(sb.root, "managed");
    mkdirSync(managed);
    marks = join(sb.root, "marks");
    mkdirSync(marks);
    env = { QHOOKS_CLAUDE_MANAGED_DIR: managed };
  });
  afterEach(() => sb.cleanup());

  const userFile = () => join(sb.home, ".claude", "settings.json");
  const dropIn = () => join(managed, "managed-settings.d", "50-qhooks.json");
  const mark = (name: string) => ({ type: "command", command: `touch '${join(marks, name)}'` });
  // The user's file as a person writes it: their own spacing, other settings, a long-running hook.
  const userText = () => `{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "enabledPlugins": {"guard-kit@team-tools": true},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [${JSON.stringify({ ...mark("user"), timeout: 900 })}]}]
    }
}
`;

  function claudeSetup(): void {
    sb.file(userFile(), userText());
    sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { PreToolUse: [{ hooks: [mark("project")] }] } });
    const root = join(sb.home, ".claude", "plugins", "cache", "team-tools", "guard-kit", "1.0.0");
    sb.file(join(root, ".claude-plugin", "plugin.json"), { name: "guard-kit", version: "1.0.0" });
    sb.file(join(root, "hooks", "hooks.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [mark("plugin")] }] } });
    sb.file(join(sb.home, ".claude", "plugins", "installed_plugins.json"), {
      version: 2,
      plugins: { "guard-kit@team-tools": [{ scope: "user", installPath: root, version: "1.0.0" }] },
    });
  }

  const run = (args: string[], extra: Record<string, string> = {}) => sb.run(args, { env: { ...env, ...extra } });

  it("managed: --dry-run shows the drop-in and writes nothing; install puts one entry per event; its command line runs every hook; uninstall restores every byte", async () => {
    claudeSetup();
    const before = tree(sb.root);

    const dry = await run(["install", "claude", "--scope", "managed", "--dry-run"]);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include(`--- /dev/null\n+++ ${dropIn()}\n@@ -0,0 +1,`).and.include('+  "allowManagedHooksOnly": true,');
    expect(tree(sb.root)).to.deep.equal(before);

    const installed = await run(["install", "claude"]);
    expect(installed.code, installed.stderr).to.equal(0);
    expect(installed.stdout).to.include("allowManagedHooksOnly").and.include("(3 here now: plugin, user, project)");
    const document = JSON.parse(readFileSync(dropIn(), "utf8")) as { allowManagedHooksOnly: boolean; hooks: Record<string, { hooks: Json[] }[]> };
    expect(document.allowManagedHooksOnly).to.equal(true);
    expect(Object.keys(document.hooks)).to.deep.equal([...claudeHost.events]);
    const entry = document.hooks.PreToolUse![0]!.hooks[0]!;
    expect(entry.command).to.match(
      new RegExp(`^${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} /\\S+/dist/bin/qhooks\\.cjs run PreToolUse --format hook --dialect claude$`),
    );
    expect(entry.timeout).to.be.greaterThan(900);
    // The user's files are untouched: Claude Code keeps reading them, qhooks runs their hooks.
    expect(readFileSync(userFile(), "utf8")).to.equal(userText());

    // As Claude Code runs it: sh -c, no qhooks on PATH, in the project, CLAUDE_PROJECT_DIR set.
    const payload = JSON.stringify({ ...payloadFor("PreToolUse", { tool_input: { command: "ls" } }), hook_event_name: "PreToolUse" });
    const judged = await sh(String(entry.command), payload, sb.project, sb.env({ PATH: "/usr/bin:/bin", CLAUDE_PROJECT_DIR: sb.project }));
    expect(judged.code, judged.stderr).to.equal(0);
    expect(readdirSync(marks).sort()).to.deep.equal(["plugin", "project", "user"]);

    const status = await run(["install", "--status"]);
    expect(status.stdout)
      .to.match(/Claude Code, managed: installed .* 33 events; unchanged since/)
      .and.include("Claude Code, user: not installed");

    const removed = await run(["uninstall", "claude"]);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.include("it did not exist before install");
    const after = tree(sb.root);
    for (const m of ["plugin", "project", "user"]) after.delete(join("marks", m));
    after.delete("events.db");
    for (const k of [...after.keys()]) if (k.startsWith("events.db")) after.delete(k);
    expect(after).to.deep.equal(before);
    expect(readdirSync(managed)).to.deep.equal([]);
  });

  it("done when: a fresh HOME with user, project and plugin hooks; hooks lists them without flags; dry run, install, one event judged by every hook, a missing guard script as a systemMessage, uninstall byte for byte", async () => {
    claudeSetup();
    // A guard whose script is missing, in the project's file: the person must see it, not an unguarded agent.
    const missing = join(sb.project, ".claude", "hooks", "guard.sh");
    sb.file(join(sb.project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ hooks: [mark("project")] }, { matcher: "Bash", hooks: [{ type: "command", command: missing }] }] },
    });

    // In the project, without flags: Claude Code's files, found because only they exist.
    const listed = await run(["hooks", "--json"]);
    expect(listed.code, listed.stderr).to.equal(0);
    const config = JSON.parse(listed.stdout) as { dialect: string; hooks: { level: string; command: string }[] };
    expect(config.dialect).to.equal("claude");
    expect(config.hooks.map((h) => h.level).sort()).to.deep.equal(["plugin", "project", "project", "user"]);
    expect(existsSync(join(sb.home, ".qoder-cn"))).to.equal(false);

    const before = tree(sb.root);
    const dry = await run(["install", "claude", "--dry-run"]);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include(`+++ ${dropIn()}`);
    expect(
      [...tree(sb.root).keys()].filter((k) => !before.has(k)),
      "dry run",
    ).to.deep.equal([]);

    expect((await run(["install", "claude"])).code).to.equal(0);
    const document = JSON.parse(readFileSync(dropIn(), "utf8")) as { hooks: Record<string, { hooks: Json[] }[]> };
    const entry = String(document.hooks.PreToolUse![0]!.hooks[0]!.command);
    const payload = JSON.stringify({ ...payloadFor("PreToolUse", { tool_input: { command: "ls" } }), hook_event_name: "PreToolUse" });
    const judged = await sh(entry, payload, sb.project, sb.env({ PATH: "/usr/bin:/bin", CLAUDE_PROJECT_DIR: sb.project }));
    expect(judged.code, judged.stderr).to.equal(0);
    expect(readdirSync(marks).sort()).to.deep.equal(["plugin", "project", "user"]);
    const answer = JSON.parse(judged.stdout) as { systemMessage?: string };
    expect(answer.systemMessage).to.match(/^qhooks: hook "guard\.sh" failed \(exit 127/);
    const [logged] = JSON.parse((await run(["log", "--json"])).stdout) as { hooks: { name: string; outcome: string }[]; origin: { host: string } }[];
    expect(logged!.origin.host).to.equal("claude");
    expect(logged!.hooks.map((h) => h.outcome).sort()).to.deep.equal(["error", "success", "success", "success"]);

    expect((await run(["uninstall", "claude"])).code).to.equal(0);
    const after = tree(sb.root);
    for (const k of [...after.keys()]) if (/^(marks|notices|home\/\.qhooks)\/|^events\.db/.test(k)) after.delete(k);
    expect(
      [...after.keys()].filter((k) => !before.has(k)),
      "after",
    ).to.deep.equal([]);
    expect(after).to.deep.equal(before);
  });

  it("user scope: recorder entries in ~/.claude/settings.json; uninstall restores the file byte for byte", async () => {
    claudeSetup();
    const installed = await run(["install", "claude", "--scope", "user"]);
    expect(installed.code, installed.stderr).to.equal(0);
    expect(installed.stdout).to.include("Claude Code still runs your user, project, local and plugin hooks itself").and.include("--scope managed");
    const text = readFileSync(userFile(), "utf8");
    expect(text.startsWith('{\n    "model": "opus",\n    "permissions": {"allow": ["Bash(ls:*)"]},')).to.equal(true);
    const hooks = (JSON.parse(text) as { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> }).hooks;
    expect(hooks.Stop![0]!.hooks[0]!.command).to.match(/qhooks\.cjs record Stop --dialect claude$/);
    // A recorder's timeout is never above Claude Code's own default for the event (30 s on UserPromptSubmit), so
    // doctor finds nothing to say about qhooks' own entries.
    expect([hooks.Stop![0]!.hooks[0]!.timeout, hooks.UserPromptSubmit![0]!.hooks[0]!.timeout]).to.deep.equal([60, 30]);
    const doctor = await run(["doctor"]);
    expect(doctor.stdout).to.include("hooks checked").and.not.include("UserPromptSubmit");

    const recorder = hooks.PreToolUse![1]!.hooks[0]!.command;
    const recorded = await sh(recorder, JSON.stringify(payloadFor("PreToolUse")), sb.project, sb.env({ PATH: "/usr/bin:/bin" }));
    expect(recorded.code, recorded.stderr).to.equal(0);
    expect((await run(["log", "--json"])).stdout).to.include('"decision": "recorded"');

    const removed = await run(["uninstall", "claude"]);
    expect(removed.stdout).to.include("byte for byte");
    expect(readFileSync(userFile(), "utf8")).to.equal(userText());
    expect((await run(["install", "--status"])).stdout).to.include("Claude Code, user: not installed");
  });

  it("a recorder and the managed entry both installed: one event is one log row, judged under claude; a recorded event keeps its host", async () => {
    claudeSetup();
    expect((await run(["install", "claude", "--scope", "user"])).code).to.equal(0);
    const installed = await run(["install", "claude"]);
    expect(installed.code, installed.stderr).to.equal(0);
    const document = JSON.parse(readFileSync(dropIn(), "utf8")) as { hooks: Record<string, { hooks: Json[] }[]> };
    const entry = String(document.hooks.PreToolUse![0]!.hooks[0]!.command);
    const payload = JSON.stringify({ ...payloadFor("PreToolUse"), hook_event_name: "PreToolUse" });
    const judged = await sh(entry, payload, sb.project, sb.env({ PATH: "/usr/bin:/bin", CLAUDE_PROJECT_DIR: sb.project }));
    expect(judged.code, judged.stderr).to.equal(0);
    // The user level's recorder entry runs as one of `run`'s hooks, and records nothing: `run` logs the event itself.
    let rows = JSON.parse((await run(["log", "--json"])).stdout) as { decision: string; origin: { host: string | null } }[];
    expect(rows.map((r) => r.decision)).to.deep.equal(["none"]);
    expect(readdirSync(marks).sort()).to.deep.equal(["plugin", "project", "user"]);
    expect(rows[0]!.origin.host).to.equal("claude");

    // The recorder alone (Claude Code running it without the managed entry): the row names the host too.
    const users = JSON.parse(readFileSync(userFile(), "utf8")) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const recorder = users.hooks.Stop![0]!.hooks[0]!.command;
    const recorded = await sh(recorder, JSON.stringify(payloadFor("Stop")), sb.project, sb.env({ PATH: "/usr/bin:/bin" }));
    expect(recorded.code, recorded.stderr).to.equal(0);
    rows = JSON.parse((await run(["log", "--json"])).stdout) as typeof rows;
    const stop = rows.find((r) => r.decision === "recorded");
    expect(stop?.origin.host).to.equal("claude");
  });

  it("uninstall after Claude Code rewrote the file keeps its edit and removes only qhooks' entries", async () => {
    claudeSetup();
    expect((await run(["install", "claude", "--scope", "user"])).code).to.equal(0);
    // Claude Code saves a permission the user granted, rewriting the whole file in its own format.
    const document = JSON.parse(readFileSync(userFile(), "utf8")) as { permissions: { allow: string[] } };
    document.permissions.allow.push("Bash(git status)");
    writeFileSync(userFile(), JSON.stringify(document, null, 2));

    const removed = await run(["uninstall", "claude"]);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.include("changed since install: removed only qhooks' 33 entries, kept everything else");
    const expected = JSON.parse(userText()) as { permissions: { allow: string[] } };
    expected.permissions.allow.push("Bash(git status)");
    expect(JSON.parse(readFileSync(userFile(), "utf8"))).to.deep.equal(expected);
  });

  it("bad inputs: one clear line each, and the user's files unchanged", async () => {
    // Invalid JSON in the target.
    sb.file(userFile(), '{ "hooks": { ');
    let r = await run(["install", "claude", "--scope", "user"]);
    expect(r.code).to.equal(1);
    expect(r.stderr.trim().split("\n")).to.have.length(1);
    expect(r.stderr).to.match(/^qhooks: ~\/\.claude\/settings\.json is not valid JSON .*nothing was changed/);
    expect(readFileSync(userFile(), "utf8")).to.equal('{ "hooks": { ');

    // A qhooks entry written by hand (the old recipe) in the user's file.
    const handMade = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "qhooks run Stop --format hook --dialect claude" }] }] } });
    sb.file(userFile(), handMade);
    r = await run(["install", "claude", "--scope", "user"]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/already calls qhooks at hooks\.Stop\[0\]\.hooks\[0\] .*nothing was changed\n$/);
    expect(readFileSync(userFile(), "utf8")).to.equal(handMade);
    // Reading Claude Code's levels, qhooks leaves that entry out: it would run itself.
    const judged = await sb.runEvent("Stop", payloadFor("Stop"), ["--dialect", "claude"]);
    expect(judged.code, judged.stderr).to.equal(0);
    expect(judged.outcome!.hooks).to.deep.equal([]);

    // A drop-in of the same name made by hand.
    sb.file(dropIn(), handMade);
    r = await run(["install", "claude"]);
    expect(r.code).to.equal(1);
    expect(r.stderr.trim().split("\n")).to.have.length(1);
    expect(readFileSync(dropIn(), "utf8")).to.equal(handMade);

    // An install already there whose file was edited since: uninstall first.
    sb.file(userFile(), "{}\n");
    expect((await run(["install", "claude", "--scope", "user"])).code).to.equal(0);
    writeFileSync(userFile(), `${readFileSync(userFile(), "utf8").trimEnd()} \n`);
    r = await run(["install", "claude", "--scope", "user"]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/changed since; run qhooks uninstall claude first/);

    // Qoder CN CLI has no managed settings; an unknown host.
    r = await run(["install", "qoder", "--scope", "managed"]);
    expect(r.stderr).to.equal("qhooks: Qoder CN CLI has no managed settings; use --scope user\n");
    r = await run(["install", "windsurf"]);
    expect(r.stderr).to.match(/^qhooks: unknown host "windsurf"/);

    // hooks add refuses to write an entry that would have qhooks run itself.
    r = await run(["hooks", "add", "Stop", "--command", "qhooks run Stop --format hook --dialect claude", "--dialect", "claude"]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^qhooks: not added: ~\/\.claude\/settings\.json is read by qhooks itself/);
  });

  it("a managed folder that is not writable: one line that names sudo and --scope user", async function () {
    if (process.getuid?.() === 0) this.skip(); // root writes anywhere
    chmodSync(managed, 0o555);
    const r = await run(["install", "claude"]);
    chmodSync(managed, 0o755);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^qhooks: .* is not writable .*sudo.*--scope user.*nothing was changed\n$/);
    expect(existsSync(dropIn())).to.equal(false);
  });

  it("qoder: install records every classic event in ~/.qoder-cn/settings.json, and uninstall removes the file it created", async () => {
    const r = await run(["install", "qoder"]);
    expect(r.code, r.stderr).to.equal(0);
    const hooks = (JSON.parse(readFileSync(join(sb.home, ".qoder-cn", "settings.json"), "utf8")) as { hooks: Json }).hooks;
    expect(Object.keys(hooks)).to.have.length(12);
    expect((await run(["uninstall", "qoder"])).code).to.equal(0);
    expect(existsSync(join(sb.home, ".qoder-cn", "settings.json"))).to.equal(false);
  });
});
