import { expect } from "chai";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { loadSettings, type SettingsSnapshot } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { hookField, mark, markSet, settings, stderrLines, warningLines } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Contract 1.2: validation is per entry, never per file. Each bad entry is exactly one warning naming the file and
 * the JSON path; that entry is skipped and its neighbours apply. Real files on disk, read the way the CLI reads them.
 */
describe("settings validation, entry by entry", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const load = (): SettingsSnapshot => loadSettings(discoverSettings(sb.home, sb.project));
  const commands = (s: SettingsSnapshot) => s.hooks.map((h) => h.command);
  const good = (tag: string) => ({ type: "command", command: `echo ${tag}` });

  /** Writes the project file with one bad handler at hooks.PreToolUse[1].hooks[0], between good neighbours. */
  function badHandler(handler: Json): SettingsSnapshot {
    sb.projectSettings(
      settings({
        PreToolUse: [
          { matcher: "Bash", hooks: [good("before")] },
          { matcher: "Bash", hooks: [handler, good("after")] },
        ],
        Stop: [{ hooks: [good("other-event")] }],
      }),
    );
    return load();
  }

  it("an unknown event key: one warning with a did-you-mean; the known events still apply", () => {
    sb.projectSettings(settings({ PreTooluse: [{ hooks: [good("typo")] }], PreToolUse: [{ hooks: [good("ok")] }] }));
    const s = load();
    expect(s.warnings).to.deep.equal([".qoder/settings.json: hooks.PreTooluse: unknown event (did you mean PreToolUse?); its hooks are skipped"]);
    expect(commands(s)).to.deep.equal(["echo ok"]);
  });

  it("another host's event names: the warning names that host and its --dialect; the known events still apply", () => {
    sb.projectSettings(
      settings({ preToolUse: [{ hooks: [good("cursor")] }], BeforeTool: [{ hooks: [good("gemini")] }], PreToolUse: [{ hooks: [good("ok")] }] }),
    );
    const s = load();
    expect(s.warnings).to.deep.equal([
      ".qoder/settings.json: hooks.preToolUse: unknown event (Cursor's or Copilot CLI's name for PreToolUse: a file of another host? Qoder CN CLI calls it PreToolUse; --dialect cursor or --dialect copilot reads that host's own files); its hooks are skipped",
      ".qoder/settings.json: hooks.BeforeTool: unknown event (Gemini CLI's name for PreToolUse: a file of another host? Qoder CN CLI calls it PreToolUse; --dialect gemini reads that host's own files); its hooks are skipped",
    ]);
    expect(commands(s)).to.deep.equal(["echo ok"]);
  });

  it("an event key far from every event: one warning listing the known events", () => {
    sb.projectSettings(settings({ OnSave: [{ hooks: [good("x")] }], Stop: [{ hooks: [good("ok")] }] }));
    const s = load();
    expect(s.warnings).to.have.length(1);
    expect(s.warnings[0]).to.match(
      /^\.qoder\/settings\.json: hooks\.OnSave: unknown event \(known: PreToolUse, .*Notification, Setup, .*PostCompact, PreModelSwitch, PostModelSwitch, Elicitation, ElicitationResult\)/,
    );
    expect(commands(s)).to.deep.equal(["echo ok"]);
  });

  const handlerCases: { title: string; handler: Json; warning: string }[] = [
    {
      title: "a handler with an unknown type",
      handler: { type: "webhook", command: "echo bad" },
      warning: 'hooks.PreToolUse[1].hooks[0].type: expected "command"',
    },
    { title: "a handler without type", handler: { command: "echo bad" }, warning: 'hooks.PreToolUse[1].hooks[0].type: expected "command"' },
    { title: "a missing command", handler: { type: "command" }, warning: "hooks.PreToolUse[1].hooks[0].command: expected a non-empty command string" },
    {
      title: "an empty command",
      handler: { type: "command", command: "" },
      warning: "hooks.PreToolUse[1].hooks[0].command: expected a non-empty command string",
    },
    {
      title: "a blank command",
      handler: { type: "command", command: "   " },
      warning: "hooks.PreToolUse[1].hooks[0].command: expected a non-empty command string",
    },
    {
      title: "a command that is not a string",
      handler: { type: "command", command: ["echo", "x"] },
      warning: "hooks.PreToolUse[1].hooks[0].command: expected a non-empty command string",
    },
    {
      title: "timeout 0",
      handler: { type: "command", command: "echo bad", timeout: 0 },
      warning: "hooks.PreToolUse[1].hooks[0].timeout: expected a positive number of seconds",
    },
    {
      title: "a negative timeout",
      handler: { type: "command", command: "echo bad", timeout: -5 },
      warning: "hooks.PreToolUse[1].hooks[0].timeout: expected a positive number of seconds",
    },
    {
      title: "a timeout written as a string",
      handler: { type: "command", command: "echo bad", timeout: "5" },
      warning: "hooks.PreToolUse[1].hooks[0].timeout: expected a positive number of seconds",
    },
    {
      title: "a null timeout",
      handler: { type: "command", command: "echo bad", timeout: null },
      warning: "hooks.PreToolUse[1].hooks[0].timeout: expected a positive number of seconds",
    },
    {
      title: "an empty name",
      handler: { type: "command", command: "echo bad", name: "" },
      warning: "hooks.PreToolUse[1].hooks[0].name: expected a non-empty string",
    },
    { title: "a handler that is not an object", handler: "echo bad" as unknown as Json, warning: "hooks.PreToolUse[1].hooks[0]: " },
  ];
  for (const { title, handler, warning } of handlerCases) {
    it(`${title}: exactly one warning "${warning}…"; that hook is skipped, its neighbours apply`, () => {
      const s = badHandler(handler);
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.satisfy((w: string) => w.startsWith(`.qoder/settings.json: ${warning}`), s.warnings[0]);
      expect(commands(s)).to.deep.equal(["echo before", "echo after", "echo other-event"]);
    });
  }

  it("words the timeout warning exactly as the contract's example", () => {
    const s = badHandler({ type: "command", command: "echo bad", timeout: -1 });
    expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[1\]\.hooks\[0\]\.timeout: expected a positive number of seconds(;|$)/);
  });

  it("accepts fractional timeouts and a day exactly; above 86,400 s is one warning and the default 60 s applies", () => {
    sb.projectSettings(
      settings({
        PreToolUse: [
          {
            hooks: [
              { type: "command", command: "echo half", timeout: 0.5 },
              { type: "command", command: "echo day", timeout: 86_400 },
              { type: "command", command: "echo ms", timeout: 86_401 },
              { type: "command", command: "echo default" },
            ],
          },
        ],
      }),
    );
    const s = load();
    expect(s.warnings).to.have.length(1);
    expect(s.warnings[0]).to.match(
      /^\.qoder\/settings\.json: hooks\.PreToolUse\[0\]\.hooks\[2\]\.timeout: 86401 s is more than a day.*default of 60 s applies/,
    );
    expect(s.hooks.map((h) => [h.command, h.timeoutMs])).to.deep.equal([
      ["echo half", 500],
      ["echo day", 86_400_000],
      ["echo ms", 60_000],
      ["echo default", 60_000],
    ]);
  });

  it("an unknown key in a handler (timout): one warning with a did-you-mean; the handler still applies with the default timeout", () => {
    const s = badHandler({ type: "command", command: "echo typo", timout: 5 });
    expect(s.warnings).to.deep.equal(['.qoder/settings.json: hooks.PreToolUse[1].hooks[0].timout: unknown key (did you mean "timeout"?), ignored']);
    expect(commands(s)).to.deep.equal(["echo before", "echo typo", "echo after", "echo other-event"]);
    expect(s.hooks.find((h) => h.command === "echo typo")!.timeoutMs).to.equal(60_000);
  });

  it("a matcher that is not a string: one warning; that group is skipped, the next group applies", () => {
    sb.projectSettings(
      settings({
        PreToolUse: [
          { matcher: ["Bash"], hooks: [good("array-matcher")] },
          { matcher: "Bash", hooks: [good("next")] },
        ],
      }),
    );
    const s = load();
    expect(s.warnings).to.have.length(1);
    expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[0\]\.matcher: expected a string\b.*this group is skipped$/);
    expect(commands(s)).to.deep.equal(["echo next"]);
  });

  it("an unknown key in a matcher group: one warning; the group still applies", () => {
    sb.projectSettings(settings({ PreToolUse: [{ matchers: "Bash", hooks: [good("grp")] }] }));
    const s = load();
    expect(s.warnings).to.deep.equal(['.qoder/settings.json: hooks.PreToolUse[0].matchers: unknown key (did you mean "matcher"?), ignored']);
    expect(commands(s)).to.deep.equal(["echo grp"]);
  });

  it("a group whose hooks is not an array, and an event that is not an array: one warning each; the rest applies", () => {
    sb.projectSettings(
      settings({
        PreToolUse: [{ matcher: "Bash", hooks: "echo nope" }, { hooks: [good("second-group")] }],
        Stop: { hooks: [good("not-an-array")] } as unknown as unknown[],
        Notification: [{ hooks: [good("notify")] }],
      }),
    );
    const s = load();
    expect(s.warnings).to.have.length(2);
    expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[0\]\.hooks: expected an array/);
    expect(s.warnings[1]).to.match(/^\.qoder\/settings\.json: hooks\.Stop: expected an array of matcher groups/);
    expect(commands(s)).to.deep.equal(["echo second-group", "echo notify"]);
  });

  it("an invalid regex: one warning; that group matches nothing, the other groups apply", () => {
    sb.projectSettings(
      settings({
        PreToolUse: [
          { matcher: "Bash(", hooks: [good("broken")] },
          { matcher: "Bash", hooks: [good("fine")] },
        ],
      }),
    );
    const s = load();
    expect(s.warnings).to.have.length(1);
    expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[0\]\.matcher: invalid regex .*this group matches nothing$/);
    // The group is kept (qhooks hooks shows it) but can never be selected.
    expect(s.hooks.map((h) => [h.command, h.matcher.kind])).to.deep.equal([
      ["echo broken", "never"],
      ["echo fine", "names"],
    ]);
  });

  describe("whole files", () => {
    beforeEach(() => {
      sb.userSettings(settings({ PreToolUse: [{ hooks: [good("user")] }] }));
      sb.localSettings(settings({ PreToolUse: [{ hooks: [good("local")] }] }));
    });

    it("a file that is not valid JSON: one one-line warning with line and column; only that file is skipped", () => {
      sb.projectSettings('{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n');
      const s = load();
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: not valid JSON \(line 3 column 14\b/);
      expect(s.warnings[0]).not.to.include("\n");
      expect(commands(s)).to.deep.equal(["echo user", "echo local"]);
    });

    it("an error deep in a long file is still one line, without the file's content", () => {
      const hooks = Array.from({ length: 30 }, (_, i) => `    "Stop": [{"hooks": [{"type": "command", "command": "echo secret-${i}"}]}],`);
      sb.projectSettings(`{\n  "hooks": {\n${hooks.join("\n")}\n    "Stop": [}\n  }\n}\n`);
      const s = load();
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: not valid JSON \(line 33 column 14\b/);
      expect(s.warnings[0]).not.to.include("\n");
      expect(s.warnings[0]).not.to.include("secret");
    });

    it("an empty file: one warning; the other levels apply", () => {
      sb.projectSettings("");
      const s = load();
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: not valid JSON \(line 1 column 1\b/);
      expect(commands(s)).to.deep.equal(["echo user", "echo local"]);
    });

    for (const [what, hooks] of [
      ["an array", []],
      ["a string", "PreToolUse"],
      ["null", null],
    ] as const) {
      it(`hooks that is ${what}, not an object: one warning; the other levels apply`, () => {
        sb.projectSettings({ hooks });
        const s = load();
        expect(s.warnings).to.have.length(1);
        expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: hooks: expected an object\b/);
        expect(commands(s)).to.deep.equal(["echo user", "echo local"]);
      });
    }

    it("a file whose top level is not an object: one warning; the other levels apply", () => {
      sb.projectSettings("[1, 2]");
      const s = load();
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: /);
      expect(commands(s)).to.deep.equal(["echo user", "echo local"]);
    });

    it("a settings path that is a directory: one warning, reported unreadable; the other levels apply", () => {
      mkdirSync(join(sb.project, ".qoder", "settings.json"), { recursive: true });
      const s = load();
      expect(s.warnings).to.deep.equal([".qoder/settings.json: cannot be read (is a directory); this file is skipped"]);
      expect(s.sources.map((x) => x.state)).to.deep.equal(["loaded", "unreadable", "loaded"]);
      expect(commands(s)).to.deep.equal(["echo user", "echo local"]);
    });

    it("a world-writable settings file: one warning, and its hooks still apply", () => {
      sb.file(join(sb.project, ".qoder", "settings.json"), settings({ PreToolUse: [{ hooks: [good("project")] }] }), 0o666);
      const s = load();
      expect(s.warnings).to.have.length(1);
      expect(s.warnings[0]).to.match(/^\.qoder\/settings\.json: writable by every user/);
      expect(commands(s)).to.deep.equal(["echo user", "echo project", "echo local"]);
    });
  });

  describe("through the CLI and the library", () => {
    /** Every kind of bad entry in one project file, good hooks around them, a broken local file. */
    function writeMessyConfig(): void {
      sb.userSettings(settings({ PreToolUse: [group("Bash", mark(sb, "user"))] }));
      sb.file(
        join(sb.project, ".qoder", "settings.json"),
        settings(
          {
            PreTooluse: [group(undefined, mark(sb, "typo-event"))],
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [{ type: "webhook", command: mark(sb, "unknown-type") }, { type: "command" }, { type: "command", command: mark(sb, "neighbour-1") }],
              },
              {
                matcher: "Bash",
                hooks: [
                  { type: "command", command: mark(sb, "bad-timeout"), timeout: -1 },
                  { type: "command", command: mark(sb, "huge-timeout"), timeout: 90_000 },
                  { type: "command", command: mark(sb, "timout-key"), timout: 5 },
                ],
              },
              { matcher: "Bash[", hooks: [{ type: "command", command: mark(sb, "bad-regex") }] },
              { matcher: "Write\\|Bash", hooks: [{ type: "command", command: mark(sb, "seed-matcher") }] },
            ],
          },
          { permissions: {} },
        ),
        0o666,
      );
      sb.localSettings('{ "hooks": { "PreToolUse": [ ] } oops }');
    }

    it("prints each warning as one 'qhooks: warning: ' line on stderr, and the run still works", async () => {
      writeMessyConfig();
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
      expect(r.code, r.stderr).to.equal(0);
      // Nothing on stderr but warnings, each on its own line.
      const lines = stderrLines(r.stderr);
      const warnings = warningLines(r.stderr);
      expect(lines).to.have.length(warnings.length);

      const expected = [
        /^\.qoder\/settings\.json: writable by every user/,
        /^\.qoder\/settings\.json: hooks\.PreTooluse: unknown event \(did you mean PreToolUse\?\)/,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[0\]\.hooks\[0\]\.type: /,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[0\]\.hooks\[1\]\.command: /,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[1\]\.hooks\[0\]\.timeout: expected a positive number of seconds/,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[1\]\.hooks\[1\]\.timeout: 90000 s is more than a day/,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[1\]\.hooks\[2\]\.timout: unknown key/,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[2\]\.matcher: invalid regex/,
        /^\.qoder\/settings\.json: hooks\.PreToolUse\[3\]\.matcher: matcher "Write\\\|Bash" read as "Write\|Bash"/,
        /^\.qoder\/settings\.local\.json: not valid JSON \(line 1 column 34\b/,
      ];
      expect(warnings).to.have.length(expected.length, warnings.join("\n"));
      expected.forEach((re, i) => expect(warnings[i]).to.match(re));

      // Every good entry ran; no skipped one did; the broken local file took nothing else with it.
      expect(markSet(sb)).to.deep.equal(["huge-timeout", "neighbour-1", "seed-matcher", "timout-key", "user"]);
      expect(hookField(r.outcome, "level")).to.deep.equal(["user", "project", "project", "project", "project"]);
    });

    it("qhooks hooks --json lists the same warnings", async () => {
      writeMessyConfig();
      const [run, listing] = await Promise.all([sb.runEvent("PreToolUse", payloadFor("PreToolUse")), sb.run(["hooks", "--json"])]);
      const json = JSON.parse(listing.stdout) as { warnings: string[] };
      expect(json.warnings).to.deep.equal(warningLines(run.stderr));
    });

    it("the bus emits the settings warnings on warnings$, and still dispatches", async () => {
      writeMessyConfig();
      const bus = sb.bus({ watch: false });
      const seen: string[] = [];
      const subscription = bus.warnings$.subscribe((w) => seen.push(w));
      try {
        expect(seen).to.deep.equal([...bus.settings().warnings]);
        expect(seen).to.have.length(10);
        expect(seen).to.satisfy((ws: string[]) => ws.some((w) => w.includes("hooks.PreToolUse[1].hooks[0].timeout: expected a positive number of seconds")));
        const outcome = await bus.dispatch({ ...payloadFor("PreToolUse"), hook_event_name: "PreToolUse" });
        expect(outcome.hooks).to.have.length(5);
        expect(markSet(sb)).to.have.length(5);
      } finally {
        subscription.unsubscribe();
      }
    });
  });
});
