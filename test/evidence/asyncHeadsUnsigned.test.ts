import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { waitFor } from "../store/storeHelpers.js";

type Json = Record<string, unknown>;

/**
 * An async hook's detached process (`qhooks __async-hook`) whose key cannot sign the head its append passed: nobody
 * reads its output, so it leaves the warning beside the log and the next `qhooks run` says it in the host's answer,
 * once. Real processes; the hook itself spoils the key, after the run that started it has signed and exited.
 */
describe("a head an async hook's process cannot sign is said by the next run", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  async function runHook(event: string, signEvery: string) {
    const r = await sb.run(["run", event, "--format", "hook", "--dialect", "claude"], {
      input: JSON.stringify(payloadFor(event, { session_id: "s1" })),
      env: { CLAUDE_PROJECT_DIR: sb.project, QHOOKS_SIGN_EVERY: signEvery },
    });
    const reply = r.stdout.trim().startsWith("{") ? (JSON.parse(r.stdout) as Json) : null;
    return { ...r, reply };
  }

  it("the warning reaches the next run's systemMessage once, naming the background process; the run after says nothing", async () => {
    const key = `${sb.db}.key`;
    const leftFile = join(sb.db, "..", "notices", "left-by-background");
    const go = join(sb.root, "go");
    // Waits until the run that started it has exited (the test says so), then makes the key unusable.
    sb.file(join(sb.home, ".claude", "settings.json"), {
      hooks: {
        PostToolUse: [
          {
            hooks: [
              {
                type: "command",
                command: `while [ ! -e '${go}' ]; do sleep 0.05; done; printf 'not a key' > '${key}'`,
                async: true,
                timeout: 30,
                name: "bg",
              },
            ],
          },
        ],
      },
    });
    const first = await runHook("PostToolUse", "1");
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.not.include("heads are not signed");
    expect(existsSync(key)).to.equal(true);
    writeFileSync(go, "");
    // The background process appends the hook's result (its head due: every record is signed), then leaves the warning.
    await waitFor("the warning left beside the log", () => existsSync(leftFile), 30_000);
    // This run signs nothing itself (QHOOKS_SIGN_EVERY=0): what it says came from the background process.
    const next = await runHook("PreToolUse", "0");
    expect(next.code, next.stderr).to.equal(0);
    expect(String(next.reply?.systemMessage))
      .to.match(/qhooks: event log \(in an async hook's background process\): the log's heads are not signed: /)
      .and.match(/is not an Ed25519 private key/);
    expect(existsSync(leftFile)).to.equal(false);
    const after = await runHook("PreToolUse", "0");
    expect(after.code, after.stderr).to.equal(0);
    expect(String(after.reply?.systemMessage ?? "")).to.not.include("heads are not signed");
  });
});
