import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/registry/index.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

/** What a user reads: the top-level documents, docs/, the bench's README, and the help of every command. */
const DOCUMENTS = [
  ...readdirSync(REPO_ROOT).filter((f) => f.endsWith(".md")),
  "bench/README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The link checker `npm test` runs (scripts/check-links.mjs), on the repository or on another folder. */
const checkLinks = (root?: string) =>
  spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "check-links.mjs"), ...(root === undefined ? [] : ["--root", root])], { encoding: "utf8" });

/** Words that name documents a user of qhooks does not have (the project's internal specifications). */
const FOREIGN = /\.\.\/shared|\bcontract\b|\bthe seed\b|\bseed's\b|\bissue \d+/i;

describe("docs: the documentation stands on its own", () => {
  it("docs/ has the reference pages the README links to", () => {
    for (const page of ["README.md", "hooks.md", "settings.md", "outcome.md", "log.md", "cli.md"])
      expect(existsSync(join(REPO_ROOT, "docs", page)), page).to.equal(true);
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    expect(readme).to.include("](docs/README.md)").and.include("](docs/hooks.md)").and.include("](docs/cli.md)");
  });

  it("every relative link and #anchor of the documentation resolves, and none leaves the repository (scripts/check-links.mjs)", () => {
    const r = checkLinks();
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^check-links: ok/m);
  });

  it("the link checker finds a missing file, a missing heading, a link out of the repository and an outside URL", () => {
    const root = mkdtempSync(join(tmpdir(), "qhooks-links-"));
    try {
      mkdirSync(join(root, "docs"));
      writeFileSync(join(root, "docs", "a.md"), "# A page\n\n## Its part\n\n```sh\n# Not a heading\n```\n");
      const links = [
        "[fine](docs/a.md#its-part)",
        "[fine too](#top)",
        "`[an example in code, not a link](missing.md)`",
        "[gone](docs/b.md)",
        "[no heading](docs/a.md#not-a-heading)",
        "[out](../elsewhere.md)",
        "[web](https://example.com/)",
      ];
      writeFileSync(join(root, "README.md"), `# Top\n\n${links.join("\n")}\n`);
      const r = checkLinks(root);
      expect(r.status).to.equal(1);
      expect(r.stdout.trim().split("\n")).to.deep.equal([
        "README.md:6: docs/b.md: no such file: docs/b.md",
        "README.md:7: docs/a.md#not-a-heading: no heading #not-a-heading in docs/a.md",
        "README.md:8: ../elsewhere.md: points outside the repository",
        "README.md:9: https://example.com/: links outside the repository (the docs link only to files in it)",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  for (const document of DOCUMENTS) {
    it(`${document}: names no internal document`, () => {
      const text = readFileSync(join(REPO_ROOT, document), "utf8");
      expect(text.match(FOREIGN)?.[0], document).to.equal(undefined);
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
