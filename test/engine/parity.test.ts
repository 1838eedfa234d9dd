import { expect } from "chai";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { lastValueFrom, toArray } from "rxjs";
import type { HookBus } from "../../src/engine/createHookBus.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { replay$ } from "../../src/engine/replay.js";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * The same inputs give the same outcome JSON and the same journal content, whichever way the pipeline is built:
 * each scenario below is compared with a fixture captured from the pipeline as it was (test/fixtures/parity/).
 * Times, durations, hashes and the sandbox's paths are normalised; seqs are kept (each scenario starts a new log).
 * QHOOKS_WRITE_PARITY=1 writes the fixtures instead of comparing.
 */

type Json = Record<string, unknown>;
const FIXTURES = join(REPO_ROOT, "test", "fixtures", "parity");
const WRITE = process.env.QHOOKS_WRITE_PARITY === "1";

/** Replaces what differs from run to run (times, durations, hashes, temp paths) with stable placeholders. */
class Normaliser {
  private readonly hashes = new Map<string, string>();
  constructor(private readonly root: string) {}

  value(v: unknown, key = ""): unknown {
    if (typeof v === "string") return this.text(v, key);
    if (typeof v === "number" && /^(durationMs|duration_ms|elapsedMs)$/.test(key)) return "<ms>";
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === "object") {
      const out: Json = {};
      for (const [k, x] of Object.entries(v as Json)) {
        if (k === "hash") continue;
        out[k] = this.value(x, k);
      }
      return out;
    }
    return v;
  }

  private text(s: string, key: string): string {
    if (/^(ts|startedAt|finishedAt)$/.test(key)) return "<time>";
    if (key === "runId" || key === "run_id") return "<run>";
    // Where the record was written: this machine and user, whichever they are.
    if (key === "machine") return "<machine>";
    if (key === "os_user") return "<user>";
    let t = s.split(this.root).join("<root>");
    t = t.replace(/\b[0-9a-f]{64}\b/g, (h) => {
      let name = this.hashes.get(h);
      if (!name) this.hashes.set(h, (name = `<hash${this.hashes.size + 1}>`));
      return name;
    });
    t = t.replace(/replay-\d{8}-\d{6}-[0-9a-f]{4}/g, "<run>");
    t = t.replace(/qhooks-env-[A-Za-z0-9]+/g, "qhooks-env-<x>");
    return t;
  }
}

/** Every journal record, oldest first, with JSON columns parsed. */
function journal(path: string): Json[] {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare("SELECT * FROM journal ORDER BY seq").all() as Json[];
    return rows.map((r) => {
      const row: Json = {};
      for (const [k, v] of Object.entries(r)) {
        if ((k === "body" || k === "outcome") && typeof v === "string") {
          try {
            row[k] = JSON.parse(v);
            continue;
          } catch {
            // a payload kept as it arrived (a rejected one)
          }
        }
        row[k] = v;
      }
      return row;
    });
  } finally {
    db.close();
  }
}

