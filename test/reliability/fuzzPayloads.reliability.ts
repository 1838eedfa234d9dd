import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import { EVENT_NAMES } from "../../src/schema/events.js";
import { OutcomeSchema, type Outcome } from "../../src/schema/outcome.js";
import { journalCount } from "../store/storeHelpers.js";
import { Sandbox, group } from "../support/sandbox.js";
import { payloadBytes, payloadCase, type PayloadCase } from "./arbitraries.js";
import { QUICK, checkProperty, clip, eachLimit, expectCleanCli, within } from "./support.js";

/**
 * Issue 6, bad input: random payloads (deep nesting, huge strings, wrong types, `__proto__` and `constructor` keys,
 * invalid UTF-8 on stdin, unicode, duplicate keys, broken framing) through the library and the CLI. The engine
 * answers each with a clear one-line error or a defined outcome, never crashes, never hangs, never prints a stack
 * trace; hooks receive exactly the bytes that were sent (plus the fields qhooks fills in at the front); the log
 * keeps one record per payload and its chain stays valid.
 *
 * Seeded, so a failure reproduces; the quick subset runs fewer cases than the full suite.
 */
const FILLABLE = new Set(["hook_event_name", "cwd", "stop_hook_active"]);

/**
 * What a hook must have read for a payload text: the text itself (a leading BOM dropped), with only the missing
 * common fields inserted right after its opening brace. Returns a reason when `got` is anything else.
 */
function forwardingProblem(sent: string, got: Buffer): string | null {
  const text = sent.charCodeAt(0) === 0xfeff ? sent.slice(1) : sent;
  const expected = Buffer.from(text, "utf8").toString("utf8"); // lone surrogates become U+FFFD, as on any pipe
  const received = got.toString("utf8");
  if (received === expected) return null;
  const open = expected.indexOf("{");
  const head = expected.slice(0, open + 1);
  const tail = expected.slice(open + 1);
  if (!received.startsWith(head) || !received.endsWith(tail)) return "the agent's bytes were changed";
  const inserted = received.slice(head.length, received.length - tail.length).replace(/,$/, "");
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(`{${inserted}}`) as Record<string, unknown>;
  } catch {
    return `inserted text is not JSON fields: ${inserted.slice(0, 200)}`;
  }
  const odd = Object.keys(fields).filter((k) => !FILLABLE.has(k));
  return odd.length ? `inserted fields other than the common ones: ${odd.join(", ")}` : null;
}

const oneLine = (message: string, label: string) => {
  expect(message, `${label}: empty message`).to.not.equal("");
  expect(message, `${label}: more than one line`).to.not.match(/[\n\r]/);
  expect(message.length, `${label}: a line of ${message.length} characters is not a clear message`).to.be.at.most(2000);
};

