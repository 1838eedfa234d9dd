import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, REPO_ROOT, Sandbox } from "../support/sandbox.js";

/** The ```sh block of a docs page that contains `marker`. */
function shellBlock(page: string, marker: string): string {
  const text = readFileSync(join(REPO_ROOT, "docs", page), "utf8");
  const found = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes(marker));
  expect(found, `${page}: one sh block with ${marker}`).to.have.length(1);
  return found[0]!;
}

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
 * docs/replay.md and docs/cli.md show `qhooks test add SEQ` on the demo's log: the SEQ must be the demo's blocked
 * rm -rf, and each command says what its comment says. The demo's log is made here as `npm run demo` makes it (each
 * event of demo/session.jsonl through `qhooks run --settings demo/settings.json`), in a sandbox laid out as the
 * page assumes (demo/.demo/events.db and demo/.demo/project under the working directory).
 */
describe("docs: the hook-test example runs on the demo's log as written", function () {
  this.timeout(120_000);

  it("qhooks test add <the SEQ the page gives> saves the rm -rf the demo blocks, and qhooks test passes it", async () => {
    const sb = new Sandbox();
    try {
      const bin = join(sb.root, "bin");
      mkdirSync(bin);
      writeFileSync(join(bin, "qhooks"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
      const work = join(sb.root, "demo", ".demo");
      const project = join(work, "project");
      mkdirSync(join(project, ".qoder"), { recursive: true });
      const hooks = readFileSync(join(REPO_ROOT, "demo", "settings.json"), "utf8").replaceAll(
        "$QODERCN_PROJECT_DIR/demo/hooks",
        join(REPO_ROOT, "demo", "hooks"),
      );
      writeFileSync(join(project, ".qoder", "settings.json"), hooks);
      const db = join(work, "events.db");
      for (const line of readFileSync(join(REPO_ROOT, "demo", "session.jsonl"), "utf8")
        .trim()
        .split("\n")) {
        const event = (JSON.parse(line) as { hook_event_name: string }).hook_event_name;
        const r = await sb.run(["--project-dir", REPO_ROOT, "run", event, "--settings", "demo/settings.json"], {
          input: line,
          cwd: REPO_ROOT,
          env: { QHOOKS_DB: db },
        });
        expect(r.code, r.stderr).to.be.oneOf([0, 2]);
      }
      const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: sb.home, LANG: "C.UTF-8", SHLVL: "1" };
      for (const [page, marker] of [
        ["replay.md", "export QHOOKS_DB=$PWD/demo/.demo/events.db"],
        ["cli.md", "find the event, by its SEQ"],
      ] as const) {
        const block = shellBlock(page, marker);
        const add = block.split("\n").findIndex((l) => l.startsWith("qhooks test add "));
        const lines = block.split("\n");
        // Up to the test add line, verbatim (cli.md's block starts in the project, as its text says).
        const run = lines.slice(0, add + 1).join("\n");
        const r = await bash(page === "cli.md" ? `export QHOOKS_DB=${db}; cd demo/.demo/project\n${run}` : run, sb.root, env);
        expect(r.code, `${page}\n${r.stderr}`).to.equal(0);
        const said = lines[add + 1]!.replace(/^# /, "");
        expect(r.stdout.trim().split("\n").at(-1), page).to.equal(said);
        // The case saved is the rm -rf, and passes.
        const saved = readFileSync(join(project, ".qoder", "hook-tests.jsonl"), "utf8")
          .trim()
          .split("\n");
        expect((JSON.parse(saved.at(-1)!) as { payload: { tool_input: { command: string } } }).payload.tool_input.command).to.equal("rm -rf /tmp/build");
        const test = await bash(`export QHOOKS_DB=${db}; cd demo/.demo/project; qhooks test`, sb.root, env);
        expect(test.code, test.stdout + test.stderr).to.equal(0);
        expect(test.stderr, "no warning for a test run").to.equal("");
        writeFileSync(join(project, ".qoder", "hook-tests.jsonl"), "");
      }
    } finally {
      await sb.cleanup();
    }
  });
});