function compareWithFixture(name: string, actual: unknown): void {
  const file = join(FIXTURES, `${name}.json`);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (WRITE) {
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  expect(existsSync(file), `fixture ${file}`).to.equal(true);
  expect(JSON.parse(text)).to.deep.equal(JSON.parse(readFileSync(file, "utf8")));
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: (error as Error).message }),
  );

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("engine: parity of the pipeline with the captured fixtures (outcomes and journal)", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const pre = (extra: Json = {}) => ({ ...payloadFor("PreToolUse", extra), hook_event_name: "PreToolUse", cwd: "/p" });
  const stop = (extra: Json = {}) => ({ ...payloadFor("Stop", extra), hook_event_name: "Stop", cwd: "/p", stop_hook_active: false });

  /** A bus over a new log, the hooks given as the user's settings. */
  const loggedBus = (settings: Json, env: Record<string, string> = {}): HookBus => {
    sb.userSettings(settings);
    return sb.bus({ watch: false, db: sb.db, env: sb.env(env) });
  };

  async function capture(name: string, bus: HookBus, run: () => Promise<unknown>): Promise<void> {
    const result = await run();
    await bus.close();
    const n = new Normaliser(sb.root);
    compareWithFixture(name, n.value({ result, journal: journal(sb.db) }));
    const log = openSqliteLog(sb.db, { mustExist: true });
    try {
      expect((await log.verify()).ok).to.equal(true);
    } finally {
      await log.close();
    }
  }

  it("no hook matches (the synchronous branch), log on", async () => {
    const bus = loggedBus({ hooks: { PreToolUse: [group("Write|Edit", "true")] } });
    await capture("no-match", bus, async () => [await bus.dispatch(pre()), await bus.dispatch(pre({ session_id: "s2" }))]);
  });

  it("no hook matches, log off", async () => {
    sb.userSettings({ hooks: { PreToolUse: [group("Write|Edit", "true")] } });
    const bus = sb.bus({ watch: false, db: false });
    const outcome = await bus.dispatch(pre());
    await bus.close();
    compareWithFixture("no-match-unlogged", new Normaliser(sb.root).value(outcome));
  });

  it("one hook allows", async () => {
    const hook = sb.script("allow.sh", "cat >/dev/null\necho fine >&2\nexit 0");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", hook)] } });
    await capture("one-hook-allow", bus, () => bus.dispatch(pre()));
  });

  it("a hook blocks by exit 2", async () => {
    const hook = sb.script("block.sh", "cat >/dev/null\necho 'no rm' >&2\nexit 2");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", hook)] } });
    await capture("block-exit2", bus, () => bus.dispatch(pre()));
  });

  it("a hook denies in JSON, another allows", async () => {
    const deny = sb.script(
      "deny.sh",
      `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"},"systemMessage":"denied"}'`,
    );
    const allow = sb.script("allow.sh", "cat >/dev/null\nexit 0");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", deny, allow)] } });
    await capture("json-deny", bus, () => bus.dispatch(pre()));
  });

  it("a hook times out", async () => {
    const slow = sb.script("slow.sh", "cat >/dev/null\nsleep 10");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", { command: slow, timeout: 1 })] } });
    await capture("timeout", bus, () => bus.dispatch(pre()));
  });

  it("a hook prints bad JSON", async () => {
    const bad = sb.script("bad.sh", "cat >/dev/null\necho '{\"decision\": '");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", bad)] } });
    await capture("bad-json", bus, () => bus.dispatch(pre()));
  });

  it("a payload is rejected, and the bus goes on", async () => {
    const bus = loggedBus({ hooks: { PreToolUse: [group("Write|Edit", "true")] } });
    await capture("rejected", bus, async () => [
      await settle(bus.dispatch({ ...pre(), tool_input: "ls" })),
      await settle(bus.dispatch("{not json")),
      await settle(bus.dispatch(pre())),
    ]);
  });

  it("the Stop-loop guard lets the agent stop after the cap", async () => {
    const hook = sb.script("keep.sh", "cat >/dev/null\necho 'keep going' >&2\nexit 2");
    const bus = loggedBus({ hooks: { Stop: [group(undefined, hook)] } }, { QHOOKS_STOP_BLOCK_CAP: "2" });
    await capture("stop-loop-guard", bus, async () => {
      const out = [];
      for (let i = 0; i < 3; i++) out.push(await bus.dispatch(stop()));
      return out;
    });
  });

  it("an async hook is logged apart from the outcome", async () => {
    const marker = join(sb.root, "async-done");
    const go = join(sb.root, "async-go");
    // The async hook ends after the outcome is logged, so that the records' order is the same every run.
    const hook = sb.script("async.sh", `cat >/dev/null\nwhile [ ! -e '${go}' ]; do sleep 0.02; done\necho later\ntouch '${marker}'`);
    const sync = sb.script("sync.sh", "cat >/dev/null\nexit 0");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", { command: hook, async: true }, sync)] } });
    await capture("async-hook", bus, async () => {
      const outcome = await bus.dispatch(pre());
      writeFileSync(go, "");
      await waitFor(() => existsSync(marker), "the async hook");
      await waitFor(() => journal(sb.db).some((r) => r.kind === "hook"), "the async hook's record");
      return outcome;
    });
  });

  it("an in-process handler and a command hook", async () => {
    const hook = sb.script("allow.sh", "cat >/dev/null\nexit 0");
    const bus = loggedBus({ hooks: { PreToolUse: [group("Bash", hook)] } });
    bus.use("PreToolUse", "Bash", () => ({ decision: "ask", reason: "check it" }), { name: "asker" });
    await capture("in-process", bus, () => bus.dispatch(pre()));
  });

  it("replay re-judges the logged events with other settings", async () => {
    const bus = loggedBus({ hooks: { PreToolUse: [group("Write|Edit", "true")] } });
    await bus.dispatch(pre());
    await bus.dispatch(pre({ tool_name: "Write", tool_input: { file_path: "/tmp/a" } }));
    await bus.close();
    const block = sb.script("block.sh", "cat >/dev/null\necho 'not now' >&2\nexit 2");
    const settings = sb.file("replay-settings.json", { hooks: { PreToolUse: [group("Bash", block)] } });
    const log = openSqliteLog(sb.db, { mustExist: true });
    let results: unknown[];
    try {
      results = await lastValueFrom(
        replay$({ log, filter: {}, settingsFiles: [settings], homeDir: sb.home, env: sb.env(), cwd: sb.project, runId: "replay-20261203-000000-abcd" }).pipe(
          toArray(),
        ),
      );
    } finally {
      await log.close();
    }
    compareWithFixture("replay", new Normaliser(sb.root).value({ results, journal: journal(sb.db) }));
  });

  it("qhooks run: no hook, one hook that blocks, a rejected payload", async () => {
    const hook = sb.script("block.sh", "cat >/dev/null\necho 'no rm' >&2\nexit 2");
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", hook)] } });
    const none = await sb.runEvent("Stop", stop());
    const blocked = await sb.runEvent("PreToolUse", pre());
    const rejected = await sb.runEvent("PreToolUse", { ...pre(), tool_input: "ls" });
    const side = (r: typeof none) => ({ code: r.code, stdout: r.outcome ?? r.stdout, stderr: r.stderr });
    compareWithFixture("cli-run", new Normaliser(sb.root).value({ result: [side(none), side(blocked), side(rejected)], journal: journal(sb.db) }));
  });
});
