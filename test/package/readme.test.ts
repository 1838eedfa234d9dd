import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, REPO_ROOT, Sandbox } from "../support/sandbox.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The fenced code blocks of the README, in order, with their language. */
const blocks = [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));

/** A command run in the sandbox through bash, as a user would paste it into a terminal. */
function bash(code: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", code], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ code: status, stdout, stderr }));
  });
}

/**
 * The README's shell blocks that do not run in the sandbox, each named by a line of its own, with the reason. Every
 * other ```sh block runs verbatim, in order, in one sandbox (a temporary HOME and project, qhooks on PATH).
 */
const SKIPPED: readonly { readonly marker: string; readonly reason: string }[] = [
  {
    marker: "npm install && npm run demo",
    reason: "a fresh clone's first commands: the network (npm install), and the test suite itself (npm test) from within it",
  },
  {
    marker: "npm link",
    reason: "installs qhooks on PATH for the machine (network, the global npm prefix); the sandbox puts the built CLI on PATH instead",
  },
];

describe("README: a page read in five minutes, whose examples run as written", () => {
  it("is at most 300 lines and starts with the two commands for a fresh clone", () => {
    const lines = README.split("\n");
    expect(lines.length).to.be.at.most(300);
    const top = blocks[0]!;
    expect(lines.slice(0, 8).join("\n")).to.include(top.code);
    expect(top.code)
      .to.match(/^npm install && npm run demo\b/m)
      .and.match(/^npm test\b/m);
  });

  it("links every page of docs/, CONTRIBUTING.md and CHANGELOG.md", () => {
    const pages = readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md"));
    expect(pages.length).to.be.greaterThan(10);
    for (const page of pages) expect(README, page).to.include(`](docs/${page})`);
    expect(README).to.include("](CONTRIBUTING.md)").and.include("](CHANGELOG.md)");
  });

  it("its shell examples run verbatim: the rm -rf guard blocks, recording works with Qoder and Claude Code, trust answers", async () => {
    const sb = new Sandbox();
    try {
      // `qhooks` on PATH as `npm link` puts it there, and a stand-in for the `claude` binary that notes its arguments.
      const bin = join(sb.root, "bin");
      mkdirSync(bin);
      writeFileSync(join(bin, "qhooks"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
      writeFileSync(join(bin, "claude"), `#!/bin/sh\necho "$@" > "${join(sb.root, "claude-args")}"\n`, { mode: 0o755 });
      const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: sb.home, LANG: "C.UTF-8", SHLVL: "1" };
      const shell = blocks.filter((b) => b.lang === "sh");
      // Every block the list names is one of the README's (a skip outlives no edit), and only those are skipped.
      for (const skip of SKIPPED)
        expect(
          shell.filter((b) => b.code.includes(skip.marker)),
          skip.marker,
        ).to.have.length(1);
      const examples = shell.filter((b) => !SKIPPED.some((skip) => b.code.includes(skip.marker)));
      expect(examples.length)
        .to.equal(shell.length - SKIPPED.length)
        .and.to.be.at.least(4);
      const results = [];
      for (const example of examples) {
        const r = await bash(example.code, sb.project, env);
        results.push(r);
        const said = `${example.code}\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`;
        expect(r.code, said).to.equal(0); // the last command of each block succeeds
        expect(r.stderr, said).not.to.match(/command not found|No such file/);
        // Warnings and notes may be said (nothing to replay yet, the other host's files...); an error line may not.
        expect(
          r.stderr.split("\n").filter((l) => l.startsWith("qhooks: ") && !/^qhooks: (warning|note): /.test(l)),
          said,
        ).to.deep.equal([]);
      }
      // The guard: the outcome says deny, the reason is the hook's stderr, and the log keeps the block.
      const guard = results[examples.findIndex((e) => e.code.includes("block-rm.sh"))]!;
      expect(guard.stdout)
        .to.match(/"decision": "deny"/)
        .and.match(/"blocked": true/);
      expect(guard.stderr).to.include("Dangerous command blocked: rm -rf /tmp/build\n");
      expect(guard.stdout).to.match(/deny/).and.to.include("block-rm.sh");
      // Claude Code was started with the recorder's settings, which qhooks reads without a warning.
      expect(readFileSync(join(sb.root, "claude-args"), "utf8")).to.equal("--settings recorder.json\n");
      const recorder = await sb.run(["hooks", "--dialect", "claude", "--settings", join(sb.project, "recorder.json"), "--strict"], { env: { HOME: sb.home } });
      expect(recorder.code, recorder.stderr).to.equal(0);
    } finally {
      await sb.cleanup();
    }
  });

  it("its JSON examples are settings files qhooks reads without a warning", async () => {
    const examples = blocks.filter((b) => b.lang === "json");
    expect(examples.length).to.be.at.least(2);
    for (const example of examples) {
      const sb = new Sandbox();
      try {
        sb.userSettings(JSON.parse(example.code) as Record<string, unknown>);
        const r = await sb.run(["hooks", "--strict"]);
        expect(r.code, `${example.code}\n${r.stdout}${r.stderr}`).to.equal(0);
      } finally {
        await sb.cleanup();
      }
    }
  });

  it("its library example runs as written, against the package as installed, and prints what its comment says", async () => {
    const example = blocks.find((b) => b.lang === "js");
    expect(example, "a js block").not.to.equal(undefined);
    const said = /console\.log\(.*\/\/ (.+)$/m.exec(example!.code)?.[1];
    expect(said, "the comment after console.log").not.to.equal(undefined);
    const sb = new Sandbox();
    try {
      // `npm install qhooks` in the agent's project: node_modules/qhooks is the package.
      mkdirSync(join(sb.project, "node_modules"));
      symlinkSync(REPO_ROOT, join(sb.project, "node_modules", "qhooks"), "dir");
      writeFileSync(join(sb.project, "agent.mjs"), example!.code);
      const r = await bash(`"${process.execPath}" agent.mjs`, sb.project, { PATH: process.env.PATH, HOME: sb.home, LANG: "C.UTF-8" });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.equal("");
      expect(r.stdout).to.equal(`${said!.trim()}\n`);
    } finally {
      await sb.cleanup();
    }
  });
});
