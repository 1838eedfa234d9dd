#!/usr/bin/env node
// The demo: a recorded agent session (demo/session.jsonl) goes event by event through the real `qhooks` CLI with
// the sample hooks of demo/settings.json, and each decision is shown. It uses only these bundled files, a log in
// demo/.demo/ (reset at every run) and a throwaway HOME there: never your own settings or log.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const work = join(repo, "demo", ".demo");
const db = join(work, "events.db");
const cli = join(repo, "dist", "bin", "qhooks.cjs");
rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, "home"), { recursive: true });

const env = { ...process.env, HOME: join(work, "home"), QHOOKS_DB: db };
delete env.QHOOKS_CALL_CHAIN;
const qhooks = (args, input) => spawnSync(process.execPath, [cli, "--project-dir", repo, ...args], { input, env, encoding: "utf8", cwd: repo });

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const mark = { success: "ok", block: "BLOCK", error: "error", "invalid-output": "bad output", timeout: "timeout" };

console.log(bold("qhooks demo: one recorded agent session through the sample hooks of demo/settings.json\n"));
const events = readFileSync(join(repo, "demo", "session.jsonl"), "utf8")
  .trim()
  .split("\n");
events.forEach((line, i) => {
  const payload = JSON.parse(line);
  const event = payload.hook_event_name;
  const r = qhooks(["run", event, "--settings", "demo/settings.json"], line);
  if (r.status !== 0 && r.status !== 2) {
    console.log(`${String(i + 1).padStart(2)} ${event}: qhooks failed (exit ${r.status}): ${r.stderr.trim()}`);
    process.exitCode = 1;
    return;
  }
  const o = JSON.parse(r.stdout);
  const what = payload.tool_input?.command ?? payload.tool_input?.file_path ?? payload.prompt ?? payload.source ?? payload.reason ?? "";
  console.log(`${String(i + 1).padStart(2)} ${bold(event.padEnd(18))} ${payload.tool_name ?? ""} ${what}`.trimEnd());
  const hooks = o.hooks.length ? o.hooks.map((h) => `${h.name} (${mark[h.outcome]}, ${h.durationMs} ms)`).join(", ") : "no hook matched";
  console.log(`     hooks:    ${hooks}`);
  const decision = o.blocked ? bold(o.decision.toUpperCase()) : o.decision;
  console.log(`     decision: ${decision}${o.reason ? `: ${o.reason}` : ""}   (exit ${r.status})`);
  for (const c of o.additionalContext) console.log(`     context:  ${c}`);
  for (const m of o.systemMessages) console.log(`     message:  ${m}`);
});

// The listings print tables on a terminal and tab-separated rows into a pipe (which is what they get here): ask
// for the table a person running the command would see, as wide as the demo's own terminal.
const LISTINGS = new Set(["log", "sessions", "stats"]);
if (process.stdout.columns) env.COLUMNS = String(process.stdout.columns);
const show = (title, args) => {
  console.log(`\n${bold(`$ qhooks ${args.join(" ")}`)}   # ${title}`);
  const r = qhooks(LISTINGS.has(args[0]) ? [...args, "--format", "table"] : args);
  process.stdout.write(r.stdout);
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exitCode = 1;
  }
};
console.log(`\nEvery event, hook run and decision above is in the log ${db}:`);
show("the audit trail, newest first", ["log", "--limit", "8"]);
show("only what was blocked", ["log", "--blocked"]);
show("one row per session", ["sessions"]);
show("per event and per hook", ["stats"]);
show("the hash chain is intact", ["verify"]);

console.log(`\n${bold("Would a stricter config have decided differently?")} demo/stricter.json denies force pushes and edits of src/checkout.ts.`);
show("re-judge the session with the new hooks (they run for real, with QHOOKS_REPLAY=1; --yes: without asking)", [
  "replay",
  "--session",
  "demo-7f3a",
  "--settings",
  "demo/stricter.json",
  "--yes",
]);

// A blocked decision kept as a test of a project: the demo's own project in demo/.demo/project, whose
// .qoder/settings.json holds the sample hooks (named by their path here: the project is elsewhere).
const project = join(work, "project");
mkdirSync(join(project, ".qoder"), { recursive: true });
const sampleHooks = readFileSync(join(repo, "demo", "settings.json"), "utf8").replaceAll("$QODERCN_PROJECT_DIR/demo/hooks", join(repo, "demo", "hooks"));
writeFileSync(join(project, ".qoder", "settings.json"), sampleHooks);
const inProject = (title, args) => {
  console.log(`\n${bold(`$ qhooks ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(" ")}`)}   # ${title}`);
  const r = spawnSync(process.execPath, [cli, ...args], { env: { ...env, QODERCN_PROJECT_DIR: project }, encoding: "utf8", cwd: project });
  process.stdout.write(r.stdout + r.stderr);
  if (r.status !== 0) process.exitCode = 1;
};
const rm = JSON.parse(qhooks(["log", "--blocked", "--grep", "rm -rf", "--json", "-n", "1"]).stdout)[0];
console.log(`\n${bold("Why was it blocked?")} Every hook of the configuration logged with the event, and what became of each:`);
show("which hook decided, and why the others did not", ["explain", String(rm.seq)]);
console.log(`\n${bold("Keep a decision as a test.")} The blocked rm -rf (#${rm.seq}), in a project whose settings hold the sample hooks (demo/.demo/project):`);
inProject("save the event and its decision to .qoder/hook-tests.jsonl (one JSON line per case)", [
  "test",
  "add",
  String(rm.seq),
  "--name",
  "rm -rf is denied",
  "--ran",
  "block-rm",
]);
inProject("judge every case with the settings in force (hooks run for real, with QHOOKS_TEST=1; nothing is logged)", ["test"]);

// Last, the session to look at rather than read: one HTML file, with no network needed to open it.
const report = join(work, "report.html");
console.log(`\n${bold(`$ qhooks report --session demo-7f3a -o ${report}`)}   # the session as a timeline: hooks as bars, decisions by colour`);
const made = qhooks(["report", "--session", "demo-7f3a", "-o", report]);
process.stdout.write(made.stdout);
if (made.status !== 0) {
  process.stderr.write(made.stderr);
  process.exitCode = 1;
} else {
  console.log(`Open it in a browser: ${report}`);
}
