import { expect } from "chai";
import { SUMMARY_LENGTH, toolInputSummary } from "../../src/core/toolInputSummary.js";

describe("toolInputSummary: what the agent tried, in a column", () => {
  const tool = (tool_name: string, tool_input: unknown) => ({ hook_event_name: "PreToolUse", tool_name, tool_input });

  it("says the Bash command, the file, the URL, the search", () => {
    expect(toolInputSummary(tool("Bash", { command: "rm -rf /tmp/build", description: "clean" }))).to.equal("rm -rf /tmp/build");
    expect(toolInputSummary(tool("Write", { file_path: "/p/src/a.ts", content: "x" }))).to.equal("/p/src/a.ts");
    expect(toolInputSummary(tool("NotebookEdit", { notebook_path: "/p/n.ipynb", new_source: "" }))).to.equal("/p/n.ipynb");
    expect(toolInputSummary(tool("WebFetch", { url: "https://example.com/x", prompt: "read" }))).to.equal("https://example.com/x");
    expect(toolInputSummary(tool("Grep", { pattern: "TODO", path: "src" }))).to.equal("TODO in src");
    expect(toolInputSummary(tool("Glob", { pattern: "**/*.ts" }))).to.equal("**/*.ts");
    expect(toolInputSummary(tool("WebSearch", { query: "rxjs retry" }))).to.equal("rxjs retry");
    expect(toolInputSummary(tool("Task", { description: "review the diff", prompt: "long..." }))).to.equal("review the diff");
  });

  it("names an MCP tool as server.tool with its first two scalar arguments", () => {
    expect(toolInputSummary(tool("mcp__github__create_issue", { repo: "a/b", title: "Bug", body: "long", labels: ["x"] }))).to.equal(
      'github.create_issue repo="a/b" title="Bug"',
    );
    expect(toolInputSummary(tool("mcp__db__query", { limit: 5, dry: true, sql: "select" }))).to.equal("db.query limit=5 dry=true");
  });

  it("says the prompt of UserPromptSubmit", () => {
    expect(toolInputSummary({ hook_event_name: "UserPromptSubmit", prompt: "fix the tests\nplease" })).to.equal("fix the tests ⏎ please");
  });

  it("keeps to one line and a column's width", () => {
    const long = toolInputSummary(tool("Bash", { command: `echo ${"x".repeat(500)}` }))!;
    expect(long).to.have.length(SUMMARY_LENGTH);
    expect(long.endsWith("…")).to.equal(true);
    expect(toolInputSummary(tool("Bash", { command: "a\u0000b\tc" }))).to.equal("a b c");
  });

  it("says nothing when there is nothing to say", () => {
    for (const payload of [
      null,
      "text",
      [],
      {},
      { hook_event_name: "Stop" },
      tool("Bash", "not an object"),
      tool("X", { n: [1] }),
      tool("Bash", { command: "  " }),
    ])
      expect(toolInputSummary(payload), JSON.stringify(payload)).to.equal(null);
  });
});
