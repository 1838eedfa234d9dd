import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { EVENT_NAMES } from "../../src/schema/eventNames.js";
import { nonEmptyLines } from "../store/storeHelpers.js";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/**
 * `qhooks schema`: the JSON Schemas it prints are checked with a real JSON Schema validator (ajv, draft 2020-12, as
 * editors use them) against real documents: the settings files this repository ships, a real outcome of
 * `qhooks run`, real payloads.
 */
describe("cli: qhooks schema", () => {
  let sb: Sandbox;
  before(() => (sb = new Sandbox()));
  after(() => sb.cleanup());

  const schemaOf = async (...args: string[]) => {
    const r = await sb.run(["schema", ...args]);
    expect(r.code, r.stderr).to.equal(0);
    const schema = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(schema.$schema).to.equal("https://json-schema.org/draft/2020-12/schema");
    return new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  };

  it("settings: the repository's own settings files and the example of docs/writing-hooks.md are valid; mistakes an editor should underline are not", async () => {
    const validate = await schemaOf("settings");
    expect((await sb.run(["schema"])).stdout).to.equal((await sb.run(["schema", "settings"])).stdout);
    for (const file of ["demo/settings.json", "demo/stricter.json"]) {
      const settings = JSON.parse(readFileSync(join(REPO_ROOT, file), "utf8")) as unknown;
      expect(validate(settings), `${file}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
    const readme = {
      $schema: "./settings.schema.json",
      model: "other settings pass",
      hooks: { PreToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "lint.sh", timeout: 30, name: "lint" }] }] },
    };
    expect(validate(readme), JSON.stringify(validate.errors)).to.equal(true);
    const mistakes: unknown[] = [
      { hooks: { PreTooluse: [] } },
      { hooks: { Stop: [{ hooks: [{ type: "command", command: "x", timout: 5 }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: "command", command: "x", timeout: 0 }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: "script", command: "x" }] }] } },
      { hooks: { Stop: [{ hooks: [{ type: "command" }] }] } },
      { hooks: { Stop: [{ matchers: "Bash", hooks: [] }] } },
      { hooks: { Stop: { hooks: [] } } },
    ];
    for (const mistake of mistakes) expect(validate(mistake), JSON.stringify(mistake)).to.equal(false);
  });

  it("settings: lists every event qhooks knows", async () => {
    const r = await sb.run(["schema", "settings"]);
    const schema = JSON.parse(r.stdout) as { properties: { hooks: { propertyNames: { enum: string[] } } } };
    expect(schema.properties.hooks.propertyNames.enum).to.deep.equal([...EVENT_NAMES]);
  });

  it("a settings file with the $schema line of docs/writing-hooks.md is read by qhooks without a warning", async () => {
    sb.userSettings({ $schema: "./settings.schema.json", hooks: { Stop: [group(undefined, "true")] } });
    const r = await sb.run(["hooks", "--strict"]);
    expect(r.code, r.stdout + r.stderr).to.equal(0);
  });

  it("outcome: what qhooks run prints is valid, a blocked one included", async () => {
    const validate = await schemaOf("outcome");
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", "echo no >&2; exit 2", 'echo \'{"systemMessage":"hi"}\'')] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    expect(r.code).to.equal(2);
    expect(validate(r.outcome), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate({ ...r.outcome, decision: "maybe" })).to.equal(false);
  });

  it("payload EVENT: the payloads qhooks accepts are valid, those it rejects are not", async () => {
    for (const event of EVENT_NAMES) {
      const validate = await schemaOf("payload", event);
      expect(validate(payloadFor(event)), `${event}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      expect(validate({ ...payloadFor(event), session_id: "" }), event).to.equal(false);
    }
    const pre = await schemaOf("payload", "PreToolUse");
    expect(pre({ session_id: "s", tool_name: "Bash", tool_input: "ls" })).to.equal(false);
  });

  it("a wrong request is one usage line", async () => {
    for (const args of [["nosuch"], ["payload"], ["payload", "PreTool"], ["outcome", "Stop"]]) {
      const r = await sb.run(["schema", ...args]);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.stdout).to.equal("");
      expect(nonEmptyLines(r.stderr), r.stderr).to.have.length(1);
      expect(r.stderr).to.match(/^qhooks: /);
    }
  });
});
