import fc from "fast-check";
import { EVENT_NAMES, type EventName } from "../../src/schema/events.js";
import { payloadFor } from "../support/sandbox.js";

/**
 * fast-check arbitraries for hostile input: payload texts (and the bytes an agent might send) and settings files.
 * Everything is built as JSON *text*, so that the generators can make what JSON.stringify never would: duplicate
 * keys, huge numbers, deep nesting, raw control characters, a BOM, trailing garbage, invalid UTF-8.
 */

/** Keys that mean something to JavaScript objects, plus odd ones. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "then") },
  { weight: 2, arbitrary: fc.constantFrom("session_id", "tool_name", "tool_input", "hook_event_name", "cwd", "stop_hook_active", "notification_type") },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "é", "😀", "\u0000", "a\nb", "\u2028", "k".repeat(10_000)) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
);

/** Nested arrays and objects, `depth` levels deep, as text. */
export const deepJson = (depth: number, kind: "array" | "object" | "mixed"): string => {
  let open = "";
  let close = "";
  for (let i = 0; i < depth; i++) {
    const object = kind === "object" || (kind === "mixed" && i % 2 === 1);
    open += object ? '{"d":' : "[";
    close = (object ? "}" : "]") + close;
  }
  return `${open}0${close}`;
};

/** A JSON value as text, hostile in size, depth, type or form. */
export const jsonValueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null") },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 60_000 }), fc.constantFrom("array", "object", "mixed") as fc.Arbitrary<"array" | "object" | "mixed">)
      .map(([d, k]) => deepJson(d, k)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 10_000, max: 3_000_000 }), fc.constantFrom("x", "é", "😀", "\\n", '\\"', "\\u0000"))
      .map(([n, c]) => `"${c.repeat(Math.ceil(n / c.length))}"`),
  },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map((s) => JSON.stringify(s)) },
  // Unescaped: raw control characters, lone surrogates and U+2028 inside a string (some of it invalid JSON).
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }).map((s) => `"${s.replace(/["\\]/g, "")}"`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "1e400",
      "-0",
      "123456789012345678901234567890",
      "0.1e-999",
      "-1",
      "true",
      "false",
      "null",
      "[]",
      "{}",
      "NaN",
      "undefined",
      "'single'",
      "0x10",
    ),
  },
);

export interface PayloadCase {
  readonly event: EventName;
  /** The payload as the agent sends it (may be anything but JSON). */
  readonly text: string;
  /** Bytes to put in the text (CLI only): invalid UTF-8 sequences, at `at` (a fraction of the length). */
  readonly badBytes: readonly number[] | null;
  readonly at: number;
  /** Give the library the parsed object instead of the text, when the text parses. */
  readonly asObject: boolean;
}

type Treatment = "keep" | "wrong" | "drop";
const treatment: fc.Arbitrary<Treatment> = fc.oneof(
  { weight: 20, arbitrary: fc.constant("keep" as const) },
  { weight: 1, arbitrary: fc.constant("wrong" as const) },
  { weight: 1, arbitrary: fc.constant("drop" as const) },
);

const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

/** A payload for a random event: mostly valid, with some fields of the wrong type or missing, and hostile extras. */
export const payloadCase: fc.Arbitrary<PayloadCase> = fc
  .record({
    event: fc.constantFrom(...EVENT_NAMES),
    // Valid session ids (non-empty strings), some of which no environment variable can hold.
    sessionId: fc.oneof(
      { weight: 6, arbitrary: fc.constant("s1") },
      { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 30 }) },
      { weight: 1, arbitrary: fc.constantFrom("a\u0000b", "\u0000", "x".repeat(200_000), "é".repeat(70_000), "line\nbreak", "=", "$(touch /tmp/qhooks-x)") },
    ),
    treatments: fc.array(treatment, { minLength: 6, maxLength: 6 }),
    wrong: fc.array(jsonValueText, { minLength: 6, maxLength: 6 }),
    extras: fc.array(fc.tuple(hostileKey, jsonValueText), { maxLength: 5 }),
    named: fc.constantFrom("absent", "absent", "absent", "same", "same", "same", "other", "garbage"),
    cwd: fc.boolean(),
    frame: fc.oneof(
      { weight: 25, arbitrary: fc.constant("plain") },
      { weight: 1, arbitrary: fc.constantFrom("bom", "garbage-after", "truncated", "array", "spaces", "empty", "two-objects") },
    ),
    cut: fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
    badBytes: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8) }),
    at: fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
    asObject: fc.boolean(),
  })
  .map(({ event, sessionId, treatments, wrong, extras, named, cwd, frame, cut, badBytes, at, asObject }) => {
    const parts: string[] = [];
    Object.entries(payloadFor(event)).forEach(([k, v], i) => {
      const t = treatments[i % treatments.length]!;
      if (k === "session_id" && t === "keep") parts.push(`"session_id":${JSON.stringify(sessionId)}`);
      else if (t === "keep") parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
      else if (t === "wrong") parts.push(`${JSON.stringify(k)}:${wrong[i % wrong.length]}`);
    });
    if (named === "same") parts.unshift(`"hook_event_name":${JSON.stringify(event)}`);
    if (named === "other") parts.unshift(`"hook_event_name":${JSON.stringify(EVENT_NAMES[(EVENT_NAMES.indexOf(event) + 1) % EVENT_NAMES.length])}`);
    if (named === "garbage") parts.unshift(`"hook_event_name":${wrong[0]}`);
    if (cwd) parts.push(`"cwd":"/somewhere/else"`);
    for (const [k, v] of extras) parts.push(`${JSON.stringify(k)}:${v}`);
    let text = `{${parts.join(",")}}`;
    if (frame === "bom") text = `\ufeff${text}`;
    if (frame === "garbage-after") text = `${text} garbage`;
    if (frame === "truncated") text = text.slice(0, Math.floor(text.length * cut));
    if (frame === "array") text = `[${text}]`;
    if (frame === "spaces") text = ` \n\t${text.replace(/,/g, " ,\n ")}\n `;
    if (frame === "empty") text = "";
    if (frame === "two-objects") text = `${text}${text}`;
    return { event, text, badBytes, at, asObject };
  });

