/**
 * `npm run bench [-- --quick] [-- --peer gemini] [-- --only 1,2,5]`: every hot path of qhooks measured next to its
 * floor in the same run; a table on stdout, the numbers in bench/results/latest.json. Misses are reported, never
 * hidden: the exit status is 0 whatever the results (the bench is not a test).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, release } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { ensureBigLog, type BigLog } from "./bigLog.js";
import { FULL, QUICK, type BenchConfig } from "./config.js";
import { preToolUsePayload, RESULTS_DIR } from "./fixtures.js";
import { progress, resultsTable, type CaseResult } from "./harness.js";
import { startupCase } from "./cases/startup.js";
import { dispatchHookCases } from "./cases/dispatchHooks.js";
import { noMatchCases } from "./cases/noMatch.js";
import { logStoreCases } from "./cases/logStore.js";
import { projectionCases } from "./cases/projections.js";
import { replayCases } from "./cases/replay.js";
import { memoryCases } from "./cases/memory.js";
import { watchdogCases } from "./cases/watchdog.js";
import { trustCases } from "./cases/trust.js";
import { redactionCases } from "./cases/redaction.js";
import { postgresCases } from "./cases/postgres.js";
import { serverCases } from "./cases/server.js";
import type { Peer } from "./peer/peer.js";

const GROUPS = ["1", "2", "4", "S", "W", "T", "R", "5", "6", "7", "8"] as const;

function parseArgs(argv: readonly string[]): { config: BenchConfig; peer: string | null; only: Set<string> } {
  let config = FULL;
  let peer: string | null = null;
  let only = new Set<string>(GROUPS);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quick") config = QUICK;
    else if (arg === "--peer") peer = argv[++i] ?? null;
    else if (arg.startsWith("--peer=")) peer = arg.slice("--peer=".length);
    else if (arg === "--only") only = new Set((argv[++i] ?? "").split(",").map((s) => (s.trim() === "3" ? "2" : s.trim())));
    else if (arg === "--help" || arg === "-h") {
      process.stdout.write("usage: npm run bench [-- --quick] [-- --peer gemini] [-- --only 1,2,4,S,W,T,5,6,7,8]\n");
      process.exit(0);
    } else {
      process.stderr.write(`bench: unknown argument ${arg}\n`);
      process.exit(1);
    }
  }
  if (peer !== null && peer !== "gemini") {
    process.stderr.write(`bench: unknown peer ${peer} (known: gemini)\n`);
    process.exit(1);
  }
  return { config, peer, only };
}

function machine() {
  const db = new Database(":memory:");
  const sqlite = (db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
  db.close();
  const cpu = cpus();
  return {
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? "unknown",
    memoryMB: Math.round(totalmem() / 1024 / 1024),
    node: process.version,
    platform: `${process.platform} ${release()}`,
    sqlite,
    /** 1, 5 and 15 minute load averages: other work on the machine inflates absolute times, less so the ratios. */
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

async function main(): Promise<void> {
  const { config, peer: peerName, only } = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
  const results: CaseResult[] = [];
  let peer: Peer | null = null;
  let peerNote: string | null = null;
  if (peerName === "gemini") {
    const { startGeminiPeer } = await import("./peer/gemini.js");
    const started = await startGeminiPeer();
    if (typeof started === "string") {
      peerNote = started;
      process.stdout.write(`peer gemini skipped: ${started}\n`);
    } else peer = started;
  }
  let big: BigLog | null = null;
  const bigLog = async () => (big ??= await ensureBigLog(config.logEvents));
  let peerDetails: string | null = null;
  try {
    if (peer?.notes) peerDetails = await peer.notes(preToolUsePayload());
    if (only.has("1")) results.push(...(await startupCase(config)));
    if (only.has("2")) results.push(...(await dispatchHookCases(config, peer)));
    if (only.has("4")) results.push(...(await noMatchCases(config, peer)));
    if (only.has("S")) results.push(...(await serverCases(config)));
    if (only.has("W")) results.push(...(await watchdogCases(config)));
    if (only.has("T")) results.push(...(await trustCases(config)));
    if (only.has("R")) results.push(...(await redactionCases(config)));
    if (only.has("5")) results.push(...(await logStoreCases(config, await bigLog())), ...(await projectionCases(config)));
    if (only.has("6")) results.push(...(await replayCases(config)));
    if (only.has("7")) results.push(...(await memoryCases(config, await bigLog())));
    if (only.has("8")) results.push(...(await postgresCases(config, await bigLog())));
  } finally {
    await peer?.close();
  }

  const seconds = (performance.now() - started) / 1000;
  const m = machine();
  const header =
    `qhooks bench (${config.quick ? "--quick" : "full"}), ${m.cpus} CPUs, node ${process.version}, ${seconds.toFixed(0)} s, ` +
    `load average ${loadBefore[0]} at start, ${m.loadAverage[0]} at end`;
  process.stdout.write(`\n${header}\n\n${resultsTable(results)}\n`);
  const notes = results.filter((r) => r.notes).map((r) => `  ${r.id}: ${r.notes}`);
  if (peer && peerDetails) notes.push(`  peer: ${peerDetails}`);
  if (notes.length) process.stdout.write(`\n${notes.join("\n")}\n`);
  const misses = results.filter((r) => r.pass === false).map((r) => r.id);
  process.stdout.write(`\n${misses.length ? `MISS: ${misses.join(", ")}` : "every target met"}\n`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, "latest.json");
  const report = {
    date: new Date().toISOString(),
    mode: config.quick ? "quick" : "full",
    seconds,
    machine: { ...m, loadAverageAtStart: loadBefore },
    config,
    peer: peer ? { name: peer.name, notes: peerDetails } : peerNote ? { skipped: peerNote } : null,
    bigLog: big,
    results,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  progress(`numbers written to ${file}`);
}

await main();
