import { expect } from "chai";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { REPO_ROOT } from "../support/sandbox.js";

/**
 * The package's runtime exports are a list kept in publicSurface.json: a name added or dropped (an internal rename
 * leaking out, a helper exported by `export *`) fails here until the list, and the CHANGELOG, say so.
 */
const LISTED: string[] = JSON.parse(readFileSync(join(REPO_ROOT, "test/package/publicSurface.json"), "utf8"));

describe("package: the public surface is a list", () => {
  it("the ES module exports exactly the listed names", async () => {
    const esm = await import(join(REPO_ROOT, "dist/src/index.js"));
    expect(Object.keys(esm).sort()).to.deep.equal([...LISTED].sort());
  });

  it("the CommonJS build exports the same names", () => {
    const cjs = createRequire(import.meta.url)(join(REPO_ROOT, "dist/cjs/index.cjs")) as Record<string, unknown>;
    expect(
      Object.keys(cjs)
        .filter((k) => k !== "__esModule")
        .sort(),
    ).to.deep.equal([...LISTED].sort());
  });

  it("src/index.ts names each export: no `export *`", () => {
    expect(readFileSync(join(REPO_ROOT, "src/index.ts"), "utf8")).not.to.match(/export\s+(type\s+)?\*/);
  });
});
