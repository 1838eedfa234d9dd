import { expect } from "chai";
import { loadSettings, type SettingsSnapshot } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { Sandbox } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** Handler fields and types as settings files write them: what is read, what is warned about, what passes silently. */
describe("handlers: fields and types in settings", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const load = (hooks: Json): SettingsSnapshot => {
    sb.projectSettings({ hooks });
    return loadSettings(discoverSettings(sb.home, sb.project));
  };

  it("every handler type with its fields loads without a warning; descriptive keys (group description and id, handler id) pass silently", () => {
    const s = load({
      PreToolUse: [
        {
          description: "guards",
          id: "g1",
          matcher: "Bash",
          hooks: [
            {
              type: "command",
              command: "echo a",
              shell: "bash",
              async: false,
              once: true,
              statusMessage: "checking",
              onFailure: "block",
              id: "h1",
              timeout: 5,
              name: "a",
            },
            { type: "http", url: "http://127.0.0.1:9/hook", headers: { Authorization: "Bearer $TOKEN" }, allowedEnvVars: ["TOKEN"], timeout: 2 },
            { type: "prompt", prompt: "Is $ARGUMENTS safe?", model: "small" },
            { type: "agent", prompt: "Check the tests" },
            { type: "mcp_tool", server: "memory", tool: "check", input: { q: 1 } },
          ],
        },
      ],
    });
    expect(s.warnings).to.deep.equal([]);
    expect(s.hooks.map((h) => [h.handler.type, h.command])).to.deep.equal([
      ["command", "echo a"],
      ["http", "POST http://127.0.0.1:9/hook"],
      ["prompt", "prompt: Is $ARGUMENTS safe?"],
      ["agent", "agent: Check the tests"],
      ["mcp_tool", "mcp_tool memory/check"],
    ]);
  });

  it("unknown keys: one warning per entry, naming each key, with a did-you-mean; the handler still applies", () => {
    const s = load({
      Stop: [
        {
          hooks: [
            { type: "command", command: "echo x", asyn: true, colour: "red" },
            { type: "command", command: "echo y", onFailur: "block" },
          ],
        },
      ],
    });
    expect(s.warnings).to.deep.equal([
      '.qoder/settings.json: hooks.Stop[0].hooks[0]: unknown keys "asyn" (did you mean "async"?), "colour", ignored',
      '.qoder/settings.json: hooks.Stop[0].hooks[1].onFailur: unknown key (did you mean "onFailure"?), ignored',
    ]);
    expect(s.hooks.map((h) => h.command)).to.deep.equal(["echo x", "echo y"]);
  });

  it("a key of another handler type is unknown to this one (url on a command)", () => {
    const s = load({ Stop: [{ hooks: [{ type: "command", command: "echo x", url: "http://127.0.0.1/" }] }] });
    expect(s.warnings).to.deep.equal([".qoder/settings.json: hooks.Stop[0].hooks[0].url: unknown key, ignored"]);
  });

  const bad: ReadonlyArray<readonly [string, Json, string]> = [
    ["an unknown type", { type: "webhook", url: "http://x/" }, 'hooks.Stop[0].hooks[0].type: expected "command", "http", "prompt", "agent" or "mcp_tool"'],
    ["an http hook without a URL", { type: "http" }, "hooks.Stop[0].hooks[0].url: expected an http:// or https:// URL"],
    ["an http hook with a file: URL", { type: "http", url: "file:///etc/passwd" }, "hooks.Stop[0].hooks[0].url: expected an http:// or https:// URL"],
    [
      "headers that are not strings",
      { type: "http", url: "http://127.0.0.1/", headers: { X: 1 } },
      "hooks.Stop[0].hooks[0].headers.X: expected a string header value",
    ],
    ["a prompt hook without a prompt", { type: "prompt" }, "hooks.Stop[0].hooks[0].prompt: expected a non-empty prompt"],
    ["an mcp_tool hook without a tool", { type: "mcp_tool", server: "s" }, "hooks.Stop[0].hooks[0].tool: expected a non-empty tool name"],
    ["async that is not a boolean", { type: "command", command: "echo", async: "yes" }, "hooks.Stop[0].hooks[0].async: expected true or false"],
    ["an unknown onFailure", { type: "command", command: "echo", onFailure: "explode" }, 'hooks.Stop[0].hooks[0].onFailure: expected "block" or "continue"'],
    ["an empty shell", { type: "command", command: "echo", shell: "" }, "hooks.Stop[0].hooks[0].shell: expected a non-empty shell"],
  ];
  for (const [title, handler, warning] of bad) {
    it(`${title}: one warning, that hook skipped, its neighbour kept`, () => {
      const s = load({ Stop: [{ hooks: [handler, { type: "command", command: "echo neighbour" }] }] });
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.satisfy((w: string) => w.startsWith(`.qoder/settings.json: ${warning}`), s.warnings[0]);
      expect(s.hooks.map((h) => h.command)).to.deep.equal(["echo neighbour"]);
    });
  }

  it('onFailure: "block" on an event that cannot be blocked, or on an async hook, is warned about; the hook applies', () => {
    const s = load({
      Notification: [{ hooks: [{ type: "command", command: "echo n", onFailure: "block" }] }],
      Stop: [{ hooks: [{ type: "command", command: "echo s", onFailure: "block", async: true }] }],
    });
    expect(s.warnings).to.deep.equal([
      ".qoder/settings.json: hooks.Notification[0].hooks[0].onFailure: Notification cannot be blocked; a failure of this hook stays an error",
      ".qoder/settings.json: hooks.Stop[0].hooks[0].onFailure: an async hook never changes the outcome; a failure of this hook stays an error",
    ]);
    expect(s.hooks).to.have.length(2);
  });

  it("qhooks hooks --json lists each handler with its type and fields (statusMessage included)", async () => {
    sb.userSettings({ hooks: { Stop: [{ hooks: [{ type: "http", url: "http://127.0.0.1:9/x", statusMessage: "Checking the build", async: true }] }] } });
    const r = await sb.run(["hooks", "--json"]);
    expect(r.code).to.equal(0);
    const [hook] = (JSON.parse(r.stdout) as { hooks: Json[] }).hooks;
    expect(hook!.command).to.equal("POST http://127.0.0.1:9/x");
    expect(hook!.handler).to.deep.equal({ type: "http", url: "http://127.0.0.1:9/x", statusMessage: "Checking the build", async: true });
  });
});
