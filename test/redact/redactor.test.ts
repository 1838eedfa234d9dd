import { createHash } from "node:crypto";
import { expect } from "chai";
import { compileRedactPattern } from "../../src/redact/userPatterns.js";
import { builtInRedactor, createRedactor, marker, redactedFields } from "../../src/redact/redactor.js";
import { parseQhooksSection } from "../../src/settings/qhooksSection.js";

const hex8 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);

// Tokens of each form, made up (right shape, no real credential).
const SECRETS: [kind: string, secret: string][] = [
  ["anthropic", `sk-ant-api03-${"Ab1_".repeat(24)}`],
  ["openai", `sk-proj-${"x9Y".repeat(16)}`],
  ["aws-access-key", "AKIAIOSFODNN7EXAMPLE"],
  ["github", `ghp_${"a1B2".repeat(9)}`],
  ["github", `github_pat_${"11ABCDEFG0".repeat(4)}`],
  ["gitlab", "glpat-abcdefghij0123456789"],
  ["slack", "xoxb-123456789012-abcdefABCDEF"],
  ["slack-webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"],
  ["google-api-key", `AIza${"Sy0_-".repeat(7)}`],
  ["stripe", "sk_live_abcdefghijklmnop1234"],
  ["huggingface", `hf_${"aBcD".repeat(9)}`],
  ["npm", `npm_${"a1b2c3".repeat(6)}`],
  ["jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
  ["private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\nAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUx\n-----END OPENSSH PRIVATE KEY-----"],
];

describe("redaction: built-in detectors", () => {
  for (const [kind, secret] of SECRETS) {
    it(`${kind}: replaced in plain text and in a JSON string by [REDACTED:${kind}:<8 hex of its SHA-256>]`, () => {
      const expected = `[REDACTED:${kind}:${hex8(secret)}]`;
      expect(builtInRedactor.text(`before ${secret} after`)).to.equal(`before ${expected} after`);
      const json = JSON.stringify({ prompt: `use ${secret} now`, n: 12345678901234567000 });
      const out = builtInRedactor.json(json);
      expect(out).to.not.contain(secret.slice(0, 30));
      // The same secret gives the same marker, decoded from JSON or not.
      expect(JSON.parse(out)).to.deep.equal({ prompt: `use ${expected} now`, n: 12345678901234567000 });
    });
  }

  it("assignments: the key stays, the value goes (password, token, api key; quoted or not); kinds password and secret", () => {
    const r = builtInRedactor;
    expect(r.text("mysql --password=hunter2xx -h db")).to.equal(`mysql --password=${marker("password", "hunter2xx")} -h db`);
    expect(r.text("DB_PASSWORD='two words'")).to.equal(`DB_PASSWORD='${marker("password", "two words")}'`);
    expect(r.text("export API_KEY=abcd1234")).to.equal(`export API_KEY=${marker("secret", "abcd1234")}`);
    expect(r.text('{"client_secret": "s3cr3t-value"}')).to.equal(`{"client_secret": "${marker("secret", "s3cr3t-value")}"}`);
    expect(r.text("curl -H 'Authorization: Bearer abc.def-ghi_123'")).to.equal(`curl -H 'Authorization: Bearer ${marker("bearer", "abc.def-ghi_123")}'`);
  });

  it("JSON: a key that names a secret loses its string value whatever its form; everything else stays byte for byte", () => {
    const json = '{ "password" : "x",\n "tool_input": {"api_key":"k", "max_tokens": 100, "token_count": "12345"}, "note":"the author: me" }';
    const out = builtInRedactor.json(json);
    expect(out).to.equal(
      `{ "password" : "${marker("password", "x")}",\n "tool_input": {"api_key":"${marker("secret", "k")}", "max_tokens": 100, "token_count": "12345"}, "note":"the author: me" }`,
    );
    expect(redactedFields(out)).to.deep.equal(["password", "tool_input.api_key"]);
  });

  it("ordinary text and payloads are left alone (the same string, not a copy)", () => {
    const plain = JSON.stringify({
      session_id: "s1",
      tool_name: "Bash",
      tool_input: { command: "npm test -- --grep token" },
      prompt: "the secret of good code is tests",
    });
    expect(builtInRedactor.json(plain)).to.equal(plain);
    const outcome = { reason: "rm -rf refused", hooks: [{ stdout: "ok", stderr: "" }] };
    expect(builtInRedactor.value(outcome)).to.equal(outcome);
  });

  it("a marker is never redacted again; text that is not JSON is redacted as text", () => {
    const once = builtInRedactor.text(`GITHUB_TOKEN=${SECRETS[3]![1]}`);
    expect(builtInRedactor.text(once)).to.equal(once);
    expect(builtInRedactor.json(`not json password=abcdef`)).to.equal(`not json password=${marker("password", "abcdef")}`);
    expect(redactedFields(`not json ${marker("x", "y")}`)).to.deep.equal(["payload"]);
  });

  it("values: every string of an outcome, nested, keys that name a secret included", () => {
    const key = SECRETS[1]![1];
    const out = builtInRedactor.value({ reason: `found ${key}`, hooks: [{ stderr: "password: hunter22\n", stdout: "{}" }], updatedInput: { token: "t" } });
    expect(out).to.deep.equal({
      reason: `found ${marker("openai", key)}`,
      hooks: [{ stderr: `password: ${marker("password", "hunter22")}\n`, stdout: "{}" }],
      updatedInput: { token: marker("secret", "t") },
    });
  });

  it("hostile input: long runs of token-like text finish quickly", function () {
    this.timeout(10_000);
    const hostile = [
      "sk-".repeat(100_000),
      `eyJ${"a".repeat(200_000)}.eyJ`,
      `password=${"a".repeat(300_000)}`,
      `-----BEGIN PRIVATE KEY-----${"a\n".repeat(100_000)}`,
      "Bearer ".repeat(50_000),
      `${"x".repeat(40)}token=`.repeat(20_000),
    ];
    for (const text of hostile) {
      const start = performance.now();
      builtInRedactor.text(text);
      builtInRedactor.json(JSON.stringify({ p: text }));
      expect(performance.now() - start, text.slice(0, 20)).to.be.below(3_000);
    }
  });
});

describe("redaction: the user's patterns (qhooks.redact)", () => {
  it("apply after the built-in ones, with their kind; the same secret gives the same marker", () => {
    const compiled = compileRedactPattern({ pattern: "ACME-[0-9]{6}", kind: "acme" });
    expect(compiled.warning).to.equal(null);
    const r = createRedactor([compiled.pattern!]);
    expect(r.json(JSON.stringify({ prompt: "ticket ACME-123456 and ACME-123456" }))).to.equal(
      JSON.stringify({ prompt: `ticket ${marker("acme", "ACME-123456")} and ${marker("acme", "ACME-123456")}` }),
    );
  });

  it("each bad entry is one warning naming it; the others apply", () => {
    const warnings: string[] = [];
    const section = parseQhooksSection(
      {
        redact: [
          { pattern: "ACME-[0-9]{6}", kind: "acme" },
          { pattern: "(unclosed", kind: "bad" },
          { pattern: "(a)\\1", kind: "backref" },
          { pattern: "a(?=b)", kind: "ahead" },
          { pattern: "x?", kind: "empty" },
          { pattern: "ok", kind: "Not A Kind" },
          { pattern: "ok" },
          "a string",
        ],
      },
      (path, message) => warnings.push(`${path.join(".")}: ${message}`),
    );
    // The two the engine cannot run stay, as patterns that mask whole strings (a guard is never dropped).
    expect(section.redact.map((p) => [p.kind, p.regex === null])).to.deep.equal([
      ["acme", false],
      ["backref", true],
      ["ahead", true],
    ]);
    expect(warnings).to.have.length(7);
    expect(warnings[0]).to.match(/^qhooks\.redact\.1\.pattern: invalid regex.*; ignored$/);
    expect(warnings[1]).to.match(/^qhooks\.redact\.2\.pattern: .*backreference.*; every string is masked whole instead$/);
    expect(warnings[2]).to.match(/^qhooks\.redact\.3\.pattern: .*lookahead.*; every string is masked whole instead$/);
    expect(warnings[3]).to.match(/^qhooks\.redact\.4\.pattern: .*empty string; ignored$/);
    expect(warnings[4]).to.match(/^qhooks\.redact\.5\.kind: .*ignored$/);
    expect(warnings[5]).to.match(/^qhooks\.redact\.6\.kind: .*ignored$/);
    expect(warnings[6]).to.match(/^qhooks\.redact\.7: .*ignored$/);
  });

  it("each warning has its kind", () => {
    const kinds = ["(x", "(a)\\1", "(?<=a)b", "a{2000}", "\\udc00", "a*"].map((pattern) => compileRedactPattern({ pattern, kind: "k" }).warning?.kind);
    expect(kinds).to.deep.equal(["invalid", "backreference", "lookaround", "too-large", "unsupported", "empty-match"]);
  });

  it("a pattern the engine cannot run masks every string whole, and leaves markers as they are", () => {
    const r = createRedactor([compileRedactPattern({ pattern: "(ab)\\1", kind: "corp" }).pattern!]);
    expect(r.text("nothing secret here")).to.equal(marker("corp", "nothing secret here"));
    expect(r.text("")).to.equal("");
    const m = marker("corp", "x");
    expect(r.text(m)).to.equal(m);
  });

  it("a slow pattern runs on bounded pieces of text", function () {
    this.timeout(20_000);
    const compiled = compileRedactPattern({ pattern: "a.*b.*c", kind: "abc" });
    expect(compiled.warning).to.equal(null);
    const r = createRedactor([compiled.pattern!]);
    const start = performance.now();
    r.text("a".repeat(1_000_000));
    expect(performance.now() - start).to.be.below(10_000);
  });

  it("the issue's bounded repeats run in linear time and still find what they match", function () {
    this.timeout(20_000);
    const compiled = compileRedactPattern({ pattern: "k=([^\\u0000]{0,16}){7}!", kind: "slow" });
    expect(compiled.warning).to.equal(null);
    const r = createRedactor([compiled.pattern!]);
    const start = performance.now();
    expect(r.text(`${"k=".repeat(20_000)}`)).to.equal("k=".repeat(20_000));
    // JavaScript's engine takes minutes on this text; the coarse bound proves it did not run.
    expect(performance.now() - start).to.be.below(10_000);
    expect(r.text("say k=abc! now")).to.equal(`say ${marker("slow", "k=abc!")} now`);
  });

  it("text whose matches cannot all be found within the work bound is masked whole", () => {
    // Unbounded, and a match at every other character: each search may run to the end of the piece.
    const r = createRedactor([compileRedactPattern({ pattern: "b.*?", kind: "dense" }).pattern!]);
    const dense = "ab".repeat(400);
    expect(r.text(dense)).to.equal(marker("dense", dense));
    expect(r.text("a b a")).to.equal(`a ${marker("dense", "b")} a`);
  });
});
