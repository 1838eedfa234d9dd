import { expect } from "chai";
import { namedFiles, resolveCommandFiles, type CommandPlace } from "../../src/trust/namedFiles.js";

/** The rule that decides which files a hook's command runs, and therefore which bytes trust pins. */
describe("trust: the files a command names", () => {
  const project = "/work/proj";
  const plugin = "/home/u/.claude/plugins/cache/m/guard/1.0.0";
  const place: CommandPlace = { projectDir: project, homeDir: "/home/u", pluginRoot: null, pluginData: null, roots: [project] };
  const pluginPlace: CommandPlace = { ...place, pluginRoot: plugin, pluginData: "/home/u/.claude/plugins/data/guard", roots: [project, plugin] };
  const files = (command: string, where: CommandPlace = place) => namedFiles(command, where);
  const unresolved = (command: string) => resolveCommandFiles(command, place).unresolved;

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

  it("nothing outside the project (or the plugin), nothing looked up in PATH", () => {
    expect(files("/usr/local/bin/guard --x")).to.deep.equal([]);
    expect(files("~/bin/guard.sh")).to.deep.equal([]);
    expect(files("../other/guard.sh")).to.deep.equal([]);
    expect(files("guard.sh")).to.deep.equal([]);
    expect(files("node -e 'require(\"./x\")'")).to.deep.equal([]);
    expect(files("python3 -c 'print(1)'")).to.deep.equal([]);
  });

  it("a program or script whose path only the shell knows is unresolved: never trusted by the command's text alone", () => {
    expect(unresolved("$MY_TOOLS/guard.sh")).to.match(/^it runs a program whose path only the shell knows at run time/);
    expect(unresolved("$(git rev-parse --show-toplevel)/x.sh")).to.match(/^it runs a program whose path only the shell knows/);
    expect(unresolved("./hooks/*.sh")).to.match(/^it runs a program whose path only the shell knows/);
    expect(unresolved("./hooks/{a,b}.sh")).to.match(/^it runs a program whose path only the shell knows/);
    expect(unresolved('bash "$SCRIPT"')).to.equal("it runs a bash script whose path only the shell knows at run time");
    expect(unresolved('sh -c "$CODE"')).to.equal("it runs sh -c with code only the shell knows at run time");
    expect(unresolved("cd $(dirname x) && ./g.sh")).to.match(/^it runs \.\/g\.sh after a cd to a directory only the shell knows/);
    expect(unresolved('sh < "$F"')).to.match(/^it runs code from a file only the shell knows/);
    expect(unresolved('eval "$X"')).to.match(/^it evaluates code only the shell knows/);
    expect(unresolved("./x.sh")).to.equal(null);
  });

  it("the output of a redirection is not a file the command runs (it changes at every call)", () => {
    expect(files("./guard.sh >> .qoder/hooks.log 2>&1")).to.deep.equal([`${project}/guard.sh`]);
    // A here-document a shell reads is code; one a data tool reads is not, but its command substitutions run.
    expect(files("bash <<'EOF'\n./in-doc.sh\nEOF\n./after.sh")).to.deep.equal([`${project}/in-doc.sh`, `${project}/after.sh`]);
    expect(files("cat <<'EOF' > out.json\n./not-code.sh $(./literal.sh)\nEOF")).to.deep.equal([]);
    expect(files('cat <<EOF > out.json\n{"a": "$(./sub.sh)"}\nEOF')).to.deep.equal([`${project}/sub.sh`]);
  });

  it("hostile text costs a bounded scan and never throws", () => {
    for (const command of ['"unterminated', "'unterminated", "$(", "${", "`", "\\", "a".repeat(100_000), "./x.sh ".repeat(10_000)]) {
      expect(() => files(command)).not.to.throw();
    }
    expect(files("./x.sh ".repeat(2_000))).to.have.length(1);
    // What lies past the scanned part, or past the bound on files, would run unpinned: not trusted at all.
    expect(unresolved("./x.sh ".repeat(10_000))).to.equal("its command is longer than 16 KiB");
    expect(unresolved(Array.from({ length: 100 }, (_, i) => `./s${i}.sh`).join(";"))).to.equal("its command names more than 64 files");
  });

  describe("the forms of issue 21: wrappers with long options, code on stdin, inline code", () => {
    const x = [`${project}/x.sh`];
    it("timeout and env with every spelling of their options", () => {
      expect(files("timeout --signal KILL 5 ./x.sh")).to.deep.equal(x);
      expect(files("timeout --kill-after 2 5 ./x.sh")).to.deep.equal(x);
      expect(files("timeout --kill-after=2 --signal=TERM --preserve-status 5 ./x.sh")).to.deep.equal(x);
      expect(files("timeout -vs KILL 5 ./x.sh")).to.deep.equal(x);
      expect(files("timeout -sKILL -k2 5 ./x.sh")).to.deep.equal(x);
      expect(files("env --unset FOO ./x.sh")).to.deep.equal(x);
      expect(files("env --unset=FOO -i -u BAR A=1 - ./x.sh")).to.deep.equal(x);
      expect(files("env -S 'bash -e' x.sh")).to.deep.equal(x);
      expect(files("env -C sub ./x.sh")).to.deep.equal([`${project}/sub/x.sh`]);
      expect(files("nice -n 5 ./x.sh; nice -5 ./y.sh; nohup ./z.sh")).to.deep.equal([...x, `${project}/y.sh`, `${project}/z.sh`]);
      expect(files("exec -a name ./x.sh")).to.deep.equal(x);
      expect(files("stdbuf --output=L ./x.sh | setsid -w ./y.sh")).to.deep.equal([...x, `${project}/y.sh`]);
    });

    it("a wrapper option qhooks does not know: every file the command names is pinned", () => {
      expect(files("timeout --future-option 5 ./x.sh data.txt")).to.deep.equal([`${project}/5`, ...x, `${project}/data.txt`]);
      expect(files("xargs -n 1 ./x.sh")).to.deep.equal([`${project}/1`, ...x]);
      expect(files("npx tsx scripts/check.ts")).to.deep.equal([`${project}/tsx`, `${project}/scripts/check.ts`]);
    });

    it("shells reading code from a file, a pipe, a here-string; their file-valued options", () => {
      expect(files("sh < x.sh")).to.deep.equal(x);
      expect(files("bash -s arg < x.sh")).to.deep.equal(x);
      expect(files("cat x.sh | bash")).to.deep.equal(x);
      expect(files("bash <<< ./x.sh")).to.deep.equal(x);
      expect(files("bash --rcfile rc.sh x.sh")).to.deep.equal([`${project}/rc.sh`, ...x]);
      expect(files("bash --init-file=rc.sh -c ./x.sh")).to.deep.equal([`${project}/rc.sh`, ...x]);
      expect(files("node --require ./r.js --import=./i.mjs m.mjs")).to.deep.equal([`${project}/r.js`, `${project}/i.mjs`, `${project}/m.mjs`]);
    });

    it("inline code is read as commands: sh -c, eval, command substitutions; cd moves where paths are resolved", () => {
      expect(files("bash -c './x.sh --flag'")).to.deep.equal(x);
      expect(files("sh -ec 'cd hooks && ./x.sh'")).to.deep.equal([...x, `${project}/hooks/x.sh`]);
      expect(files("eval ./x.sh")).to.deep.equal(x);
      expect(files('echo "$(./x.sh)" `./y.sh`')).to.deep.equal([...x, `${project}/y.sh`]);
      expect(files("python3 -m hooks.guard")).to.deep.equal(
        ["hooks/guard.py", "hooks/guard/__main__.py", "hooks/guard/__init__.py"].map((f) => `${project}/${f}`),
      );
    });
  });
});
