import { expect } from "chai";
import { namedFiles, type CommandPlace } from "../../src/trust/namedFiles.js";

/** The rule that decides which files a hook's command runs, and therefore which bytes trust pins. */
describe("trust: the files a command names", () => {
  const project = "/work/proj";
  const plugin = "/home/u/.claude/plugins/cache/m/guard/1.0.0";
  const place: CommandPlace = { projectDir: project, homeDir: "/home/u", pluginRoot: null, pluginData: null, roots: [project] };
  const pluginPlace: CommandPlace = { ...place, pluginRoot: plugin, pluginData: "/home/u/.claude/plugins/data/guard", roots: [project, plugin] };
  const files = (command: string, where: CommandPlace = place) => namedFiles(command, where);

  it("the program, written as a path: relative to the project, or through $CLAUDE_PROJECT_DIR in any spelling", () => {
    expect(files("./scripts/guard.sh --flag")).to.deep.equal([`${project}/scripts/guard.sh`]);
    expect(files(".qoder/hooks/x.sh")).to.deep.equal([`${project}/.qoder/hooks/x.sh`]);
    expect(files("$CLAUDE_PROJECT_DIR/.qoder/hooks/x.sh")).to.deep.equal([`${project}/.qoder/hooks/x.sh`]);
    expect(files('"$CLAUDE_PROJECT_DIR"/.qoder/hooks/x.sh arg')).to.deep.equal([`${project}/.qoder/hooks/x.sh`]);
    expect(files("'/work/proj/.qoder/hooks/x.sh'")).to.deep.equal([`${project}/.qoder/hooks/x.sh`]);
    expect(files("${QODERCN_PROJECT_DIR}/a/../b.sh")).to.deep.equal([`${project}/b.sh`]);
  });

  it("an interpreter's script: its first argument that is not an option", () => {
    expect(files("bash .qoder/hooks/x.sh")).to.deep.equal([`${project}/.qoder/hooks/x.sh`]);
    expect(files("python3 -u hooks/check.py --strict")).to.deep.equal([`${project}/hooks/check.py`]);
    expect(files("/usr/bin/env node scripts/lint.mjs")).to.deep.equal([`${project}/scripts/lint.mjs`]);
    expect(files("sh -e -o pipefail guard.sh")).to.deep.equal([`${project}/guard.sh`]);
    expect(files(". ./env.sh && ./run.sh")).to.deep.equal([`${project}/env.sh`, `${project}/run.sh`]);
    expect(files("deno run -A tools/check.ts")).to.deep.equal([`${project}/tools/check.ts`]);
  });

  it("a plugin's script through ${CLAUDE_PLUGIN_ROOT} (filled in as text) or $CLAUDE_PLUGIN_ROOT", () => {
    expect(files(`python3 ${plugin}/hooks/a.py`, pluginPlace)).to.deep.equal([`${plugin}/hooks/a.py`]);
    expect(files('sh "$CLAUDE_PLUGIN_ROOT/hooks/b.sh"', pluginPlace)).to.deep.equal([`${plugin}/hooks/b.sh`]);
    // Outside a plugin hook the variable is unknown: nothing is guessed.
    expect(files('sh "$CLAUDE_PLUGIN_ROOT/hooks/b.sh"')).to.deep.equal([]);
  });

  it("every simple command of a list or pipeline, past assignments, keywords and wrappers", () => {
    expect(files("FOO=1 ./a.sh | ./b.sh; exec ./c.sh && env -i X=2 ./d.sh || timeout 5 ./e.sh")).to.deep.equal(
      ["a", "b", "c", "d", "e"].map((n) => `${project}/${n}.sh`),
    );
    expect(files("if [ -f x ]; then ./yes.sh; else ./no.sh; fi")).to.deep.equal([`${project}/yes.sh`, `${project}/no.sh`]);
    expect(files("cat payload.json 2>/dev/null > out.log")).to.deep.equal([]);
  });

  it("nothing outside the project (or the plugin), nothing looked up in PATH, nothing that only the shell knows", () => {
    expect(files("/usr/local/bin/guard --x")).to.deep.equal([]);
    expect(files("~/bin/guard.sh")).to.deep.equal([]);
    expect(files("../other/guard.sh")).to.deep.equal([]);
    expect(files("guard.sh")).to.deep.equal([]);
    expect(files("npx eslint .")).to.deep.equal([]);
    expect(files("$MY_TOOLS/guard.sh")).to.deep.equal([]);
    expect(files("$(git rev-parse --show-toplevel)/x.sh")).to.deep.equal([]);
    expect(files("./hooks/*.sh")).to.deep.equal([]);
    expect(files("./hooks/{a,b}.sh")).to.deep.equal([]);
    expect(files("bash -c './inline.sh'")).to.deep.equal([]);
    expect(files("python3 -m mypkg.check")).to.deep.equal([]);
    expect(files("node -e 'require(\"./x\")'")).to.deep.equal([]);
  });

  it("the output of a redirection is not a file the command runs (it changes at every call)", () => {
    expect(files("./guard.sh >> .qoder/hooks.log 2>&1")).to.deep.equal([`${project}/guard.sh`]);
    expect(files("bash <<'EOF'\n./not-parsed.sh\nEOF")).to.deep.equal([]);
  });

  it("hostile text costs a bounded scan and never throws", () => {
    for (const command of ['"unterminated', "'unterminated", "$(", "${", "`", "\\", "a".repeat(100_000), "./x.sh ".repeat(10_000)]) {
      expect(() => files(command)).not.to.throw();
    }
    expect(files("./x.sh ".repeat(10_000))).to.have.length(1);
    expect(files(Array.from({ length: 100 }, (_, i) => `./s${i}.sh`).join(";"))).to.have.length(32);
  });
});
