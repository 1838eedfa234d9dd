import { expect } from "chai";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { Dialect } from "../../src/hosts/hostDialect.js";
import { loadSettings, type SettingsSnapshot } from "../../src/settings/loadSettings.js";
import { planSettings, type SettingsChoice } from "../../src/settings/settingsPlan.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/**
 * Every pair of a higher level (the machine's managed settings, the user's own) and a lower-trust one (the project's
 * file, its local settings, a plugin, a --settings file inside the project): the lower file cannot switch the higher
 * file's guard off, back on, remove it, or weaken it (timeout, onFailure, mode). What it tries is ignored with one
 * warning that names both files. Pairs a host cannot have are not here: Gemini CLI (the one host whose managed files
 * qhooks reads) has no local settings, and --settings replaces the levels (its higher file is one outside the project).
 */

/** A host's way of writing the guard, its event, and its switch for every hook. */
interface Shape {
  readonly dialect: Dialect;
  readonly event: string;
  readonly matcher: string;
  /** Seconds as the host's files count them. */
  readonly timeout: (seconds: number) => number;
  readonly allOff: (off: boolean) => Json;
}
const QODER: Shape = { dialect: "qoder", event: "PreToolUse", matcher: "Bash", timeout: (s) => s, allOff: (off) => ({ disableAllHooks: off }) };
const GEMINI: Shape = {
  dialect: "gemini",
  event: "BeforeTool",
  matcher: "run_shell_command",
  timeout: (s) => s * 1000,
  allOff: (off) => ({ hooksConfig: { enabled: !off } }),
};

const COMMAND = "echo guard says no >&2; exit 2";

interface Placed {
  /** The file's name as warnings give it. */
  readonly display: string;
}
interface Pair {
  readonly name: string;
  readonly shape: Shape;
  /** Writes the two files; what to load them with. */
  setup(sb: Sandbox, higher: Json, lower: Json): { higher: Placed; lower: Placed; choice: Partial<SettingsChoice> };
  /** A plugin's copy of a command runs apart from the guard: it cannot weaken it, and there is nothing to ignore. */
  readonly runsApart?: boolean;
}

const plugin = (sb: Sandbox, doc: Json): string => {
  const root = join(sb.root, "plugins", "kit");
  sb.file(join(root, ".claude-plugin", "plugin.json"), { name: "kit", version: "0.1.0" });
  sb.file(join(root, "hooks", "hooks.json"), doc);
  return root;
};
const machine = (sb: Sandbox) => ({
  GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(sb.root, "etc", "settings.json"),
  GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(sb.root, "etc", "defaults.json"),
});

const PAIRS: readonly Pair[] = [
  {
    name: "user > project",
    shape: QODER,
    setup: (sb, h, l) => (
      sb.userSettings(h), sb.projectSettings(l), { higher: { display: "~/.qoder-cn/settings.json" }, lower: { display: ".qoder/settings.json" }, choice: {} }
    ),
  },
  {
    name: "user > local",
    shape: QODER,
    setup: (sb, h, l) => (
      sb.userSettings(h),
      sb.localSettings(l),
      { higher: { display: "~/.qoder-cn/settings.json" }, lower: { display: ".qoder/settings.local.json" }, choice: {} }
    ),
  },
  {
    name: "user > plugin",
    shape: QODER,
    runsApart: true,
    setup: (sb, h, l) => {
      sb.userSettings(h);
      const root = plugin(sb, l);
      return { higher: { display: "~/.qoder-cn/settings.json" }, lower: { display: join(root, "hooks", "hooks.json") }, choice: { plugins: [root] } };
    },
  },
  {
    name: "user (--settings outside the project) > --settings inside the project",
    shape: QODER,
    setup: (sb, h, l) => {
      const outside = sb.file(join(sb.home, "guards.json"), h);
      const inside = sb.file(join(sb.project, "hooks.json"), l);
      return { higher: { display: outside }, lower: { display: inside }, choice: { settingsFiles: [outside, inside] } };
    },
  },
  {
    name: "managed (system) > project",
    shape: GEMINI,
    setup: (sb, h, l) => {
      const env = machine(sb);
      sb.file(env.GEMINI_CLI_SYSTEM_SETTINGS_PATH, h);
      sb.file(join(sb.project, ".gemini", "settings.json"), l);
      return { higher: { display: env.GEMINI_CLI_SYSTEM_SETTINGS_PATH }, lower: { display: ".gemini/settings.json" }, choice: { env } };
    },
  },
  {
    name: "managed (system defaults) > project",
    shape: GEMINI,
    setup: (sb, h, l) => {
      const env = machine(sb);
      sb.file(env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH, h);
      sb.file(join(sb.project, ".gemini", "settings.json"), l);
      return { higher: { display: env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH }, lower: { display: ".gemini/settings.json" }, choice: { env } };
    },
  },
  {
    name: "managed (system) > plugin",
    shape: GEMINI,
    runsApart: true,
    setup: (sb, h, l) => {
      const env = machine(sb);
      sb.file(env.GEMINI_CLI_SYSTEM_SETTINGS_PATH, h);
      const root = plugin(sb, l);
      return {
        higher: { display: env.GEMINI_CLI_SYSTEM_SETTINGS_PATH },
        lower: { display: join(root, "hooks", "hooks.json") },
        choice: { env, plugins: [root] },
      };
    },
  },
];

