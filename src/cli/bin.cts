#!/usr/bin/env node
// The `qhooks` command: runs the CLI bundle (dist/bin/cli.cjs) with V8's code cache.
//
// Agents start `qhooks run` on every tool call, so its start-up is paid thousands of times a day. Most of what is
// left of it once the CLI is bundled is V8 compiling the bundle: Node 22 caches that (module.enableCompileCache),
// Node 20 does not, but vm.Script takes a code cache made by an earlier run. The cache lives in the user's cache
// directory (`$XDG_CACHE_HOME/qhooks`, else `~/.cache/qhooks`, `~/Library/Caches/qhooks` on macOS), one file per
// bundle and node version: never in the installed package, which may be shared, read-only, or owned by root. A
// checkout's build also leaves one beside the bundle (`cli.cjs.cache`), which is read but never written here. A
// cache older than the bundle, not the user's own, or rejected by V8 is not used, and any failure here only costs
// the compile it would have saved.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, type Stats } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { Script } from "node:vm";

const bundle = join(__dirname, "cli.cjs");
const builtCache = `${bundle}.cache`;

/** FNV-1a: a short, stable name for the bundle's path (node:crypto would cost more start-up than it saves). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/** This bundle's cache file for this node in the user's cache directory; undefined when there is no home. */
function userCacheFile(bundleStat: Stats): string | undefined {
  const xdg = process.env.XDG_CACHE_HOME;
  let base: string;
  if (xdg !== undefined && isAbsolute(xdg)) base = xdg;
  else {
    const home = homedir();
    if (!isAbsolute(home)) return undefined;
    base = process.platform === "darwin" ? join(home, "Library", "Caches") : join(home, ".cache");
  }
  // Another build, install or node version gets another file, so that two of them never take turns rewriting one.
  const key = `${process.version}-${process.arch}-${fnv1a(bundle)}-${bundleStat.size.toString(36)}-${Math.trunc(bundleStat.mtimeMs).toString(36)}`;
  return join(base, "qhooks", `cli-${key}.cache`);
}

/** A cache file that may be used: at least as new as the bundle and, in a shared cache directory, the user's own. */
function usable(file: string | undefined, bundleStat: Stats): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    const stat = statSync(file);
    if (stat.mtimeMs < bundleStat.mtimeMs) return undefined;
    if (file !== builtCache && process.getuid !== undefined && stat.uid !== process.getuid()) return undefined;
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the cache for the next runs, atomically (many agents may start qhooks at once); best effort. */
function saveCache(script: Script, file: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, script.createCachedData());
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}

/** Loads and runs the CLI bundle, from the code cache when there is a usable one. */
function runCli(): void {
  let bundleStat: Stats | undefined;
  try {
    bundleStat = statSync(bundle);
  } catch {
    // readFileSync below says what is wrong
  }
  const userCache = bundleStat && userCacheFile(bundleStat);
  const cachedData = bundleStat && (usable(userCache, bundleStat) ?? usable(builtCache, bundleStat));

  // "#!" becomes "//": the shebang is not JavaScript, and the same length keeps every position of the bundle.
  const source = readFileSync(bundle, "utf8").replace(/^#!/, "//");
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
  });
  // Once the run is over, so that the cache holds the functions it compiled, not only the top level.
  if (userCache !== undefined && (cachedData === undefined || script.cachedDataRejected)) process.once("exit", () => saveCache(script, userCache));
  const cli = { exports: {} };
  script.runInThisContext()(cli.exports, createRequire(bundle), cli, bundle, dirname(bundle));
}

/**
 * `qhooks run --format hook` may be answered by the user's running `qhooks serve` (dist/bin/forward.cjs, see
 * src/cli/forwardClient.ts) without loading the CLI at all; it says false whenever the run is this process's to
 * judge. Only a command line that names `run` and `hook` loads it, so that no other command pays for the check.
 */
const words = process.argv.slice(2);
let forwarding: Promise<boolean> | null = null;
if (process.env.QHOOKS_NO_FORWARD !== "1" && words.includes("run") && words.some((w) => w === "hook" || w === "--format=hook")) {
  try {
    const client = require(join(__dirname, "forward.cjs")) as { forward(words: readonly string[]): Promise<boolean> };
    forwarding = client.forward(words);
  } catch {
    // not built (a checkout's tsc output alone): the run is judged here
  }
}
if (forwarding === null) runCli();
else
  forwarding.then(
    (answered) => answered || runCli(),
    () => runCli(),
  );
