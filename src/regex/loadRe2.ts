import { createRequire } from "node:module";

type Re2js = typeof import("re2js");

let loaded: Re2js | undefined;

/**
 * re2js, loaded the first time a user regex is tested (a quarter of a megabyte that a run with no user regex never
 * reads). In the CLI bundle `require` is esbuild's: the package is in the bundle and its code comes from the code
 * cache; the library's ES modules have no `require` and load it from node_modules.
 */
export function re2js(): Re2js {
  return (loaded ??= typeof require === "function" ? (require("re2js") as Re2js) : (createRequire(import.meta.url)("re2js") as Re2js));
}
