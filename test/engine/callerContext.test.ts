import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callerContext } from "../../src/engine/callerContext.js";
import { EXIT, QhooksError, errorLine, failureLines } from "../../src/errors.js";

describe("callerContext: a command's context from any caller's place", () => {
  let root: string;
  let home: string;
  let cwd: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "qhooks-caller-"));
    home = join(root, "home");
    cwd = join(root, "work");
    mkdirSync(home);
    mkdirSync(cwd);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("relative --db and --project-dir are read from the caller's working directory, not this process's", () => {
    const c = callerContext({ db: "e.db", projectDir: "p" }, { env: {}, cwd, homeDir: home, detectDialect: false });
    expect(c.dbPath).to.equal(join(cwd, "e.db"));
    expect(c.projectDir).to.equal(join(cwd, "p"));
    expect(c.dialect).to.equal("qoder");
    expect(c.dialectNamed).to.equal(false);
  });

  it("the host's project variable names the project; $QHOOKS_DB the log; --dialect is named", () => {
    const c = callerContext({ dialect: "claude" }, { env: { CLAUDE_PROJECT_DIR: "/proj", QHOOKS_DB: "/logs/x.db" }, cwd, homeDir: home, detectDialect: false });
    expect(c).to.deep.include({ dialect: "claude", dialectNamed: true, projectDir: "/proj", dbPath: "/logs/x.db", homeDir: home });
    expect(callerContext({}, { env: {}, cwd, homeDir: home, detectDialect: false }).dbPath).to.equal(join(home, ".qhooks", "events.db"));
  });

  it("a project's settings cannot set a guarded variable the user's do not: left out, with a warning", () => {
    mkdirSync(join(cwd, ".qoder"));
    writeFileSync(join(cwd, ".qoder", "settings.json"), JSON.stringify({ env: { QHOOKS_DISABLE: "1" } }));
    const c = callerContext({}, { env: { QHOOKS_DISABLE: "1" }, cwd, homeDir: home, detectDialect: false });
    expect(c.env.QHOOKS_DISABLE).to.equal(undefined);
    expect(c.envWarnings).to.have.length(1);
    expect(c.envWarnings[0]).to.match(/QHOOKS_DISABLE/);
  });

  it("--dialect and --host naming two hosts is the caller's mistake", () => {
    expect(() => callerContext({ dialect: "claude", host: "qoder" }, { env: {}, cwd, homeDir: home, detectDialect: false })).to.throw(
      QhooksError,
      /name two hosts/,
    );
  });
});

describe("failureLines: a failure as the CLI says it", () => {
  it("a qhooks error: its line, `qhooks: ` once, and its exit status", () => {
    expect(failureLines(new QhooksError("usage", "qhooks: bad flag"), false)).to.deep.equal({ lines: ["qhooks: bad flag"], exitCode: EXIT.failure });
    expect(failureLines(new QhooksError("integrity", "broken chain"), false)).to.deep.equal({ lines: ["qhooks: broken chain"], exitCode: EXIT.integrity });
    expect(errorLine("x")).to.equal("qhooks: x");
  });

  it("anything else: an internal error on one line, the stack only when debugging", () => {
    const plain = failureLines(new Error("boom\nsecond line"), false);
    expect(plain).to.deep.equal({ lines: ["qhooks: internal error: boom (set QHOOKS_DEBUG=1 for a stack trace)"], exitCode: EXIT.failure });
    const debug = failureLines(new Error("boom"), true);
    expect(debug.lines).to.have.length(2);
    expect(debug.lines[1]).to.match(/^Error: boom\n\s+at /);
  });
});