/** The bytes the CLI gets: the text as UTF-8, with the invalid sequence (if any) spliced in. */
export function payloadBytes(c: PayloadCase): Buffer {
  const bytes = Buffer.from(c.text, "utf8");
  if (!c.badBytes) return bytes;
  const at = Math.floor(bytes.length * c.at);
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(c.badBytes), bytes.subarray(at)]);
}

// ---------------------------------------------------------------------------------------------------------------
// Settings files

/** Regexes known for catastrophic (exponential or high-degree polynomial) backtracking. */
export const REGEX_BOMBS = [
  "(a+)+$",
  "(.*a){12}",
  "(a|aa)+$",
  "^(\\w+\\s?)*$",
  "(x+x+)+y",
  "^(a|a?)+$",
  "(\\d+)*$",
  "a*a*a*a*a*b",
  "\\w*\\w*\\w*\\w*!",
  ".*.*.*.*=",
  "(?:a+)+b",
  "^(([a-z])+.)+[A-Z]([a-z])+$",
] as const;

/** Hostile values a matcher is tested against: long, repetitive, near-misses for the bombs above. */
export const HOSTILE_TOOL_NAMES = [
  `${"a".repeat(1100)}!`,
  `${"a ".repeat(600)}!`,
  "x".repeat(2000),
  `${"1".repeat(1500)}z`,
  "=".repeat(100) + "a".repeat(1000),
  `${"mcp__".repeat(250)}`,
  `${"ab".repeat(700)}`,
] as const;

/** Regex pieces that random matchers are assembled from. */
const regexPiece = fc.constantFrom(
  "a",
  "b",
  "a*",
  "a+",
  ".*",
  ".+",
  "\\w+",
  "\\s*",
  "(a|b)",
  "(a+)+",
  "(a|aa)",
  "[a-z]*",
  "x{2,}",
  "^",
  "$",
  "(?:ab)*",
  "(",
  ")",
  "|",
  "?",
  "\\",
  "mcp__",
  "Bash",
  "Edit",
);

export const matcherValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...REGEX_BOMBS) },
  { weight: 2, arbitrary: fc.array(regexPiece, { maxLength: 8 }).map((p) => p.join("")) },
  { weight: 2, arbitrary: fc.constantFrom("Bash", "Write|Edit", "Write\\|Edit", "mcp__.*", "^Edit$", "*", "", " ", "Hostile", "mcp__(github|gitlab)__.*") },
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(100_000), "(".repeat(5000), "a\nb", "\u0000", "[", "(?<n>a)\\k<n>") },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const handler: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        type: fc.oneof({ weight: 6, arbitrary: fc.constant("command") }, { weight: 1, arbitrary: fc.constantFrom("prompt", "Command", 1, null) }),
        command: fc.oneof(
          {
            weight: 6,
            arbitrary: fc.constantFrom("cat >/dev/null; echo ok", "exit 0", "echo nope >&2; exit 2", "exit 1", 'printf \'{"decision":"approve"}\''),
          },
          { weight: 1, arbitrary: fc.constantFrom("", "   ", 42, null, ["ls"], `echo ${"y".repeat(100_000)}`) },
        ),
        timeout: fc.oneof(fc.constantFrom(5, 0.5, 10), fc.constantFrom(0, -1, "5", 1e12, Number.MAX_VALUE, null, true)),
        name: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("", 7, "n".repeat(50_000))),
        timout: fc.constant(5),
        ["__proto__"]: fc.jsonValue({ maxDepth: 1 }),
        extra: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: ["type", "command"] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const matcherGroup: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        matcher: matcherValue,
        hooks: fc.oneof({ weight: 5, arbitrary: fc.array(handler, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
        constructor: fc.jsonValue({ maxDepth: 1 }),
        matchr: fc.constant("Bash"),
      },
      { requiredKeys: ["hooks"] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const eventKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...EVENT_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom("pretooluse", "PreToolUs", "__proto__", "constructor", "", "Pre\nToolUse", "E".repeat(50_000)) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
);

/** A settings document (as text): mostly the right shape, with wrong types at every level. */
export const settingsText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          hooks: fc.oneof(
            {
              weight: 8,
              arbitrary: fc.array(
                fc.tuple(
                  eventKey,
                  fc.oneof({ weight: 5, arbitrary: fc.array(matcherGroup, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
                ),
                { maxLength: 4 },
              ),
            },
            { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
          ),
          other: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: ["hooks"] },
      )
      .map(({ hooks, other }) => {
        const entries = hooks as unknown;
        const hooksText =
          Array.isArray(entries) && entries.every((e: unknown) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string")
            ? `{${(hooks as [string, unknown][]).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`
            : (JSON.stringify(hooks) ?? "null");
        return `{"permissions":${JSON.stringify(other) ?? "null"},"hooks":${hooksText}}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "{", "not json", "[]", "null", '"hooks"', '{"hooks": []}', '{"hooks": null}', "\ufeff{}", '{"hooks":{}} trailing'),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 600, max: 30_000 }).map((d) => `{"hooks":{"PreToolUse":[{"matcher":"Bash","x":${deepJson(d, "mixed")},"hooks":[]}]}}`),
  },
  { weight: 1, arbitrary: fc.integer({ min: 600, max: 30_000 }).map((d) => `{"other":${deepJson(d, "array")},"hooks":{}}`) },
);