describe("settings: each level pair, a lower-trust file cannot disable, re-enable, remove or weaken a higher file's guard", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const hooksOf = (shape: Shape, ...handlers: Json[]): Json => ({ hooks: { [shape.event]: [{ matcher: shape.matcher, hooks: handlers }] } });
  const guard = (shape: Shape, extra: Json = {}): Json => ({
    type: "command",
    command: COMMAND,
    name: "guard",
    timeout: shape.timeout(30),
    onFailure: "block",
    ...extra,
  });
  const load = (pair: Pair, choice: Partial<SettingsChoice>): SettingsSnapshot => {
    const plan = planSettings({ homeDir: sb.home, projectDir: sb.project, baseDir: sb.project, dialect: pair.shape.dialect, ...choice });
    return loadSettings(plan.sources, plan.plugins);
  };
  /** The guard as the higher file declares it, loaded and unchanged. */
  const guardLoaded = (snapshot: SettingsSnapshot, higher: Placed) => {
    const found = snapshot.hooks.filter((h) => h.file === higher.display && h.command === COMMAND);
    expect(found, JSON.stringify(snapshot.warnings)).to.have.length(1);
    expect([found[0]!.timeoutMs, found[0]!.handler.type === "command" && found[0]!.handler.onFailure, found[0]!.shadow]).to.deep.equal([
      30_000,
      "block",
      false,
    ]);
  };
  /** Exactly one warning names both files. */
  const oneWarning = (snapshot: SettingsSnapshot, placed: { higher: Placed; lower: Placed }, says: RegExp) => {
    const both = snapshot.warnings.filter((w) => w.startsWith(`${placed.lower.display}: `) && w.includes(placed.higher.display));
    expect(both, JSON.stringify(snapshot.warnings, null, 1)).to.have.length(1);
    expect(both[0]).to.match(says);
  };

  for (const pair of PAIRS) {
    const { shape } = pair;
    describe(pair.name, () => {
      it("disable: its switch for every hook turns off its own hooks, never the guard", () => {
        const placed = pair.setup(sb, hooksOf(shape, guard(shape)), {
          ...shape.allOff(true),
          ...hooksOf(shape, { type: "command", command: "echo own", name: "own" }),
        });
        const snapshot = load(pair, placed.choice);
        guardLoaded(snapshot, placed.higher);
        expect(snapshot.disabled.map((d) => d.hook.name)).to.deep.equal(["own"]);
        oneWarning(snapshot, placed, /: disableAllHooks: the hooks of the project, its local settings and plugins are off \(1\); yours still run \(/);
      });

      it("re-enable: its false does not turn back on the guard the higher file switched off", () => {
        const placed = pair.setup(sb, { ...shape.allOff(true), ...hooksOf(shape, guard(shape)) }, shape.allOff(false));
        const snapshot = load(pair, placed.choice);
        expect(snapshot.hooks).to.deep.equal([]);
        expect(snapshot.disabled.map((d) => [d.hook.name, d.by])).to.deep.equal([["guard", placed.higher.display]]);
        oneWarning(snapshot, placed, /: disableAllHooks: false does not turn back on the hooks .* switched off; ignored$/);
      });

      it("remove: naming the guard in qhooks.disabled is ignored, and an empty list of its event removes nothing", () => {
        const placed = pair.setup(sb, hooksOf(shape, guard(shape)), { qhooks: { disabled: ["guard"] }, hooks: { [shape.event]: [] } });
        const snapshot = load(pair, placed.choice);
        guardLoaded(snapshot, placed.higher);
        expect(snapshot.disabled).to.deep.equal([]);
        oneWarning(snapshot, placed, /: qhooks\.disabled: read only from your own settings .*; ignored here: "guard" of .* still runs$/);
      });

      // A lower file that adds a hook running a script of your hook's name makes both hooks take their long names:
      // your switch and your limit, written with the short name, must stay on your hook.
      const yours = (extra: Json): Json => ({ ...extra, ...hooksOf(shape, { type: "command", command: "bash /opt/mine/check.sh" }) });
      const theirs: Json = hooksOf(shape, { type: "command", command: "bash ./check.sh" });
      const yourHook = (snapshot: SettingsSnapshot, higher: Placed) =>
        [...snapshot.hooks, ...snapshot.disabled.map((d) => d.hook)].find((h) => h.file === higher.display)!;

      it("budget: its qhooks.budget is not read, and a hook of your hook's script name leaves your limit on your hook", () => {
        const placed = pair.setup(sb, yours({ qhooks: { budget: { hooks: { "check.sh": { msPerTurn: 50 } } } } }), {
          ...theirs,
          qhooks: { budget: { msPerTurn: 600_000, hooks: { "check.sh": { msPerTurn: 600_000 } } } },
        });
        const snapshot = load(pair, placed.choice);
        const mine = yourHook(snapshot, placed.higher);
        expect(mine.name).to.equal(pair.runsApart ? "check.sh" : "bash /opt/mine/check.sh");
        expect(snapshot.budget?.msPerTurn).to.equal(undefined);
        expect(snapshot.budget?.hooks?.[mine.name], JSON.stringify(snapshot.budget)).to.deep.equal({ msPerTurn: 50 });
        if (!pair.runsApart)
          expect(snapshot.warnings.filter((w) => w.startsWith(`${placed.lower.display}: qhooks.budget: read only from your own settings`))).to.have.length(1);
      });

      it("re-enable by name: a hook of your hook's script name does not take your qhooks.disabled off your hook", () => {
        const placed = pair.setup(sb, yours({ qhooks: { disabled: ["check.sh"] } }), theirs);
        const snapshot = load(pair, placed.choice);
        expect(snapshot.disabled.map((d) => [d.hook.file, d.by])).to.deep.include([placed.higher.display, placed.higher.display]);
        expect(snapshot.hooks.filter((h) => h.file === placed.higher.display)).to.deep.equal([]);
      });

      const weakenings: [string, Json, RegExp][] = [
        ["a shorter timeout", { timeout: shape.timeout(1) }, /\(timeout 1 s < 30 s\)/],
        ["onFailure that does not block", { onFailure: "continue" }, /\(onFailure continue where yours blocks\)/],
        ["mode shadow", { mode: "shadow" }, /\(mode shadow\)/],
      ];
      for (const [what, change, phrase] of weakenings) {
        it(`weaken: its copy of the guard with ${what} ${pair.runsApart ? "runs apart and changes nothing of the guard" : "is ignored"}`, () => {
          const placed = pair.setup(sb, hooksOf(shape, guard(shape)), hooksOf(shape, guard(shape, { name: undefined, ...change })));
          const snapshot = load(pair, placed.choice);
          guardLoaded(snapshot, placed.higher);
          if (pair.runsApart) {
            expect(snapshot.hooks.filter((h) => h.file === placed.lower.display)).to.have.length(1);
            expect(snapshot.warnings.filter((w) => w.includes("would weaken"))).to.deep.equal([]);
          } else {
            expect(snapshot.hooks.filter((h) => h.file === placed.lower.display)).to.deep.equal([]);
            expect(snapshot.overruled.map((o) => [o.copy.file, o.guard.file])).to.deep.equal([[placed.lower.display, placed.higher.display]]);
            oneWarning(snapshot, placed, phrase);
          }
        });
      }
    });
  }

  describe("a managed file the environment moves into the project", () => {
    const into = (target: string, linked: boolean) => {
      const file = sb.file(join(sb.project, "conf", "system.json"), {
        hooksConfig: { enabled: false },
        qhooks: { disabled: ["guard"], budget: { msPerTurn: 600_000 } },
        ...hooksOf(GEMINI, { type: "command", command: "echo theirs", name: "theirs" }),
      });
      const path = linked ? join(sb.root, "etc", "linked.json") : file;
      if (linked) {
        mkdirSync(join(sb.root, "etc"), { recursive: true });
        symlinkSync(file, path);
      }
      sb.file(join(sb.home, ".gemini", "settings.json"), hooksOf(GEMINI, guard(GEMINI)));
      return { env: { ...machine(sb), [target]: path }, path };
    };
    for (const target of ["GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"])
      for (const linked of [false, true])
        it(`${target}${linked ? " (a link into the project)" : ""}: read at the project's level, one warning; it cannot switch your guard off`, () => {
          const { env, path } = into(target, linked);
          const pair = PAIRS.find((p) => p.shape === GEMINI)!;
          const plan = planSettings({ homeDir: sb.home, projectDir: sb.project, baseDir: sb.project, dialect: "gemini", env });
          expect(plan.sources.filter((s) => s.path === path).map((s) => s.level)).to.deep.equal(["project"]);
          const snapshot = load(pair, { env });
          const said = snapshot.warnings.filter((w) => w.startsWith(`${path}: the machine's `));
          expect(said, JSON.stringify(snapshot.warnings, null, 1)).to.have.length(1);
          expect(said[0]).to.match(/ settings file lies inside the project, which can write it; read at the project's level/);
          // Its switch for every hook turns off its own, at the project's level; your guard runs.
          expect(snapshot.disabled.map((d) => [d.hook.name, d.hook.level])).to.deep.equal([["theirs", "project"]]);
          expect(snapshot.hooks.map((h) => [h.name, h.level])).to.deep.equal([["guard", "user"]]);
          expect(snapshot.budget).to.equal(null);
        });

    it("a managed path outside the project keeps the machine's rank, with no warning", () => {
      const env = machine(sb);
      sb.file(env.GEMINI_CLI_SYSTEM_SETTINGS_PATH, hooksOf(GEMINI, guard(GEMINI)));
      const plan = planSettings({ homeDir: sb.home, projectDir: sb.project, baseDir: sb.project, dialect: "gemini", env });
      expect(plan.sources.filter((s) => s.path === env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).map((s) => s.level)).to.deep.equal(["system"]);
      const snapshot = load(PAIRS.find((p) => p.shape === GEMINI)!, { env });
      expect(snapshot.warnings.filter((w) => w.includes("lies inside the project"))).to.deep.equal([]);
      expect(snapshot.hooks.map((h) => h.level)).to.deep.equal(["system"]);
    });
  });

  describe("through qhooks run", function () {
    this.timeout(30_000);

    it("managed > project (Gemini CLI): the project's switch, its qhooks.disabled and a weaker copy all fail; the system guard blocks", async () => {
      const env = machine(sb);
      sb.file(env.GEMINI_CLI_SYSTEM_SETTINGS_PATH, hooksOf(GEMINI, guard(GEMINI)));
      sb.file(join(sb.project, ".gemini", "settings.json"), {
        hooksConfig: { enabled: false },
        qhooks: { disabled: ["guard"] },
        ...hooksOf(GEMINI, guard(GEMINI, { name: undefined, mode: "shadow" })),
      });
      const payload = { ...payloadFor("PreToolUse"), hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "rm -rf /" } };
      const r = await sb.runEvent("BeforeTool", payload, ["--dialect", "gemini", "--no-log"], env);
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stderr).to.include("guard says no");
    });
  });
});
