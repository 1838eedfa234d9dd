import { expect } from "chai";
import { z } from "zod";
import { EVENT_NAMES, PAYLOAD_SCHEMAS, payloadSchema } from "../../src/schema/events.js";
import { HOOK_OUTPUT_SCHEMAS } from "../../src/schema/hookOutput.js";
import { lazy, lazyRecord } from "../../src/schema/lazy.js";
import { HandlerSettingSchema, KNOWN_HANDLER_KEYS_BY_TYPE, KNOWN_QHOOKS_KEYS, TimeoutSecondsSchema } from "../../src/schema/settings.js";

// Schemas are built on first use (a `qhooks run` needs one of them); built or not, they must behave as before.
describe("schemas built on first use", () => {
  it("a stand-in is built once, when first read, and behaves as the schema it stands for", () => {
    let builds = 0;
    const build = () => {
      builds++;
      return z.object({ name: z.string({ error: "expected a name" }), n: z.number().optional() });
    };
    const standIn = lazy(build);
    expect(builds, "not built by being declared").to.equal(0);
    expect(standIn.safeParse({ name: "a", n: 1 })).to.deep.equal({ success: true, data: { name: "a", n: 1 } });
    expect(standIn.safeParse({ name: 3 }).error?.issues[0]?.message).to.equal("expected a name");
    expect(standIn).to.be.instanceOf(z.ZodObject);
    expect(Object.keys(standIn.shape)).to.deep.equal(["name", "n"]);
    expect(z.toJSONSchema(standIn)).to.deep.equal(z.toJSONSchema(build()));
    expect(z.object({ inner: standIn }).safeParse({ inner: { name: 1 } }).success, "composed into another schema").to.equal(false);
    expect(builds, "built once (and once more above, by the test itself)").to.equal(2);
  });

  it("a record of schemas builds an entry when it is read, and keeps it", () => {
    const built: string[] = [];
    const record = lazyRecord(["a", "b"] as const, (key) => {
      built.push(key);
      return z.literal(key);
    });
    expect(built).to.deep.equal([]);
    expect(record.b.parse("b")).to.equal("b");
    expect(record.b).to.equal(record.b);
    expect(built).to.deep.equal(["b"]);
    expect(Object.keys(record)).to.deep.equal(["a", "b"]);
  });

  it("every event's payload and hook-output schema is there, one per event, the same object each time", () => {
    for (const event of EVENT_NAMES) {
      expect(PAYLOAD_SCHEMAS[event], event).to.equal(payloadSchema(event));
      expect(PAYLOAD_SCHEMAS[event].safeParse({ session_id: "" }).success, `${event}: an empty session id`).to.equal(false);
      expect(HOOK_OUTPUT_SCHEMAS[event].safeParse({}).data?.decision, event).to.equal("none");
    }
    expect(Object.keys(PAYLOAD_SCHEMAS)).to.deep.equal([...EVENT_NAMES]);
    expect(PAYLOAD_SCHEMAS.PreToolUse.safeParse({ session_id: "s", tool_name: "Bash", tool_input: [] }).error?.issues[0]?.message).to.equal(
      "expected an object",
    );
  });

  it("the settings schemas and key sets read as before", () => {
    expect(KNOWN_QHOOKS_KEYS.has("redact")).to.equal(true);
    expect([...KNOWN_QHOOKS_KEYS]).to.include.members(["plugins", "stopBlockCap", "requireTrust", "retention"]);
    expect(KNOWN_HANDLER_KEYS_BY_TYPE.command.has("shell")).to.equal(true);
    expect(KNOWN_HANDLER_KEYS_BY_TYPE.http.has("shell")).to.equal(false);
    expect(HandlerSettingSchema.safeParse({ type: "command", command: "true", timeout: 5 }).success).to.equal(true);
    expect(HandlerSettingSchema.safeParse({ type: "commandx", command: "true" }).error?.issues[0]?.message).to.match(/expected "command", "http"/);
    expect(TimeoutSecondsSchema.safeParse(0.0001).success).to.equal(false);
  });
});
