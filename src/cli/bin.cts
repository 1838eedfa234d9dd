#!/usr/bin/env node
// The `qhooks` command: runs the CLI bundle (dist/bin/cli.cjs) with V8's code cache.
//
// Agents start `qhooks run` on every tool call, so its start-up is paid thousands of times a day. Most of what is
// left of it once the CLI is bundled is V8 compiling the bundle: Node 22 caches that (module.enableCompileCache),
// Node 20 does not, but vm.Script takes a code cache made by an earlier run. The build makes one with a warm-up
// run; this file keeps it honest: a cache older than the bundle is not used, a cache V8 rejects (another node
// version) is replaced, and any failure here only costs the compile it would have saved.
import { accessSync, constants, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";

const bundle = join(__dirname, "cli.cjs");
const cacheFile = `${bundle}.cache`;

function freshCache(): Buffer | undefined {
  try {
    return statSync(cacheFile).mtimeMs >= statSync(bundle).mtimeMs ? readFileSync(cacheFile) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the cache for the next runs, atomically (many agents may start qhooks at once); best effort. */
function saveCache(script: Script): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    accessSync(dirname(cacheFile), constants.W_OK);
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, cacheFile);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}

// "#!" becomes "//": the shebang is not JavaScript, and the same length keeps every position of the source map.
const source = readFileSync(bundle, "utf8").replace(/^#!/, "//");
const cachedData = freshCache();
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: bundle,
  cachedData,
});
// Once the run is over, so that the cache holds the functions it compiled, not only the top level.
if (cachedData === undefined || script.cachedDataRejected) process.once("exit", () => saveCache(script));
const cli = { exports: {} };
script.runInThisContext()(cli.exports, createRequire(bundle), cli, bundle, dirname(bundle));
