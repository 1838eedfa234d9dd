import { expect } from "chai";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Sandbox, group } from "../support/sandbox.js";
import { capture, cliJson, replayJson, usageError } from "./harness.js";

/** `qhooks replay --concurrency N`: at most N events judged at once, results still in log order. */
describe("qhooks replay --concurrency", function () {
  this.timeout(60_000);
  /** Earlier events sleep longer, so that with N > 1 later events finish first. */
  const DELAYS = [0.8, 0.6, 0.4, 0.2, 0, 0];
  let sb: Sandbox;
  let settings: string;
  let journal: string;

  before(async () => {
    sb = new Sandbox();
    journal = join(sb.root, "journal.txt");
    // Notes its start and end, sleeps the event's delay, then denies with a reason naming the event.
    const slow = sb.script(
      "slow.sh",
      `input=$(cat)
id=$(printf '%s' "$input" | jq -r .tool_input.id)
echo "start $id" >> "${journal}"
sleep "$(printf '%s' "$input" | jq -r .tool_input.delay)"
echo "end $id" >> "${journal}"
echo "event $id" >&2
exit 2`,
    );
    settings = sb.file("slow.json", { hooks: { PreToolUse: [group("Bash", slow)] } });
    await capture(
      sb,
      DELAYS.map((delay, id) => ({
        record: JSON.stringify({ session_id: "c1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: `step ${id}`, id, delay } }),
      })),
    );
  });
  after(() => sb.cleanup());

  /** The hooks' journal: the order they ended in, and the most that ever ran at once. */
  function readJournal() {
    const lines = readFileSync(journal, "utf8").trim().split("\n");
    let running = 0;
    let most = 0;
    for (const line of lines) {
      running += line.startsWith("start ") ? 1 : -1;
      most = Math.max(most, running);
    }
    return { ends: lines.filter((l) => l.startsWith("end ")).map((l) => Number(l.slice(4))), most, lines };
  }

  for (const n of [4, 1]) {
    it(`keeps log order with --concurrency ${n}, whatever order the hooks finish in`, async () => {
      rmSync(journal, { force: true });
      const r = await replayJson(sb, ["--session", "c1", "--settings", settings, "--concurrency", String(n)]);
      expect(r.results.map((x) => x.after.reason)).to.deep.equal(DELAYS.map((_, id) => `event ${id}`));
      expect(r.results.map((x) => x.seq)).to.deep.equal([...r.results.map((x) => x.seq)].sort((a, b) => a - b));
      expect(r).to.include({ events: 6, changed: 6, newlyBlocked: 6 });
      const { ends, most, lines } = readJournal();
      expect(lines).to.have.length(12);
      expect(most, "hooks running at once").to.be.at.most(n);
      if (n === 1) expect(ends).to.deep.equal([0, 1, 2, 3, 4, 5]);
      else {
        // The premise of the order check: events really overlapped, and a later one finished first.
        expect(most).to.be.at.least(2);
        expect(ends).not.to.deep.equal([0, 1, 2, 3, 4, 5]);
      }
    });
  }

  it("refuses a concurrency that is not a whole number >= 1, in one line, running nothing", async () => {
    rmSync(journal, { force: true });
    const listedBefore = await cliJson<unknown[]>(sb, ["replay", "--list", "--json"]);
    const runs = await Promise.all(["0", "abc", "1.5", "-2"].map((n) => sb.run(["replay", "--session", "c1", "--settings", settings, "--concurrency", n])));
    for (const r of runs) expect(usageError(r)).to.contain("--concurrency");
    expect(existsSync(journal), "no hook ran").to.equal(false);
    expect(await cliJson<unknown[]>(sb, ["replay", "--list", "--json"])).to.deep.equal(listedBefore);
  });
});
