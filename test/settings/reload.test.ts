import { expect } from "chai";
import { pbkdf2 } from "node:crypto";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { markSet, mark, saveByRename, settings, sleep, until } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Contract 1.3: the CLI reads the files at every call; the library bus watches them (files that do not exist yet
 * included) and applies an edit to every dispatch that starts after the watcher saw it, while a dispatch under way
 * keeps its snapshot. Deadlines, never fixed sleeps, wherever something is expected to happen.
 */
describe("settings reload", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const userFile = () => join(sb.home, ".qoder-cn", "settings.json");
  const projectFile = () => join(sb.project, ".qoder", "settings.json");
  const localFile = () => join(sb.project, ".qoder", "settings.local.json");
  const preToolUse = (session: string): Json => ({ ...payloadFor("PreToolUse", { session_id: session }), hook_event_name: "PreToolUse" });
  const withMark = (tag: string, extra: Json = {}) => settings({ PreToolUse: [group("Bash", mark(sb, tag))] }, extra);

  it("the CLI reads the files at every call: an edit applies to the next qhooks run", async () => {
    sb.projectSettings(withMark("before"));
    const first = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "one" }));
    sb.projectSettings(withMark("after-edit"));
    const second = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "two" }));
    expect(markSet(sb, "one")).to.deep.equal(["before"]);
    expect(markSet(sb, "two")).to.deep.equal(["after-edit"]);
    expect(first.outcome!.configHash).not.to.equal(second.outcome!.configHash);
  });

  describe("the library bus with watch: true", () => {
    it("applies an edit of the project file to the next dispatch, without a restart", async () => {
      sb.projectSettings(withMark("v1"));
      const bus = sb.bus({ watch: true });
      const first = await bus.dispatch(preToolUse("one"));
      expect(markSet(sb, "one")).to.deep.equal(["v1"]);

      sb.projectSettings(withMark("v2-longer"));
      await until(() => bus.settings().hooks.some((h) => h.command === mark(sb, "v2-longer")), "the bus to see the edit");
      const second = await bus.dispatch(preToolUse("two"));
      expect(markSet(sb, "two")).to.deep.equal(["v2-longer"]);
      expect(second.configHash).to.equal(bus.settings().hash);
      expect(second.configHash).not.to.equal(first.configHash);

      // An editor that saves by writing a new file and renaming it over the old one.
      saveByRename(projectFile(), withMark("v3"));
      await until(() => bus.settings().hooks.some((h) => h.command === mark(sb, "v3")), "the bus to see the renamed file");
      await bus.dispatch(preToolUse("three"));
      expect(markSet(sb, "three")).to.deep.equal(["v3"]);
    });

    it("does not lose an edit made right after the bus is created, even with libuv's thread pool busy", async () => {
      sb.projectSettings(withMark("at-creation"));
      // Occupy every libuv worker thread for a while, so that any asynchronous first look at the files comes late.
      const busy = Array.from({ length: 4 }, () => new Promise<void>((resolve) => pbkdf2("password", "salt", 50_000, 32, "sha256", () => resolve())));
      const bus = sb.bus({ watch: true });
      // Same tick: the bus has read the files, its watcher has not run yet.
      sb.projectSettings(withMark("edited-at-once"));
      await Promise.all(busy);
      await until(() => bus.settings().hooks.some((h) => h.command === mark(sb, "edited-at-once")), "the bus to see the early edit");
      await bus.dispatch(preToolUse("early"));
      expect(markSet(sb, "early")).to.deep.equal(["edited-at-once"]);
    });

    it("watches files that do not exist yet, in directories that do not exist yet, and sees them go away", async () => {
      expect(existsSync(join(sb.home, ".qoder-cn"))).to.equal(false);
      expect(existsSync(join(sb.project, ".qoder"))).to.equal(false);
      const bus = sb.bus({ watch: true });
      const empty = await bus.dispatch(preToolUse("none"));
      expect(empty.hooks).to.deep.equal([]);

      sb.userSettings(withMark("user-created"));
      await until(() => bus.settings().hooks.length === 1, "the bus to see the new user file");
      await bus.dispatch(preToolUse("user"));
      expect(markSet(sb, "user")).to.deep.equal(["user-created"]);

      sb.localSettings(withMark("local-created"));
      await until(() => bus.settings().hooks.length === 2, "the bus to see the new local file");
      const both = await bus.dispatch(preToolUse("both"));
      expect(both.hooks.map((h) => h.level)).to.deep.equal(["user", "local"]);
      expect(markSet(sb, "both")).to.deep.equal(["local-created", "user-created"]);

      rmSync(userFile());
      await until(() => bus.settings().hooks.length === 1, "the bus to see the user file deleted");
      await bus.dispatch(preToolUse("after-delete"));
      expect(markSet(sb, "after-delete")).to.deep.equal(["local-created"]);
      expect(bus.settings().sources.map((s) => s.state)).to.deep.equal(["missing", "missing", "loaded"]);
    });

    it("a dispatch already under way keeps the snapshot it started with", async () => {
      const started = join(sb.root, "started");
      const go = join(sb.root, "go");
      // Holds the dispatch open until the test says go (4 s at most, so that a failure cannot hang the suite).
      const slow = sb.script("slow.sh", `cat >/dev/null\ntouch '${started}'\ni=0\nwhile [ ! -e '${go}' ] && [ $i -lt 400 ]; do sleep 0.01; i=$((i+1)); done`);
      sb.projectSettings(settings({ PreToolUse: [group("Bash", slow, mark(sb, "old"))] }));
      const bus = sb.bus({ watch: true });
      const oldHash = bus.settings().hash;

      const underWay = bus.dispatch(preToolUse("under-way"));
      await until(() => existsSync(started), "the slow hook to start");
      sb.projectSettings(settings({ PreToolUse: [group("Bash", mark(sb, "new"))] }));
      await until(() => bus.settings().hooks.some((h) => h.command === mark(sb, "new")), "the bus to see the edit");
      const newHash = bus.settings().hash;
      expect(newHash).not.to.equal(oldHash);

      // A dispatch that starts now is judged by the new config, while the first one is still running.
      const next = await bus.dispatch(preToolUse("next"));
      expect(existsSync(go)).to.equal(false);
      writeFileSync(go, "");
      const first = await underWay;

      expect(first.configHash).to.equal(oldHash);
      expect(first.hooks.map((h) => h.command)).to.deep.equal([slow, mark(sb, "old")]);
      expect(markSet(sb, "under-way")).to.deep.equal(["old"]);
      expect(next.configHash).to.equal(newHash);
      expect(next.hooks.map((h) => h.command)).to.deep.equal([mark(sb, "new")]);
      expect(markSet(sb, "next")).to.deep.equal(["new"]);
    });

    it("sees a settings file made world-writable (a chmod, no edit) and warns about it", async () => {
      sb.projectSettings(withMark("chmod"));
      chmodSync(projectFile(), 0o644);
      const bus = sb.bus({ watch: true });
      expect(bus.settings().warnings).to.deep.equal([]);
      chmodSync(projectFile(), 0o666);
      await until(() => bus.settings().warnings.length === 1, "the world-writable warning");
      expect(bus.settings().warnings[0]).to.match(/^\.qoder\/settings\.json: writable by every user/);
      expect(bus.settings().hooks.map((h) => h.command)).to.deep.equal([mark(sb, "chmod")]);
    });

    it("keeps the hash when only keys outside hooks change, and changes it when the hooks change", async () => {
      sb.projectSettings(withMark("same"));
      const bus = sb.bus({ watch: true });
      const before = bus.settings().hash;

      saveByRename(projectFile(), withMark("same", { model: "another-model", permissions: { allow: ["Bash(ls:*)"] } }));
      // Nothing is expected to happen, so there is nothing to poll for: give the 50 ms watcher many rounds.
      await sleep(400);
      expect(bus.settings().hash).to.equal(before);
      expect((await bus.dispatch(preToolUse("same"))).configHash).to.equal(before);

      // The watcher is alive: a change to the hooks is seen, with a new hash.
      sb.projectSettings(withMark("changed", { model: "another-model" }));
      await until(() => bus.settings().hash !== before, "a new hash");
      expect((await bus.dispatch(preToolUse("changed"))).configHash).to.equal(bus.settings().hash);
    });

    it("emits the warnings of an edited config on warnings$", async () => {
      sb.projectSettings(withMark("fine"));
      const bus = sb.bus({ watch: true });
      const seen: string[] = [];
      const subscription = bus.warnings$.subscribe((w) => seen.push(w));
      try {
        expect(seen).to.deep.equal([]);
        // Saved by rename, so the watcher never sees a half-written file (whose own warning would come first).
        saveByRename(projectFile(), settings({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo x", timeout: -1 }] }] }));
        await until(() => seen.length > 0, "a warning on warnings$");
        expect(seen).to.deep.equal([".qoder/settings.json: hooks.PreToolUse[0].hooks[0].timeout: expected a positive number of seconds; this hook is skipped"]);
        expect(bus.settings().hooks).to.deep.equal([]);
      } finally {
        subscription.unsubscribe();
      }
    });
  });

  it("with watch: false, edits do not apply to the bus", async () => {
    sb.projectSettings(withMark("frozen"));
    const bus = sb.bus({ watch: false });
    const before = bus.settings().hash;
    sb.projectSettings(withMark("edited-but-unseen"));
    sb.localSettings(withMark("created-but-unseen"));
    await sleep(400);
    expect(bus.settings().hash).to.equal(before);
    const outcome = await bus.dispatch(preToolUse("frozen"));
    expect(outcome.configHash).to.equal(before);
    expect(markSet(sb, "frozen")).to.deep.equal(["frozen"]);
  });

  describe("the config hash (loadSettings on real files)", () => {
    const hash = () => loadSettings(discoverSettings(sb.home, sb.project)).hash;

    it("ignores formatting, key order and keys outside hooks", () => {
      sb.projectSettings(settings({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo a", timeout: 5 }] }] }));
      const h = hash();
      sb.projectSettings(
        `{"theme":"dark","hooks":{"PreToolUse":[{"hooks":[{"timeout":5,"command":"echo a","type":"command"}],"matcher":"Bash"}]},"env":{"K":"v"}}`,
      );
      expect(hash()).to.equal(h);
    });

    it("changes with any change to the hooks sections: a command, a timeout, a matcher, the level holding them", () => {
      const base = { matcher: "Bash", hooks: [{ type: "command", command: "echo a", timeout: 5 }] };
      sb.projectSettings(settings({ PreToolUse: [base] }));
      const hashes = new Set([hash()]);
      sb.projectSettings(settings({ PreToolUse: [{ ...base, hooks: [{ type: "command", command: "echo b", timeout: 5 }] }] }));
      hashes.add(hash());
      sb.projectSettings(settings({ PreToolUse: [{ ...base, hooks: [{ type: "command", command: "echo a", timeout: 6 }] }] }));
      hashes.add(hash());
      sb.projectSettings(settings({ PreToolUse: [{ ...base, matcher: "Write" }] }));
      hashes.add(hash());
      rmSync(projectFile());
      sb.localSettings(settings({ PreToolUse: [base] }));
      hashes.add(hash());
      expect(hashes.size).to.equal(5);
    });

    it("covers the warnings too: a broken file that adds no hooks still changes the hash", () => {
      sb.projectSettings(withMark("x"));
      const h = hash();
      sb.localSettings("{ not json");
      expect(loadSettings(discoverSettings(sb.home, sb.project)).hooks).to.have.length(1);
      expect(hash()).not.to.equal(h);
      writeFileSync(localFile(), "{}");
      expect(hash()).to.equal(h);
    });
  });
});
