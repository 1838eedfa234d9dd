// Bundles the CLI into dist/bin/: one entry file plus a chunk per command, loaded only by the command that needs it.
// Loading hundreds of ESM files (rxjs, zod, execa, commander) costs more than everything else `qhooks run` does;
// a bundle loads in a fraction of that. The library (dist/src) stays unbundled for the agents that embed it.
import { rmSync, writeFileSync } from "node:fs";
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
  entryPoints: { qhooks: "dist/src/cli/main.js" },
  outdir: "dist/bin",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // better-sqlite3's JavaScript is bundled too; its native addon is loaded from node_modules (nativeBinding.ts).
  external: ["*.node"],
  // Bundled CommonJS dependencies (commander) call require(); ESM output needs one.
  banner: { js: "import { createRequire as __qhooksRequire } from 'node:module'; const require = __qhooksRequire(import.meta.url);" },
  // rxjs's package.json sends Node to its CommonJS build, which cannot be tree-shaken: take its ES modules.
  alias: { rxjs: "./node_modules/rxjs/dist/esm/index.js" },
  minify: true,
  keepNames: false,
  sourcemap: "linked",
  logLevel: "warning",
  metafile: true,
  plugins: [withoutZodLocales],
});
// What each chunk is made of, for whoever looks at start-up time next: npx esbuild --analyze is not needed.
writeFileSync("dist/bin/meta.json", JSON.stringify(result.metafile));
