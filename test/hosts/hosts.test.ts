import { expect } from "chai";
import { DIALECTS } from "../../src/hosts/hostDialect.js";
import { HOSTS } from "../../src/hosts/hosts.js";
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
  for (const id of DIALECTS) describeHostDialect(HOSTS[id]);
});
