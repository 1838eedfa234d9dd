import { expect } from "chai";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { nonEmptyLines } from "../store/storeHelpers.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

const BLOCK_RM = `#!/bin/sh
command=$(cat | sed -n 's/.*"command":"\\([^"]*\\)".*/\\1/p')
case "$command" in *"rm -rf"*) echo "Dangerous command blocked: $command" >&2; exit 2;; esac
exit 0
`;

/** A settings file as people write them: tabs, CRLF, other settings, number forms and escapes JSON.parse would lose. */
const HAND_WRITTEN =
  '{\r\n\t"$schema": "./settings.schema.json",\r\n\t"model": "qwen-coder",\r\n\t"temperature": 0.50,\r\n\t"greeting": "caf\\u00e9",\r\n' +
  '\t"hooks": {\r\n\t\t"Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ],\r\n' +
  '\t\t"PreToolUse": [\r\n\t\t\t{ "matcher": "Write|Edit", "hooks": [ { "type": "command", "command": "npx prettier --check ." } ] }\r\n\t\t]\r\n\t},\r\n' +
  '\t"permissions": { "allow": [ "Bash(ls:*)" ] }\r\n}\r\n';

describe("cli: qhooks hooks add", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const userFile = () => join(sb.home, ".qoder-cn", "settings.json");
  const read = (path: string) => readFileSync(path, "utf8");

  it("the quick start on a machine that already has settings: the guard is added, everything else stays byte for byte", async () => {
    const settings = sb.userSettings(HAND_WRITTEN);
    const guard = sb.file(join(sb.home, ".qoder-cn", "hooks", "block-rm.sh"), BLOCK_RM, 0o755);
    const r = await sb.run(["hooks", "add", "PreToolUse", "--matcher", "Bash", "--command", guard]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Added to ~\/\.qoder-cn\/settings\.json at hooks\.PreToolUse\[1\]\.hooks\[0\]: /);

    const after = read(settings);
    // Only an insertion: the original text is still there around it, in order.
    const inserted = after.length - HAND_WRITTEN.length;
    expect(inserted).to.be.greaterThan(0);
    const at = [...HAND_WRITTEN].findIndex((c, i) => after[i] !== c);
    expect(after.slice(0, at) + after.slice(at + inserted)).to.equal(HAND_WRITTEN);
    // In the file's own style: tabs and CRLF, no bare LF.
    expect(after.slice(at, at + inserted))
      .to.include("\r\n\t\t\t\t")
      .and.not.match(/[^\r]\n/);
    expect(JSON.parse(after).hooks.PreToolUse[1]).to.deep.equal({ matcher: "Bash", hooks: [{ type: "command", command: guard }] });

    // The README's quick start, end to end: the guard blocks, the hooks that were there still run.
    const blocked = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } }));
    expect(blocked.code, blocked.stderr).to.equal(2);
    expect(blocked.stderr).to.equal("Dangerous command blocked: rm -rf /tmp/build\n");
    const edit = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Edit", tool_input: { file_path: "a" } }), ["--no-log"]);
    expect((edit.outcome!.hooks as { command: string }[]).map((h) => h.command)).to.deep.equal(["npx prettier --check ."]);
    const list = await sb.run(["hooks", "--strict"]);
    expect(list.code, list.stdout + list.stderr).to.equal(0);
  });

  it("creates the file, and its directory, when there is none", async () => {
    const r = await sb.run(["hooks", "add", "Stop", "--command", "echo done", "--timeout", "5", "--name", "done"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(read(userFile()))).to.deep.equal({ hooks: { Stop: [{ hooks: [{ type: "command", command: "echo done", timeout: 5, name: "done" }] }] } });
  });

  it("adds to the group with the same matcher, else a new group; the same command twice changes nothing", async () => {
    await sb.run(["hooks", "add", "PreToolUse", "--matcher", "Bash", "--command", "one"]);
    await sb.run(["hooks", "add", "PreToolUse", "--matcher", "Bash", "--command", "two"]);
    await sb.run(["hooks", "add", "PreToolUse", "--command", "three"]);
    const before = read(userFile());
    const again = await sb.run(["hooks", "add", "PreToolUse", "--matcher", "Bash", "--command", "two"]);
    expect(again.code).to.equal(0);
    expect(again.stdout).to.match(/^Already in .*hooks\.PreToolUse\[0\]\.hooks\[1\]/);
    expect(read(userFile())).to.equal(before);
    expect(JSON.parse(before).hooks.PreToolUse).to.deep.equal([
      {
        matcher: "Bash",
        hooks: [
          { type: "command", command: "one" },
          { type: "command", command: "two" },
        ],
      },
      { hooks: [{ type: "command", command: "three" }] },
    ]);
  });

  it("a group written on one line gets the new handler on that line, spaced like its neighbours", async () => {
    const file = sb.userSettings('{\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "a" } ] } ]\n  }\n}\n');
    await sb.run(["hooks", "add", "Stop", "--command", "b"]);
    expect(read(file)).to.equal(
      '{\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "a" }, { "type": "command", "command": "b" } ] } ]\n  }\n}\n',
    );
  });

  it("--level project and local write the project's files, --dialect claude Claude Code's; --file any file, a compact one staying compact", async () => {
    await sb.run(["hooks", "add", "SessionStart", "--command", "echo p", "--level", "project"]);
    await sb.run(["hooks", "add", "SessionStart", "--command", "echo l", "--level", "local"]);
    expect(JSON.parse(read(join(sb.project, ".qoder", "settings.json"))).hooks.SessionStart[0].hooks[0].command).to.equal("echo p");
    expect(JSON.parse(read(join(sb.project, ".qoder", "settings.local.json"))).hooks.SessionStart[0].hooks[0].command).to.equal("echo l");
    expect(existsSync(userFile())).to.equal(false);
    // Claude Code's own files with --dialect claude.
    await sb.run(["--dialect", "claude", "hooks", "add", "Stop", "--command", "echo c"]);
    expect(JSON.parse(read(join(sb.home, ".claude", "settings.json"))).hooks.Stop[0].hooks[0].command).to.equal("echo c");
    const compact = sb.file("guards.json", '{"a":1,"hooks":{}}\n');
    const r = await sb.run(["hooks", "add", "Stop", "--command", "x", "--file", compact]);
    expect(r.code, r.stderr).to.equal(0);
    expect(read(compact)).to.equal('{"a":1,"hooks":{"Stop": [{"hooks":[{"type":"command","command":"x"}]}]}}\n');
  });

  it("edits the file a symlink points to, keeping the link, and keeps the file's mode", async () => {
    const real = sb.file("dotfiles/qoder.json", '{ "hooks": {} }\n', 0o600);
    mkdirSync(join(sb.home, ".qoder-cn"), { recursive: true });
    symlinkSync(real, userFile());
    const r = await sb.run(["hooks", "add", "Stop", "--command", "x"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(lstatSync(userFile()).isSymbolicLink()).to.equal(true);
    expect(readlinkSync(userFile())).to.equal(real);
    expect(JSON.parse(read(real)).hooks.Stop).to.have.length(1);
    expect(statSync(real).mode & 0o777).to.equal(0o600);
  });

  it("refuses, changing nothing, what qhooks would skip or not read: a broken file, a bad regex, a bad timeout, an empty command", async () => {
    const broken = sb.userSettings('{ "hooks": { // a comment\n } }');
    const cases: [string[], RegExp][] = [[["PreToolUse", "--command", "x"], /settings\.json is not valid JSON \(line 1 column \d+/]];
    for (const [args, message] of cases) {
      const r = await sb.run(["hooks", "add", ...args]);
      expect(r.code).to.equal(1);
      expect(nonEmptyLines(r.stderr)).to.have.length(1);
      expect(r.stderr).to.match(message);
      expect(read(broken)).to.equal('{ "hooks": { // a comment\n } }');
    }
    const twice = sb.userSettings('{"hooks":{},"hooks":{"Stop":[]}}');
    const r = await sb.run(["hooks", "add", "Stop", "--command", "x"]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/cannot be edited safely \(is a key given twice\?\)/);
    expect(read(twice)).to.equal('{"hooks":{},"hooks":{"Stop":[]}}');
    const good = sb.userSettings('{ "hooks": {} }');
    for (const [args, message] of [
      [["PreToolUse", "--matcher", "(a)\\1", "--command", "x"], /backreference.*runs for every value/],
      [["PreToolUse", "--matcher", "Bash", "--command", "x", "--timeout", "-1"], /timeout: expected a positive number of seconds/],
      [["PreToolUse", "--command", "x", "--timeout", "soon"], /^qhooks: --timeout: expected a positive number of seconds/],
      [["PreToolUse", "--command", "  "], /command: expected a non-empty command string/],
      [["PreTool", "--command", "x"], /unknown event "PreTool"; did you mean PreToolUse\?/],
      [["PreToolUse", "--command", "x", "--settings", "other.json"], /--settings belongs to qhooks hooks/],
      [["PreToolUse"], /required option '--command <command>'/],
    ] as [string[], RegExp][]) {
      const r = await sb.run(["hooks", "add", ...args]);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(nonEmptyLines(r.stderr), r.stderr).to.have.length(1);
      expect(r.stderr, args.join(" ")).to.match(message);
      expect(read(good)).to.equal('{ "hooks": {} }');
    }
  });
});

describe("cli: qhooks hooks --strict", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("exits 1 when a settings file has any warning, in every format; 0 when all is well", async () => {
    sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true", timout: 5 }] }] } });
    for (const format of ["table", "tsv", "json"]) {
      const r = await sb.run(["hooks", "--strict", "--format", format]);
      expect(r.code, format).to.equal(1);
      expect(nonEmptyLines(r.stderr).at(-1), format).to.equal("qhooks: 1 settings warning (--strict)");
      expect(r.stdout.length).to.be.greaterThan(0);
    }
    const loose = await sb.run(["hooks"]);
    expect(loose.code).to.equal(0);
    sb.userSettings({ $schema: "./settings.schema.json", hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } });
    const clean = await sb.run(["hooks", "--strict"]);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stderr).to.equal("");
  });

  it("tsv: one row per hook, the warnings on stderr", async () => {
    sb.userSettings({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "true" },
              { type: "command", command: "x", timeout: 0 },
            ],
          },
        ],
      },
    });
    const r = await sb.run(["hooks", "--format", "tsv"]);
    expect(r.code).to.equal(0);
    expect(nonEmptyLines(r.stdout)).to.deep.equal([
      "EVENT\tLEVEL\tMATCHER\tNAME\tCOMMAND\tTIMEOUT\tFILE\tPATH",
      "PreToolUse\tuser\tBash\ttrue\ttrue\t60\t~/.qoder-cn/settings.json\thooks.PreToolUse[0].hooks[0]",
    ]);
    expect(nonEmptyLines(r.stderr)).to.have.length(1);
    expect(r.stderr).to.match(/^qhooks: warning: ~\/\.qoder-cn\/settings\.json: hooks\.PreToolUse\[0\]\.hooks\[1\]\.timeout/);
  });

  it("shows what settings files hold escaped: a command or matcher with escape sequences cannot paint the terminal", async () => {
    sb.projectSettings({
      hooks: {
        PreToolUse: [{ matcher: "Bash\u001b[8m", hooks: [{ type: "command", command: "echo hi\u001b]0;owned\u0007\nrm -rf ~" }] }],
        "Stop\u001b[2J": [],
      },
    });
    const r = await sb.run(["hooks"]);
    expect(r.code).to.equal(0);
    // eslint-disable-next-line no-control-regex
    expect(r.stdout).not.to.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).to.include("echo hi\\u001b]0;owned\\u0007\\nrm -rf ~");
  });
});
