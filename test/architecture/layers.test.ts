import { expect } from "chai";
import { join } from "node:path";
import { REPO_ROOT } from "../support/sandbox.js";
import { cycles, importGraph, type ImportEdge } from "../support/importGraph.js";

/**
 * The layers of src/, bottom up: a file imports only from its own layer or the ones below (docs/architecture.md).
 * Adapters, one layer, do not import each other but where EXCEPTIONS says why.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["errors.ts", "text", "json", "schema"],
  ["core", "regex", "payload", "output", "hosts"],
  ["settings", "trust", "redact", "exec", "store", "handlers"],
  ["engine"],
  ["explain", "hooktest", "export", "install", "doctor", "report", "display"],
  ["cli", "server", "index.ts"],
];
const ADAPTERS = new Set(LAYERS[2]);

/**
 * Imports that break the rule today, each with its reason; the re-layering removes them one by one. An exception
 * that no import needs any more fails the test too, so the list only shrinks.
 */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  "settings -> redact": "a settings file's qhooks.redact patterns are compiled where the file is read",
  "redact -> store": "redactEntry redacts the log's own entry type",
  "trust -> settings": "trust pins hooks as the settings reader parsed them",
  "handlers -> exec": "the chat evaluator posts with the http runner's client",
  "exec -> trust": "a trusted hook runs the very bytes trust checked (trust/verifiedRun opens, hashes and hands them over)",
  "handlers -> redact": "async hooks redact what they log",
  "handlers -> settings": "$CLAUDE_ENV_FILE is read with the settings reader's bounded, non-blocking regular-file reader",
  "handlers -> store": "async hooks log their results",
};

/** Folder cycles still to break, with the reason; like EXCEPTIONS, the list only shrinks. */
const KNOWN_FOLDER_CYCLES: Readonly<Record<string, string>> = {};

const folderOf = (file: string): string => (file.includes("/") ? file.slice(0, file.indexOf("/")) : file);
const rank = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as const)));

describe("architecture: imports point down", () => {
  const { files, edges } = importGraph(join(REPO_ROOT, "src"));
  const between = edges.filter((e) => folderOf(e.from) !== folderOf(e.to));

  it("every folder of src/ has its layer", () => {
    const unplaced = [...new Set(files.map(folderOf))].filter((f) => !rank.has(f));
    expect(unplaced, "add it to LAYERS").to.deep.equal([]);
  });

  it("no import cycle between files, type-only imports included", () => {
    expect(cycles(files, edges)).to.deep.equal([]);
  });

  it("no import cycle between folders", () => {
    const folders = [...new Set(files.map(folderOf))];
    const found = cycles(
      folders,
      between.map((e) => ({ from: folderOf(e.from), to: folderOf(e.to) })),
    ).map((c) => c.join(","));
    expect(
      found.filter((c) => !(c in KNOWN_FOLDER_CYCLES)),
      "a new cycle",
    ).to.deep.equal([]);
    expect(
      Object.keys(KNOWN_FOLDER_CYCLES).filter((c) => !found.includes(c)),
      "cycles broken: remove them from the list",
    ).to.deep.equal([]);
  });

  it("no import points up a layer, and adapters import each other only where the exceptions say why", () => {
    const breaking = (e: ImportEdge): boolean => {
      const [from, to] = [folderOf(e.from), folderOf(e.to)];
      return rank.get(to)! > rank.get(from)! || (ADAPTERS.has(from) && ADAPTERS.has(to));
    };
    const found = new Map<string, string[]>();
    for (const e of between.filter(breaking)) {
      const key = `${folderOf(e.from)} -> ${folderOf(e.to)}`;
      found.set(key, [...(found.get(key) ?? []), `${e.from} imports ${e.to}`]);
    }
    const unexplained = [...found].filter(([key]) => !(key in EXCEPTIONS)).flatMap(([, list]) => list);
    expect(unexplained, "an import against the layers").to.deep.equal([]);
    const stale = Object.keys(EXCEPTIONS).filter((key) => !found.has(key));
    expect(stale, "exceptions no import needs any more: remove them").to.deep.equal([]);
  });
});
