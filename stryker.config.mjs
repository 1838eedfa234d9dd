// `npm run test:mutation`: StrykerJS mutates the pure rules below and runs the unit tests of .mocharc.mutation.json
// against each mutant. Not part of `npm test` or CI: it takes minutes, and its score is read, not asserted.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    "src/core/foldOutcome.ts",
    "src/core/readRun.ts",
    "src/engine/turnBudget.ts",
    "src/engine/oneResult.ts",
    "src/engine/steps/aggregateOutcome.ts",
    "src/output/hookProtocol.ts",
    "src/output/relayedFields.ts",
    "src/settings/stopBlockCap.ts",
    "src/text/*.ts",
    "src/json/*.ts",
  ],
  // Stryker's mocha runner cannot load mocha 12 (its CLI helpers became .cjs files), so each mutant is a plain mocha
  // run: the command runner. The mutated sources are compiled once in Stryker's sandbox; the active mutant is chosen
  // by an environment variable the compiled code reads.
  testRunner: "command",
  commandRunner: { command: "node node_modules/mocha/bin/mocha.js --config .mocharc.mutation.json" },
  // Run before node_modules is linked into the sandbox: tsc is found on the PATH, the types in the folder above.
  buildCommand: "tsc -p .",
  // Stryker would rewrite tsconfig.json's references with the TypeScript 5 API, which TypeScript 7 no longer has;
  // this tsconfig has none to rewrite, so it is pointed at no file.
  tsconfigFile: "no-tsconfig-to-rewrite.json",
  // Biome would find the sandbox's biome.json as a second root configuration while a run is going on.
  ignorePatterns: ["dist", "artifacts", "bench/results", "demo/.demo", "biome.json"],
  concurrency: 2,
  timeoutMS: 10000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "artifacts/mutation/mutation.html" },
  jsonReporter: { fileName: "artifacts/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