describe("reliability: random payloads (fast-check)", function () {
  this.timeout(600_000);
  let sb: Sandbox;
  let got: string;

  beforeEach(() => {
    sb = new Sandbox();
    got = join(sb.root, "got");
    // Every event, every value: one hook that keeps exactly what it read.
    const recorder = group(undefined, { command: `cat > "$GOT"`, name: "recorder", timeout: 30 });
    sb.projectSettings({ hooks: Object.fromEntries(EVENT_NAMES.map((e) => [e, [recorder]])) });
  });
  afterEach(() => sb.cleanup());

  async function throughTheBus(runs: number, seed: number): Promise<void> {
    const bus = sb.bus({ db: sb.db, env: sb.env({ GOT: got }) });
    const seen = { outcomes: 0, rejections: 0 };
    let logged = 0;
    await checkProperty(
      fc.asyncProperty(payloadCase, async (c: PayloadCase) => {
        rmSync(got, { force: true });
        let input: string | object = c.text;
        if (c.asObject) {
          try {
            input = JSON.parse(c.text) as object;
          } catch {
            input = c.text;
          }
        }
        const settled = await within(
          30_000,
          "dispatch",
          bus.dispatch(input).then(
            (o) => ({ ok: true as const, o }),
            (e: unknown) => ({ ok: false as const, e }),
          ),
        );
        if (settled.ok) {
          seen.outcomes++;
          const outcome = OutcomeSchema.parse(settled.o);
          expect(
            outcome.hooks.map((h) => [h.name, h.outcome]),
            JSON.stringify(outcome.hooks.map((h) => h.error)),
          ).to.deep.equal([["recorder", "success"]]);
          expect(outcome.seq, `not logged: ${outcome.warnings.join("; ")}`).to.be.a("number");
          expect(outcome.warnings).to.deep.equal([]);
          const sent = typeof input === "string" ? input : JSON.stringify(input);
          expect(existsSync(got), "the hook ran").to.equal(true);
          const problem = forwardingProblem(sent, readFileSync(got));
          expect(problem, problem ?? "").to.equal(null);
        } else {
          seen.rejections++;
          expect(settled.e).to.be.instanceOf(Error);
          oneLine((settled.e as Error).message, "rejection");
          expect(existsSync(got), "no hook runs for a rejected payload").to.equal(false);
        }
        // One more record for each payload, accepted or rejected; nothing before it lost.
        const now = journalCount(sb.db);
        expect(now, "the log only grows").to.be.greaterThan(logged);
        logged = now;
      }),
      { seed, numRuns: runs },
    );
    // Both kinds of answer were exercised: the property is not vacuous.
    expect(seen.outcomes, "some payloads were judged").to.be.greaterThan(runs / 5);
    expect(seen.rejections, "some payloads were rejected").to.be.greaterThan(0);
    const after = await bus.dispatch({ hook_event_name: "Stop", session_id: "after" });
    expect(after.hooks.map((h) => h.outcome)).to.deep.equal(["success"]);
    await bus.close();
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    const listed = await sb.run(["log", "--json", "--limit", "100000"]);
    expectCleanCli(listed, "qhooks log --json");
    expect(listed.code, listed.stderr).to.equal(0);
    expect((JSON.parse(listed.stdout) as unknown[]).length).to.equal(seen.outcomes + seen.rejections + 1);
    const jsonl = await sb.run(["log", "--jsonl", "--limit", "100000"]);
    expect(jsonl.code, jsonl.stderr).to.equal(0);
  }

  async function throughTheCli(runs: number, seed: number): Promise<void> {
    const cases = fc.sample(payloadCase, { seed, numRuns: runs });
    const seen = { outcomes: 0, rejections: 0 };
    const dir = got;
    await eachLimit(cases, 2, async (c, i) => {
      const file = `${dir}-${i}`;
      const bytes = payloadBytes(c);
      const label = `case ${i} (seed ${seed}): ${c.event} ${clip(JSON.stringify(bytes.toString("utf8")), 200)}`;
      const r = await within(60_000, label, sb.run(["run", c.event], { input: bytes, env: { GOT: file } }));
      expectCleanCli(r, label);
      expect(r.code, `${label}\n${clip(r.stderr)}`).to.be.oneOf([0, 1]);
      if (r.code === 0) {
        seen.outcomes++;
        const outcome = OutcomeSchema.parse(JSON.parse(r.stdout)) as Outcome;
        expect(
          outcome.hooks.map((h) => [h.name, h.outcome]),
          label,
        ).to.deep.equal([["recorder", "success"]]);
        expect(outcome.seq, `${label}\n${clip(r.stderr)}`).to.be.a("number");
        expect(r.stderr, label).to.equal("");
        // What the CLI read is the bytes as UTF-8 (an invalid sequence becomes U+FFFD); the hook gets exactly that.
        const problem = forwardingProblem(bytes.toString("utf8"), readFileSync(file));
        expect(problem, `${label}: ${problem}`).to.equal(null);
      } else {
        seen.rejections++;
        expect(r.stdout, label).to.equal("");
        const lines = r.stderr.split("\n").filter((l) => l !== "");
        expect(lines.length, `${label}\n${clip(r.stderr)}`).to.equal(1);
        expect(lines[0], label).to.match(/^qhooks: /);
        oneLine(lines[0]!, label);
        expect(existsSync(file), `${label}: no hook runs for a rejected payload`).to.equal(false);
      }
    });
    expect(seen.outcomes, "some payloads were judged").to.be.greaterThan(runs / 5);
    expect(seen.rejections, "some payloads were rejected").to.be.greaterThan(0);
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    const listed = await sb.run(["log", "--json", "--limit", "100000"]);
    expectCleanCli(listed, "qhooks log --json");
    expect(listed.code, listed.stderr).to.equal(0);
    expect((JSON.parse(listed.stdout) as unknown[]).length, "one record per payload").to.equal(runs);
    for (const command of [["log"], ["log", "--jsonl", "--limit", "100000"], ["sessions", "--json"], ["stats", "--json"]]) {
      const r = await sb.run(command);
      expectCleanCli(r, command.join(" "));
      expect(r.code, `${command.join(" ")}: ${r.stderr}`).to.equal(0);
    }
  }

  it(`the library: 60 random payloads, each a defined outcome with the exact bytes forwarded, or a one-line rejection ${QUICK}`, () =>
    throughTheBus(60, 0x5eed01));
  it("the library: 400 more random payloads", () => throughTheBus(400, 0x5eed02));
  it(`the CLI: 30 random payloads on stdin, invalid UTF-8 among them: exit 0 with the outcome or exit 1 with one line ${QUICK}`, () =>
    throughTheCli(30, 0x5eed03));
  it("the CLI: 150 more random payloads", () => throughTheCli(150, 0x5eed04));
});
