import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MAX_NOTICE_FILE_BYTES, fileNoticeCounter } from "../../src/handlers/noticeMemory.js";
import { noticesToSay, type FailureNotice } from "../../src/output/failureNotices.js";
import { REPO_ROOT } from "../support/sandbox.js";

/** The per-session notice count every `qhooks run` of a machine shares: real files, real concurrent processes. */
describe("notice memory: each failure said once per session, then counted", function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = join(mkdtempSync(join(tmpdir(), "qhooks-notices-")), "notices")));
  afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

  const notice: FailureNotice = { key: "failed\0user\0./guard.sh", text: 'qhooks: hook "./guard.sh" failed (exit 127)' };

  it("says a notice the first time, then only at its 10th time with the count; other keys and sessions count apart", () => {
    const counter = fileNoticeCounter(dir);
    const said: string[][] = [];
    for (let i = 0; i < 12; i++) said.push(noticesToSay([notice], "s1", counter));
    expect(said[0]).to.deep.equal([notice.text]);
    expect(said[9]).to.deep.equal([`${notice.text}, 10th time this session`]);
    expect(said.filter((s) => s.length > 0)).to.have.length(2);
    expect(noticesToSay([notice], "s2", counter)).to.deep.equal([notice.text]);
    expect(noticesToSay([{ key: "other", text: "x" }], "s1", counter)).to.deep.equal(["x"]);
    expect(readdirSync(dir)).to.have.length(2);
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
  });

  it("processes counting the same notice at once each get their own place: exactly one of them is first", async () => {
    const module = pathToFileURL(join(REPO_ROOT, "dist", "src", "handlers", "noticeMemory.js")).href;
    const script = `import(${JSON.stringify(module)}).then((m) => process.stdout.write(String(m.fileNoticeCounter(${JSON.stringify(dir)}).count("s1", "k"))))`;
    const one = () =>
      new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, ["-e", script]);
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.on("error", reject);
        child.on("close", () => resolve(Number(out)));
      });
    const counts = await Promise.all(Array.from({ length: 6 }, one));
    expect([...counts].sort()).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });

  it("a session's file stops growing at its cap (nothing more is said), and files of sessions over for a month go", () => {
    const counter = fileNoticeCounter(dir);
    counter.count("s1", "k");
    const [full] = readdirSync(dir);
    writeFileSync(join(dir, full!), "x".repeat(MAX_NOTICE_FILE_BYTES));
    expect(noticesToSay([{ key: "new", text: "new" }], "s1", counter)).to.deep.equal([]);
    expect(statSync(join(dir, full!)).size).to.equal(MAX_NOTICE_FILE_BYTES);
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(join(dir, full!), old, old);
    counter.count("s2", "k");
    expect(readdirSync(dir)).to.have.length(1);
    expect(readdirSync(dir)[0]).to.not.equal(full);
  });

  it("a folder that cannot be made: every notice counts as the first (said rather than lost)", () => {
    const file = join(dir, "..", "plain-file");
    writeFileSync(file, "");
    const counter = fileNoticeCounter(join(file, "notices"));
    expect(counter.count("s1", "k")).to.equal(1);
    expect(counter.count("s1", "k")).to.equal(1);
  });
});
