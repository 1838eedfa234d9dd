import { expect } from "chai";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { COMMANDS } from "../../src/cli/registry/index.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

/** What a user reads: the README, the reference in docs/, the bench's README, and the help of every command. */
const DOCUMENTS = ["README.md", "bench/README.md", ...readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Words that name documents a user of qhooks does not have (the project's internal specifications). */
const FOREIGN = /\.\.\/shared|\bcontract\b|\bthe seed\b|\bseed's\b|\bissue \d+/i;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

const anchorsOf = (text: string) => new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

describe("docs: the documentation stands on its own", () => {
  it("docs/ has the reference pages the README links to", () => {
    for (const page of ["README.md", "hooks.md", "settings.md", "outcome.md", "log.md", "cli.md"]) expect(existsSync(join(REPO_ROOT, "docs", page)), page).to.equal(true);
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    expect(readme).to.include("](docs/README.md)").and.include("](docs/hooks.md)").and.include("](docs/cli.md)");
  });

  for (const document of DOCUMENTS) {
    it(`${document}: every link stays in the repository and points at a file and heading that exist; no internal documents are named`, () => {
      const text = readFileSync(join(REPO_ROOT, document), "utf8");
      expect(text.match(FOREIGN)?.[0], document).to.equal(undefined);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        expect(target, `${document}: ${target}`).not.to.match(/^[a-z][a-z0-9+.-]*:/i);
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const file = path === "" ? join(REPO_ROOT, document) : join(dirname(join(REPO_ROOT, document)), path);
        expect(relative(REPO_ROOT, file), `${document}: ${target}`).not.to.match(/^\.\./);
        expect(existsSync(file), `${document}: ${target}`).to.equal(true);
        if (anchor !== undefined && file.endsWith(".md")) expect([...anchorsOf(readFileSync(file, "utf8"))], `${document}: ${target}`).to.include(anchor);
      }
    });
  }

  it("the help of every command names no internal document either", async () => {
    const sb = new Sandbox();
    try {
      for (const args of [[], ...COMMANDS.filter((c) => !c.hidden).map((c) => [...c.path])]) {
        const r = await sb.run(["help", ...args]);
        expect(r.code, args.join(" ")).to.equal(0);
        expect(r.stdout.match(FOREIGN)?.[0], `qhooks help ${args.join(" ")}`).to.equal(undefined);
      }
    } finally {
      await sb.cleanup();
    }
  });
});
