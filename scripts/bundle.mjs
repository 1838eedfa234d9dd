// Bundles the CLI into dist/bin/: cli.cjs (the whole CLI, each command's code evaluated only when that command
// runs), qhooks.cjs (the command itself: runs cli.cjs with V8's code cache, see src/cli/bin.cts), and, for this
// checkout only, a code cache made by a warm-up `qhooks run` (an installed package makes its own in the user's cache
// directory: a cache is tied to the node version). Loading hundreds of ESM files (rxjs, zod, commander) cost
// more than everything else `qhooks run` does, and compiling the bundle most of what was left. The library stays
// unbundled for the agents that import it (dist/src, ES modules); dist/cjs/index.cjs is the same library as one
// CommonJS file, for those that `require` it.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

rmSync("dist/bin", { recursive: true, force: true });
rmSync("dist/cjs", { recursive: true, force: true });
mkdirSync("dist/meta", { recursive: true });

/** `import.meta` in a CommonJS bundle: what the ES modules use to find files next to them and in node_modules. */
const importMetaInCjs = {
  define: { "import.meta.url": "__qhooksUrl", "import.meta.resolve": "__qhooksResolve" },
  banner: {
    js:
      "const __qhooksUrl = require('node:url').pathToFileURL(__filename).href;" +
      " const __qhooksResolve = (s) => require('node:url').pathToFileURL(require.resolve(s)).href;",
  },
};

/**
 * zod's `z` namespace carries `z.locales`: error messages in some forty languages, 260 KB that every `qhooks run`
 * would parse. qhooks only ever uses the English messages zod configures by default, so the namespace gets an
 * empty stand-in (the English locale itself is imported separately by zod and stays).
 */
const withoutZodLocales = {
  name: "without-zod-locales",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/zod/") ? { path: "zod-locales", namespace: "qhooks-stub" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "qhooks-stub" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

/**
 * commander requires `node:child_process` when it loads, for subcommands that are executables of their own, which
 * qhooks has none of; loading it (with `net`, `dgram` and their streams) was about 5 ms of every `qhooks run`.
 * The bundle asks for it only where commander would start such a subcommand.
 */
const commanderWithoutChildProcess = {
  name: "commander-without-child-process",
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`${args.path} no longer loads child_process as scripts/bundle.mjs expects: look at it again`);
      return { contents: source.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"), loader: "js" };
    });
  },
};

const result = await build({
  entryPoints: ["dist/src/cli/main.js"],
  outfile: "dist/bin/cli.cjs",
  bundle: true,
  // CommonJS, one file: vm.Script (and so a code cache) takes a script, not modules. Dynamic imports of bundled
  // modules become lazy initialisers: a command's code is compiled from the cache but evaluated only when it runs.
  format: "cjs",
  platform: "node",
  target: "node20",
  // better-sqlite3's JavaScript is bundled too; its native addon is loaded from node_modules (nativeBinding.ts).
  // The PostgreSQL client and the OpenTelemetry SDK are loaded from node_modules, and only by the commands that use
  // them: bundled, they doubled the script every `qhooks run` reads and checks against its code cache.
  external: ["*.node", "pg", "pg-native", "@opentelemetry/*"],
  ...importMetaInCjs,
  // rxjs's package.json sends Node to its CommonJS build, which cannot be tree-shaken: take its ES modules.
  // jsonc-parser's CommonJS build is UMD, whose requires esbuild cannot follow: take its ES modules too.
  alias: { rxjs: "./node_modules/rxjs/dist/esm/index.js", "jsonc-parser": "./node_modules/jsonc-parser/lib/esm/main.js" },
  minify: true,
  keepNames: false,
  logLevel: "warning",
  metafile: true,
  plugins: [withoutZodLocales, commanderWithoutChildProcess],
});
// What the bundle is made of, for whoever looks at start-up time next (outside dist/bin: it is not shipped).
writeFileSync("dist/meta/cli.json", JSON.stringify(result.metafile));

// The library for `require`: qhooks itself is ES modules, which `require` loads only from Node 20.19 on. Its
// dependencies stay packages of their own (an agent's rxjs and zod objects must be the library's).
await build({
  entryPoints: ["dist/src/index.js"],
  outfile: "dist/cjs/index.cjs",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "rxjs", "rxjs/*", "zod", "zod/*", "re2js", "jsonc-parser", "*.node", "pg", "pg-native"],
  ...importMetaInCjs,
  logLevel: "warning",
});

// The forward client (src/cli/forwardClient.ts): what `qhooks run --format hook` loads first, to hand the run to a
// running `qhooks serve`. Its own small file: when it answers, the CLI bundle is never read.
await build({
  entryPoints: ["dist/src/cli/forwardClient.js"],
  outfile: "dist/bin/forward.cjs",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  ...importMetaInCjs,
  minify: true,
  logLevel: "warning",
});

copyFileSync("dist/src/cli/bin.cjs", "dist/bin/qhooks.cjs");
chmodSync("dist/bin/qhooks.cjs", 0o755);

// The warm-up: one logged `qhooks run` with one hook, in a scratch HOME and project, compiles what a dispatch
// needs; the command writes the code cache into its (scratch) cache directory as it exits, and the cache is copied
// beside the bundle, where this checkout's `qhooks` finds it.
const scratch = mkdtempSync(join(tmpdir(), "qhooks-build-"));
try {
  const settings = join(scratch, "settings.json");
  // A regex matcher too: re2js (bundled, evaluated only when a user regex is first tested) gets into the cache, so
  // that a configuration with one does not compile the engine on every run.
  writeFileSync(
    settings,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: "*", hooks: [{ type: "command", command: "cat > /dev/null" }] },
          { matcher: "^Ba.h$", hooks: [{ type: "command", command: "cat > /dev/null" }] },
        ],
      },
    }),
  );
  const payload = {
    session_id: "build",
    transcript_path: join(scratch, "t.jsonl"),
    cwd: scratch,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "true" },
  };
  const env = { ...process.env, HOME: scratch, XDG_CACHE_HOME: join(scratch, "cache"), QHOOKS_DB: join(scratch, "events.db") };
  delete env.QHOOKS_CALL_CHAIN;
  const args = ["dist/bin/qhooks.cjs", "run", "PreToolUse", "--settings", settings, "--project-dir", scratch];
  const warmUp = spawnSync(process.execPath, args, { input: JSON.stringify(payload), env, encoding: "utf8" });
  const made = warmUp.status === 0 ? readdirSync(join(scratch, "cache", "qhooks")).filter((f) => f.endsWith(".cache")) : [];
  if (made.length !== 1) throw new Error(`the bundled CLI failed its warm-up run (exit ${warmUp.status}): ${warmUp.stderr || warmUp.error || "no code cache"}`);
  copyFileSync(join(scratch, "cache", "qhooks", made[0]), "dist/bin/cli.cjs.cache");
  chmodSync("dist/bin/cli.cjs.cache", 0o644);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
