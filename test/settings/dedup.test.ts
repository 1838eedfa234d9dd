import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { hookField, settings } from "./support.js";

/**
 * Contract 3, Selection: an identical command string runs once per event, at its first position, reported with the
 * level and name of its highest-priority occurrence.
 */
describe("dedup of identical commands across levels", () => {
  let sb: Sandbox;
  let ran: string;
  /** Appends one line per run to a file: the number of lines is the number of times the hook ran. */
  let twice: string;
  const runs = () =>
    existsSync(ran)
      ? readFileSync(ran, "utf8")
          .split("\n")
          .filter((l) => l !== "")
      : [];

  beforeEach(() => {
    sb = new Sandbox();
    ran = join(sb.root, "ran.txt");
    twice = `echo ran >> '${ran}'`;
  });
  afterEach(() => sb.cleanup());

  it("a command declared at user and local levels runs once, at the user's position, reported as local's", async () => {
    // The local copy's timeout is longer than the user's: a weaker copy would be ignored (guardPrecedence.test.ts).
    sb.userSettings(settings({ PreToolUse: [group("Bash", { command: twice, name: "user-copy", timeout: 5 }, "echo user-second")] }));
    sb.projectSettings(settings({ PreToolUse: [group("Bash", "echo project")] }));
    sb.localSettings(settings({ PreToolUse: [group("Bash", { command: twice, name: "local-copy", timeout: 7 })] }));

    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(runs()).to.deep.equal(["ran"]);
    expect(hookField(r.outcome, "command")).to.deep.equal([twice, "echo user-second", "echo project"]);
    expect(hookField(r.outcome, "name")).to.deep.equal(["local-copy", "echo user-second", "echo project"]);
    expect(hookField(r.outcome, "level")).to.deep.equal(["local", "user", "project"]);
  });

  it("the same command in two matching groups of one file runs once", async () => {
    sb.projectSettings(settings({ PreToolUse: [group("Bash", twice), group("*", "echo other", twice)] }));
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(runs()).to.deep.equal(["ran"]);
    expect(hookField(r.outcome, "command")).to.deep.equal([twice, "echo other"]);
  });

  it("only identical strings are merged: a command that differs by one space runs again", async () => {
    sb.userSettings(settings({ PreToolUse: [group("Bash", twice)] }));
    sb.localSettings(settings({ PreToolUse: [group("Bash", twice.replace(">>", " >>"))] }));
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(runs()).to.deep.equal(["ran", "ran"]);
    expect(hookField(r.outcome, "level")).to.deep.equal(["user", "local"]);
  });

  it("dedup is among the hooks that match: a local copy whose matcher does not match changes nothing", async () => {
    sb.userSettings(settings({ PreToolUse: [group("Bash", { command: twice, name: "user-copy" })] }));
    sb.localSettings(settings({ PreToolUse: [group("Write", { command: twice, name: "local-copy" })] }));
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code, r.stderr).to.equal(0);
    expect(runs()).to.deep.equal(["ran"]);
    expect(hookField(r.outcome, "name")).to.deep.equal(["user-copy"]);
    expect(hookField(r.outcome, "level")).to.deep.equal(["user"]);
  });

  it("is per event: the same command on two events runs once for each", async () => {
    sb.userSettings(settings({ PreToolUse: [group("Bash", twice)], PostToolUse: [group("Bash", twice)] }));
    sb.localSettings(settings({ PreToolUse: [group("Bash", twice)] }));
    const pre = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(runs()).to.have.length(1);
    const post = await sb.runEvent("PostToolUse", payloadFor("PostToolUse", { tool_name: "Bash" }));
    expect(runs()).to.have.length(2);
    expect(hookField(pre.outcome, "level")).to.deep.equal(["local"]);
    expect(hookField(post.outcome, "level")).to.deep.equal(["user"]);
  });

  it("the library bus dedups the same way", async () => {
    sb.userSettings(settings({ Stop: [group(undefined, { command: twice, name: "user-copy" })] }));
    sb.projectSettings(settings({ Stop: [group(undefined, { command: twice, name: "project-copy" })] }));
    const bus = sb.bus({ watch: false });
    const outcome = await bus.dispatch({ ...payloadFor("Stop"), hook_event_name: "Stop" });
    expect(runs()).to.deep.equal(["ran"]);
    expect(outcome.hooks.map((h) => [h.name, h.level])).to.deep.equal([["project-copy", "project"]]);
  });
});
