import { expect } from "chai";
import { hookDisplayNames, shortHookName } from "../../src/display/hookDisplayName.js";

describe("hook names in tables: the script's file name for a hook named by its command", () => {
  it("a command's name becomes its script; a plugin's keeps the plugin; other names stay", () => {
    expect(shortHookName("/home/me/.claude/hooks/check.sh --strict", "/home/me/.claude/hooks/check.sh --strict")).to.equal("check.sh");
    expect(shortHookName('bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', 'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh')).to.equal("guard.sh");
    expect(shortHookName("node /opt/tools/audit.mjs PreToolUse", "node /opt/tools/audit.mjs PreToolUse")).to.equal("audit.mjs");
    expect(shortHookName("my-plugin: ${CLAUDE_PLUGIN_ROOT}/scripts/check.sh", "/plugins/my-plugin/scripts/check.sh")).to.equal("my-plugin: check.sh");
    // Nothing that names a script: kept whole (the column cuts it).
    expect(shortHookName("echo done", "echo done")).to.equal("echo done");
    expect(shortHookName("npm run lint", "npm run lint")).to.equal("npm run lint");
    // A name given in the settings is the hook's name, whatever it looks like.
    expect(shortHookName("block-rm", "./hooks/block-rm.sh")).to.equal("block-rm");
    expect(shortHookName("./hooks/a.sh", "./hooks/b.sh")).to.equal("./hooks/a.sh");
  });

  it("two hooks whose short names would be the same are shown whole; two plugins' check.sh are told apart by the plugin", () => {
    const shown = hookDisplayNames([
      { name: "/a/check.sh", command: "/a/check.sh" },
      { name: "/b/check.sh", command: "/b/check.sh" },
      { name: "one: ${CLAUDE_PLUGIN_ROOT}/check.sh", command: "/p/one/check.sh" },
      { name: "two: ${CLAUDE_PLUGIN_ROOT}/check.sh", command: "/p/two/check.sh" },
      { name: "/c/lint.sh -q", command: "/c/lint.sh -q" },
      { name: "/c/lint.sh -q", command: "/c/lint.sh -q" },
    ]);
    expect(shown("/a/check.sh")).to.equal("/a/check.sh");
    expect(shown("/b/check.sh")).to.equal("/b/check.sh");
    expect(shown("one: ${CLAUDE_PLUGIN_ROOT}/check.sh")).to.equal("one: check.sh");
    expect(shown("two: ${CLAUDE_PLUGIN_ROOT}/check.sh")).to.equal("two: check.sh");
    // The same hook on several rows is one hook.
    expect(shown("/c/lint.sh -q")).to.equal("lint.sh");
    expect(shown("unknown")).to.equal("unknown");
  });
});
