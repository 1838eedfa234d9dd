import { expect } from "chai";
import { join } from "node:path";
import { REPO_ROOT } from "../support/sandbox.js";
import { importGraph } from "../support/importGraph.js";

/**
 * The store's backends (docs/architecture.md): journal/ holds what every backend shares and imports neither;
 * sqlite/ and postgres/ hold only their own SQL and driver code and never import each other. What needs both
 * (ship.ts copies a local SQLite log to PostgreSQL) lives above them, in store/ itself.
 */
describe("architecture: the store's backends stay apart", () => {
  const { edges } = importGraph(join(REPO_ROOT, "src"));
  const folder = (file: string): string | null => /^store\/(journal|sqlite|postgres)\//.exec(file)?.[1] ?? null;
  const crossing = (from: string, to: readonly string[]) =>
    edges.filter((e) => folder(e.from) === from && to.includes(folder(e.to) ?? "")).map((e) => `${e.from} imports ${e.to}`);

  it("store/postgres imports nothing of store/sqlite, and store/sqlite nothing of store/postgres", () => {
    expect(crossing("postgres", ["sqlite"])).to.deep.equal([]);
    expect(crossing("sqlite", ["postgres"])).to.deep.equal([]);
  });

  it("store/journal imports neither backend", () => {
    expect(crossing("journal", ["sqlite", "postgres"])).to.deep.equal([]);
  });

  it("the check sees the backends' imports at all (the folders exist and import the journal)", () => {
    expect(crossing("sqlite", ["journal"])).to.not.be.empty;
    expect(crossing("postgres", ["journal"])).to.not.be.empty;
  });
});
