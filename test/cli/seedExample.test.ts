import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/** The seed's quick start, verbatim: ~/.qoder-cn/hooks/block-rm.sh on PreToolUse Bash, through the real CLI. */
describe("the seed's block-rm quick start", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    sb.file(
      `${sb.home}/.qoder-cn/hooks/block-rm.sh`,
      `#!/bin/bash
input=$(cat)
command=$(echo "$input" | jq -r '.tool_input.command')
if echo "$command" | grep -q 'rm -rf'; then
  echo "Dangerous command blocked: $command" >&2
  exit 2
fi
exit 0
`,
      0o755,
    );
    sb.userSettings({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/.qoder-cn/hooks/block-rm.sh" }] }] },
    });
  });
  afterEach(() => sb.cleanup());

  it("blocks rm -rf with exit 2 and the hook's stderr as the reason", async () => {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "rm -rf /tmp/build" } }));
    expect(r.code).to.equal(2);
    expect(r.stderr.trim()).to.equal("Dangerous command blocked: rm -rf /tmp/build");
    expect(r.outcome).to.include({ decision: "deny", blocked: true, reason: "Dangerous command blocked: rm -rf /tmp/build" });
    const hooks = r.outcome!.hooks as Record<string, unknown>[];
    expect(hooks).to.have.length(1);
    expect(hooks[0]).to.include({ level: "user", matcher: "Bash", outcome: "block", exitCode: 2 });
  });

  it("lets other commands through", async () => {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "ls -la" } }));
    expect(r.code).to.equal(0);
    expect(r.outcome).to.include({ decision: "none", blocked: false });
    expect((r.outcome!.hooks as Record<string, unknown>[])[0]).to.include({ outcome: "success", exitCode: 0 });
  });

  it("does not run the guard for other tools", async () => {
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Write", tool_input: { command: "rm -rf /" } }));
    expect(r.code).to.equal(0);
    expect(r.outcome!.hooks).to.deep.equal([]);
  });
});
