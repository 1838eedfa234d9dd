import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileDigests, MAX_PINNED_FILE_BYTES } from "../../src/trust/fileDigest.js";

/** Pinning a named file: only regular files, bounded, never blocking, and remembered only while provably unchanged. */
describe("trust: hashing the files a hook runs", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "qhooks-digest-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");

  it("a regular file's sha256; nothing for a missing path, a directory or a path through a file", () => {
    const digests = new FileDigests();
    writeFileSync(join(dir, "a.sh"), "echo a\n");
    mkdirSync(join(dir, "sub"));
    expect(digests.of(join(dir, "a.sh"))).to.deep.equal({ state: "file", sha256: sha("echo a\n") });
    expect(digests.of(join(dir, "missing.sh"))).to.deep.equal({ state: "absent" });
    expect(digests.of(join(dir, "sub"))).to.deep.equal({ state: "absent" });
    expect(digests.of(join(dir, "a.sh", "x"))).to.deep.equal({ state: "absent" });
  });

  it("a FIFO, a device and a file over the bound cannot be pinned, at once", () => {
    const digests = new FileDigests();
    execFileSync("mkfifo", [join(dir, "fifo")]);
    expect(digests.of(join(dir, "fifo"))).to.deep.equal({ state: "unpinnable", why: "is a FIFO, not a regular file" });
    expect(digests.of("/dev/zero")).to.deep.equal({ state: "unpinnable", why: "is a device, not a regular file" });
    writeFileSync(join(dir, "big"), "");
    truncateSync(join(dir, "big"), MAX_PINNED_FILE_BYTES + 1);
    expect(digests.of(join(dir, "big"))).to.deep.equal({ state: "unpinnable", why: "is larger than 8 MiB" });
    truncateSync(join(dir, "big"), MAX_PINNED_FILE_BYTES);
    expect(digests.of(join(dir, "big")).state).to.equal("file");
  });

  it("a file changed just before it was hashed is not remembered: an edit in the same clock tick is seen", () => {
    const digests = new FileDigests();
    const path = join(dir, "guard.sh");
    for (const body of ["exit 0\n", "exit 2\n", "exit 0\n", "exit 3\n"]) {
      writeFileSync(path, body); // same size, same inode, no pause: timestamps may not move
      expect(digests.of(path)).to.deep.equal({ state: "file", sha256: sha(body) });
    }
  });

  it("a remembered hash never hides a later edit, even one that keeps the size", async () => {
    // A clock five seconds ahead: every file looks old enough to be remembered.
    const digests = new FileDigests(() => Date.now() + 5000);
    const path = join(dir, "guard.sh");
    writeFileSync(path, "exit 0\n");
    expect(digests.of(path)).to.deep.equal({ state: "file", sha256: sha("exit 0\n") });
    expect(digests.of(path)).to.deep.equal({ state: "file", sha256: sha("exit 0\n") });
    // Past the file system's timestamp tick, as any edit after a remembered hash is (the clock above pretends).
    await new Promise((r) => setTimeout(r, 50));
    writeFileSync(path, "exit 2\n");
    expect(digests.of(path)).to.deep.equal({ state: "file", sha256: sha("exit 2\n") });
    await new Promise((r) => setTimeout(r, 50));
    rmSync(path); // a new file, perhaps under the same inode number
    writeFileSync(path, "exit 3\n");
    expect(digests.of(path)).to.deep.equal({ state: "file", sha256: sha("exit 3\n") });
  });
});
