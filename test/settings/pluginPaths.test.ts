import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Issue 21 item 17: a plugin's hooks files stay inside its folder once links are resolved. A manifest that names
 * `../x/hooks.json`, an absolute path elsewhere or /etc/passwd, or a hooks/hooks.json that is a link out of the
 * folder, gets one warning per file, and the file is not read (its hooks do not run). Through the real CLI.
 */
describe("settings: a plugin's hooks files stay inside its folder", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const hooksFile = (path: string, tag: string) => sb.file(path, { hooks: { SessionStart: [group(undefined, `echo ${tag}`)] } });
  const run = (...plugins: string[]) => sb.runEvent("SessionStart", payloadFor("SessionStart"), [...plugins.flatMap((p) => ["--plugin", p]), "--no-log"]);

  it("a manifest naming files outside (../, absolute, /etc/passwd): one warning each, not read; files inside, also through links, load", async () => {
    const root = join(sb.root, "plugins", "kit");
    const elsewhere = hooksFile(join(sb.root, "elsewhere", "hooks.json"), "outside-absolute");
    hooksFile(join(sb.root, "plugins", "x", "hooks.json"), "outside-relative");
    hooksFile(join(root, "hooks", "hooks.json"), "default-file");
    hooksFile(join(root, "extra", "more.json"), "inside-relative");
    const insideAbsolute = hooksFile(join(root, "extra", "abs.json"), "inside-absolute");
    // A link inside the folder to a file inside it: fine. A link inside the folder to a file outside: refused.
    symlinkSync(hooksFile(join(root, "deep", "target.json"), "inside-link"), join(root, "extra", "link-in.json"));
    symlinkSync(elsewhere, join(root, "extra", "link-out.json"));
    const manifest = sb.file(join(root, ".claude-plugin", "plugin.json"), {
      name: "kit",
      hooks: ["../x/hooks.json", elsewhere, "/etc/passwd", "./extra/more.json", insideAbsolute, "./extra/link-in.json", "./extra/link-out.json"],
    });

    const r = await run(root);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal(
      [join(sb.root, "plugins", "x", "hooks.json"), elsewhere, "/etc/passwd", join(root, "extra", "link-out.json")].map(
        (path) => `${manifest}: hooks file ${path} is outside the plugin's folder ${root} (links resolved); not read`,
      ),
    );
    expect(r.outcome!.additionalContext).to.deep.equal(["default-file", "inside-relative", "inside-absolute", "inside-link"]);
  });

  it("a hooks/hooks.json that is a link out of the folder: one warning, not read; a plugin folder that is itself a link loads", async () => {
    const root = join(sb.root, "plugins", "linked-out");
    const target = hooksFile(join(sb.root, "shared", "hooks.json"), "linked-outside");
    sb.file(join(root, "README"), "a plugin");
    sb.file(join(root, "hooks", ".keep"), "");
    symlinkSync(target, join(root, "hooks", "hooks.json"));
    const real = join(sb.root, "plugins", "real-kit");
    hooksFile(join(real, "hooks", "hooks.json"), "via-linked-folder");
    const alias = join(sb.root, "kit-alias");
    symlinkSync(real, alias);

    const r = await run(root, alias);
    expect(r.code, r.stderr).to.equal(0);
    expect(warningLines(r.stderr)).to.deep.equal([
      `${root}: hooks file ${join(root, "hooks", "hooks.json")} is outside the plugin's folder ${root} (links resolved); not read`,
    ]);
    expect(r.outcome!.additionalContext).to.deep.equal(["via-linked-folder"]);
    expect((r.outcome!.hooks as Json[]).map((h) => h.name)).to.deep.equal(["kit-alias: echo via-linked-folder"]);
  });
});
