import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import { runHostile } from "../support/hostileCli.js";
import { REPO_ROOT, type CliResult, type Sandbox } from "../support/sandbox.js";
import { childrenOf } from "../exec/processes.js";

/**
 * Helpers shared by the reliability suite (test/reliability/*.reliability.ts). The suite reuses the sandbox, the
 * process inspection of test/exec/processes.ts and the store helpers; what is here is what only stress, repetition
 * and combined faults need.
 */

/** Mocha runs every test with `@quick` in its title in CI (`npm run test:reliability -- --grep @quick`). */
export const QUICK = "@quick";

/** Built modules the engine scripts import (the suite runs from dist/). */
export const DIST = join(REPO_ROOT, "dist", "src");
export const BUS_MODULE = join(DIST, "engine", "createHookBus.js");

/**
 * Settles `promise` or fails with `what` after `ms`: a coarse behavioural bound ("it does not hang"), never a
 * performance target.
 */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lines that look like a JavaScript stack trace ("    at fn (file:1:2)"). */
export const stackLines = (text: string): string[] => text.split("\n").filter((l) => /^\s+at .+(:\d+:\d+\)?|\(native\))$/.test(l));

/**
 * What every CLI answer must look like whatever the input: no stack trace, no internal error, and every line on
 * stderr is a `qhooks:` line, except a block's reason (exit 2), which is the hooks' own text.
 */
export function expectCleanCli(r: CliResult, label: string): void {
  expect(r.signal, `${label}: died of a signal`).to.equal(null);
  expect(stackLines(r.stderr), `${label}: stack trace on stderr:\n${clip(r.stderr, 2000)}`).to.deep.equal([]);
  expect(stackLines(r.stdout), `${label}: stack trace on stdout`).to.deep.equal([]);
  expect(/internal error/.test(r.stderr), `${label}: internal error: ${clip(r.stderr)}`).to.equal(false);
  if (r.code !== 2) {
    for (const line of r.stderr.split("\n").filter((l) => l !== ""))
      expect(line.startsWith("qhooks: "), `${label}: stray stderr line: ${clip(line)}`).to.equal(true);
  }
}

/** The watchdog shell of an engine process (a child of it running the watchdog script). */
export const WATCHDOG_SIGNATURE = "trap '' INT TERM HUP QUIT";
export function watchdogOf(pid: number): number | undefined {
  return childrenOf(pid).find((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, "utf8").includes(WATCHDOG_SIGNATURE);
    } catch {
      return false;
    }
  });
}

/** A node process running an ES module script given as text; output collected, killable. */
export interface Script {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  /** SIGKILL if still running. */
  stop(): void;
}

export function runScript(source: string, options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; args?: readonly string[] }): Script {
  const start = performance.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", source, "--", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout!.on("data", (c: Buffer) => stdout.push(c));
  child.stderr!.on("data", (c: Buffer) => stderr.push(c));
  child.stdin!.on("error", () => undefined);
  child.stdin!.end(options.input ?? "");
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), ms: performance.now() - start }),
    );
  });
  return {
    child,
    done,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** A small deterministic PRNG (mulberry32), for the random moments of kill loops: reruns see the same moments. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** At most `max` characters of a text for an assertion message: hostile input is megabytes long. */
export const clip = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);

/**
 * fc.assert with a short report: the seed, the path to replay, the error, and the counterexample cut down to a
 * readable size (fast-check would print a multi-megabyte payload in full).
 */
export async function checkProperty<T>(property: fc.IAsyncProperty<[T]>, params: { seed: number; numRuns: number }): Promise<void> {
  const details = await fc.check(property, { ...params, endOnFailure: true });
  if (!details.failed) return;
  const example = details.counterexample === null ? "(none)" : clip(JSON.stringify(details.counterexample[0]) ?? "", 600);
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexample ? details.counterexamplePath : ""}"): ${clip(cause, 1500)}\ncounterexample: ${example}`,
  );
}

/**
 * Runs `fn` over `items` with at most `limit` at once, and stops starting new items after the first failure (so a
 * failed test leaves nothing running into the next one).
 */
export async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}

/**
 * Runs the real CLI and SIGKILLs it if it has not exited after `deadlineMs` (a stalled engine must not stall the
 * suite); `hung` says whether that happened.
 */
export function cliWithDeadline(
  sb: Sandbox,
  args: readonly string[],
  options: { input?: string | Buffer; env?: Record<string, string | undefined>; deadlineMs: number },
): Promise<CliResult & { hung: boolean }> {
  return runHostile(sb, args, { stdin: options.input ?? "", deadlineMs: options.deadlineMs, ...(options.env ? { env: options.env } : {}) });
}
