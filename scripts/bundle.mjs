// Bundles the CLI into dist/bin/: cli.cjs (the whole CLI, each command's code evaluated only when that command
// runs), qhooks.cjs (the command itself: runs cli.cjs with V8's code cache, see src/cli/bin.cts), and the code
// cache, made by a warm-up `qhooks run`. Loading hundreds of ESM files (rxjs, zod, execa, commander) cost more than
// everything else `qhooks run` does, and compiling the bundle most of what was left. The library (dist/src) stays
// unbundled for the agents that embed it.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

rmSync("dist/bin", { recursive: true, force: true });

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
  external: ["*.node"],
  define: { "import.meta.url": "__qhooksUrl", "import.meta.resolve": "__qhooksResolve" },
  banner: {
    js:
      "const __qhooksUrl = require('node:url').pathToFileURL(__filename).href;" +
      " const __qhooksResolve = (s) => require('node:url').pathToFileURL(require.resolve(s)).href;",
  },
  // rxjs's package.json sends Node to its CommonJS build, which cannot be tree-shaken: take its ES modules.
  // jsonc-parser's CommonJS build is UMD, whose requires esbuild cannot follow: take its ES modules too.
  alias: { rxjs: "./node_modules/rxjs/dist/esm/index.js", "jsonc-parser": "./node_modules/jsonc-parser/lib/esm/main.js" },
  minify: true,
  keepNames: false,
  sourcemap: "linked",
  logLevel: "warning",
  metafile: true,
  plugins: [withoutZodLocales],
});
// What the bundle is made of, for whoever looks at start-up time next: npx esbuild --analyze is not needed.
writeFileSync("dist/bin/meta.json", JSON.stringify(result.metafile));

copyFileSync("dist/src/cli/bin.cjs", "dist/bin/qhooks.cjs");
chmodSync("dist/bin/qhooks.cjs", 0o755);

// The warm-up: one logged `qhooks run` with one hook, in a scratch HOME and project, compiles what a dispatch
// needs; the command writes the code cache as it exits.
const scratch = mkdtempSync(join(tmpdir(), "qhooks-build-"));
try {
  const settings = join(scratch, "settings.json");
  writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "cat > /dev/null" }] }] } }));
  const payload = { session_id: "build", transcript_path: join(scratch, "t.jsonl"), cwd: scratch, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "true" } };
  const env = { ...process.env, HOME: scratch, QHOOKS_DB: join(scratch, "events.db") };
  delete env.QHOOKS_CALL_CHAIN;
  const args = ["dist/bin/qhooks.cjs", "run", "PreToolUse", "--settings", settings, "--project-dir", scratch];
  const warmUp = spawnSync(process.execPath, args, { input: JSON.stringify(payload), env, encoding: "utf8" });
  if (warmUp.status !== 0 || !existsSync("dist/bin/cli.cjs.cache")) {
    throw new Error(`the bundled CLI failed its warm-up run (exit ${warmUp.status}): ${warmUp.stderr || warmUp.error}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
