import { expect } from "chai";
import { DIALECTS } from "../../src/hosts/hostDialect.js";
import { HOSTS, hostChoicesText } from "../../src/hosts/hosts.js";
import { describeHostDialect } from "./hostDialect.suite.js";
import { Sandbox } from "../support/sandbox.js";

describe("hosts", () => {
  it("every dialect has its host, under its own id", () => {
    expect(Object.keys(HOSTS).sort()).to.deep.equal([...DIALECTS].sort());
    for (const id of DIALECTS) expect(HOSTS[id].id).to.equal(id);
  });
  it("--host is --dialect's other name; the two naming different hosts is one clear line", async () => {
    const sb = new Sandbox();
    try {
      const listed = await sb.run(["hooks", "--host", "gemini", "--json"]);
      expect((JSON.parse(listed.stdout) as { dialect: string }).dialect, listed.stderr).to.equal("gemini");
      const both = await sb.run(["hooks", "--dialect", "claude", "--host", "gemini"]);
      expect([both.code, both.stderr]).to.deep.equal([1, "qhooks: --dialect claude and --host gemini name two hosts; give one\n"]);
    } finally {
      await sb.cleanup();
    }
  });
  it('hostChoicesText names every host with its product, the last after "or"', () => {
    const text = hostChoicesText();
    for (const id of DIALECTS) expect(text).to.include(`${id} (${HOSTS[id].name})`);
    expect(text).to.match(/ or \w+ \([^)]+\)$/);
    expect(text.split(", ")).to.have.length(DIALECTS.length - 1);
  });
  it("install and uninstall name every host in their help and in their unknown-host and missing-host errors", async () => {
    const sb = new Sandbox();
    try {
      for (const command of ["install", "uninstall"]) {
        const help = await sb.run([command, "--help"]);
        expect(help.code, help.stderr).to.equal(0);
        for (const id of DIALECTS) expect(help.stdout.replace(/\s+/g, " "), command).to.include(`${id} (${HOSTS[id].name})`);
        const unknown = await sb.run([command, "windsurf"]);
        expect([unknown.code, unknown.stderr]).to.deep.equal([1, `qhooks: unknown host "windsurf": expected ${hostChoicesText()}\n`]);
      }
      const none = await sb.run(["install"]);
      expect([none.code, none.stderr]).to.deep.equal([1, `qhooks: which agent? qhooks install HOST, where HOST is one of ${hostChoicesText()}\n`]);
    } finally {
      await sb.cleanup();
    }
  });
  for (const id of DIALECTS) describeHostDialect(HOSTS[id]);
});
