/**
 * Run in its own process by case 5h: another writer of the same log, as a `qhooks record` hook would be. Appends one
 * recorded event every `intervalMs` for `durationMs` and prints one JSON line with the latency of each append (from
 * the call to its commit) in milliseconds. Starts appending when its stdin says "go", so that the two sides of the
 * measurement start together.
 */
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { preToolUsePayload } from "../fixtures.js";

const [db, durationArg, intervalArg] = process.argv.slice(2) as [string, string, string];
const durationMs = Number(durationArg);
const intervalMs = Number(intervalArg);
const log = openSqliteLog(db);
const payload = preToolUsePayload({ sessionId: "second-writer" });
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
const latencies: number[] = [];
let failures = 0;
const end = performance.now() + durationMs;
while (performance.now() < end) {
  const start = performance.now();
  try {
    await log.append([
      {
        kind: "event",
        ts: new Date(),
        source: "record",
        event: "PreToolUse",
        sessionId: "second-writer",
        matchValue: "Bash",
        projectDir: "/bench",
        payload,
        snapshot: null,
        rejection: null,
        replay: null,
        outcome: null,
      },
    ]);
    latencies.push(performance.now() - start);
  } catch {
    failures++;
  }
  const left = intervalMs - (performance.now() - start);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}
await log.close();
process.stdout.write(`${JSON.stringify({ latencies, failures })}\n`);
process.stdin.destroy();
