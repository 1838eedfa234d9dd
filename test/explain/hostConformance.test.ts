import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFORMANCE_EVENTS, conformanceTable, judgeOnEveryHost, judgeOnHost } from "../../src/explain/hostConformance.js";
import { HOSTS } from "../../src/hosts/hosts.js";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/** The table of docs/hosts.md, between its markers. */
function docsTable(): string {
  const text = readFileSync(join(REPO_ROOT, "docs", "hosts.md"), "utf8");
  const match = /<!-- conformance:start -->\n([\s\S]*?)\n<!-- conformance:end -->/.exec(text);
  expect(match, "docs/hosts.md has no conformance table").to.not.equal(null);
  return match![1]!;
}

describe("host conformance: one event judged by every host's rules", () => {
  it("covers every host of the registry, in its order", () => {
    expect(judgeOnEveryHost("PreToolUse").map((j) => j.host)).to.deep.equal(Object.keys(HOSTS));
  });

  it("reads each host's answer protocol: ask is honoured before a tool and dropped on Stop, with a kind", () => {
    const before = judgeOnHost(HOSTS.claude, "PreToolUse");
    expect([before.allow, before.deny, before.ask]).to.deep.equal(["honoured", "honoured", "honoured"]);
    expect(before.warnings).to.deep.equal([]);
    const stop = judgeOnHost(HOSTS.claude, "Stop");
    expect(stop.ask).to.equal("dropped");
    expect(stop.warnings.map((w) => w.kind)).to.include("ask-dropped");
  });

  it("warns that Cursor drops ask on shell commands in Auto-review mode, saying it is reported, not documented", () => {
    const cursor = judgeOnHost(HOSTS.cursor, "PreToolUse");
    expect(cursor.ask).to.equal("honoured");
    const inMode = cursor.warnings.filter((w) => w.kind === "ask-dropped-in-mode");
    expect(inMode).to.have.length(1);
    expect(inMode[0]!.message).to.match(/beforeShellExecution in Auto-review mode \(reported by users, not in its docs\)/);
    expect(judgeOnHost(HOSTS.claude, "PreToolUse").warnings).to.deep.equal([]);
  });

  it("says when a host has no such event", () => {
    const missing = judgeOnEveryHost("Notification").find((j) => j.hostEvent === null);
    expect(missing, "every host has Notification: pick another event for this test").to.not.equal(undefined);
    expect(missing!.warnings.map((w) => w.kind)).to.deep.equal(["no-such-event"]);
    expect(missing!.ask).to.equal("no-event");
  });

  it("docs/hosts.md's table is what the code says", () => {
    expect(docsTable()).to.equal(conformanceTable(CONFORMANCE_EVENTS));
  });

  describe("qhooks explain --each-host", () => {
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());

    it("prints the docs' rows for the event, and warns of a decision dropped where a hook would run", async () => {
      sb.file(join(sb.project, ".claude", "settings.json"), { hooks: { Stop: [group(undefined, { command: "true", name: "keep-going" })] } });
      const payload = sb.file("stop.json", payloadFor("Stop"));
      const r = await sb.run(["explain", "Stop", "--payload", payload, "--each-host"]);
      expect(r.code, r.stderr).to.equal(0);
      const rows = docsTable()
        .split("\n")
        .filter((l) => l.startsWith("| Stop |"));
      expect(rows).to.have.length(Object.keys(HOSTS).length);
      for (const row of rows) expect(r.stdout).to.include(row);
      expect(r.stdout).to.match(/Claude Code \(claude\): 1 hook would run: keep-going\n {2}warning ask-dropped: /);
      // No hook would run under Qoder: nothing to warn of there.
      expect(r.stdout).to.match(/Qoder CN CLI \(qoder\): 0 hooks would run\n(?! {2}warning)/);
    });

    it("--json has every host's judgement and hooks", async () => {
      const payload = sb.file("pre.json", payloadFor("PreToolUse", { tool_input: { command: "ls" } }));
      const r = await sb.run(["explain", "PreToolUse", "--payload", payload, "--each-host", "--json"]);
      expect(r.code, r.stderr).to.equal(0);
      const parsed = JSON.parse(r.stdout) as { event: string; hosts: { host: string; ask: string; wouldRun: string[] }[] };
      expect(parsed.event).to.equal("PreToolUse");
      expect(parsed.hosts.map((h) => h.host)).to.deep.equal(Object.keys(HOSTS));
      expect(parsed.hosts.every((h) => Array.isArray(h.wouldRun))).to.equal(true);
    });

    it("needs --payload: one line", async () => {
      const r = await sb.run(["explain", "Stop", "--each-host"]);
      expect(r.code).to.not.equal(0);
      expect(r.stderr.trim().split("\n")).to.have.length(1);
      expect(r.stderr).to.include("--each-host goes with --payload");
    });
  });

  it("qhooks explain reads a host's own event name (Gemini CLI's BeforeTool)", async () => {
    const sb = new Sandbox();
    try {
      const payload = sb.file("pre.json", payloadFor("PreToolUse", { tool_input: { command: "ls" } }));
      const r = await sb.run(["--host", "gemini", "explain", "BeforeTool", "--payload", payload, "--json"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(JSON.parse(r.stdout).event).to.equal("PreToolUse");
      const plain = await sb.run(["explain", "BeforeTool", "--payload", payload, "--json"]);
      expect(plain.code, "qoder has no BeforeTool").to.not.equal(0);
    } finally {
      await sb.cleanup();
    }
  });
});
