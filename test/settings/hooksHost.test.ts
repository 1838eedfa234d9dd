import { expect } from "chai";
import { LoadAttestationSchema } from "../../src/schema/doctor.js";
import { HOSTS } from "../../src/hosts/hosts.js";
import { Sandbox } from "../support/sandbox.js";

/**
 * `qhooks hooks --host X`: that host's hooks as it would load them, and each entry it would skip with why and a kind.
 * One case per host of the registry, so that a host added there is checked too.
 */
describe("qhooks hooks --host: each host's skipped entries, with a kind", () => {
  for (const host of Object.values(HOSTS)) {
    it(`${host.name}: loads its own event name, skips an unknown event, an event of no qhooks equivalent and a misshapen one`, async () => {
      const sb = new Sandbox();
      try {
        const project = host.settingsLevels(sb.home, sb.project).find((l) => l.level === "project")!;
        const own = host.eventNames.toHost.get("PreToolUse")!;
        const unmapped = [...host.eventNames.unmapped][0];
        const entry = [{ hooks: [{ type: "command", command: "true" }] }];
        sb.file(project.path, {
          version: 1,
          hooks: { [own]: entry, NoSuchEvent: entry, ...(unmapped ? { [unmapped]: entry } : {}), [host.eventNames.toHost.get("Stop")!]: { not: "a list" } },
        });
        // The project's hooks are trusted first: trust is not what this test is about.
        await sb.run(["--host", host.id, "trust"]);
        const r = await sb.run(["--host", host.id, "hooks", "--json"]);
        expect(r.code, r.stderr).to.equal(0);
        const attestation = LoadAttestationSchema.parse(JSON.parse(r.stdout).attestation);
        expect(attestation.loaded, r.stdout).to.equal(1);
        const kinds = Object.fromEntries(attestation.skipped.map((s) => [s.path.split(/[.[]/)[1], s.kind]));
        expect(kinds).to.deep.equal({
          NoSuchEvent: "unknown-event",
          ...(unmapped ? { [unmapped]: "no-qhooks-event" } : {}),
          [host.eventNames.toHost.get("Stop")!]: "wrong-shape",
        });
        const table = await sb.run(["--host", host.id, "hooks"]);
        expect(table.stdout).to.match(/ {2}skipped \S+ hooks\.NoSuchEvent\S* \(unknown-event\): /);
      } finally {
        await sb.cleanup();
      }
    });
  }
});
