import { hash } from "node:crypto";
import type { UserRegex } from "../regex/userRegex.js";
import { BUILT_IN_DETECTORS, SECRET_KEY, mayHoldSecret, type Detector } from "./detectors.js";

/** A pattern of the user's settings (`qhooks.redact`), compiled and checked (userPatterns.ts). */
export interface RedactPattern {
  readonly kind: string;
  /** As written in the settings: what a detached process compiles again (handlers/asyncJob.ts). */
  readonly source: string;
  /** null: a pattern the linear-time engine cannot run, which masks every string whole (it must not leak). */
  readonly regex: UserRegex | null;
}

/**
 * Replaces secrets with `[REDACTED:<kind>:<8 hex>]`, the hex being the start of the secret's SHA-256: the same
 * secret always gives the same marker, so that audits can still group by it, and the secret itself is never kept.
 */
export interface Redactor {
  /** Plain text: a hook's output, a reason. */
  text(text: string): string;
  /**
   * JSON text (a payload): each string in it is redacted as text, and the value of a key that names a secret
   * (`"password": "..."`) whole; everything else stays byte for byte. Text that is not JSON is redacted as text.
   */
  json(text: string): string;
  /** Every string in a value (an outcome), keys that name a secret included; the same value when nothing changed. */
  value<T>(value: T): T;
  /** The user's patterns as written, for a process that must redact the same way (an async hook's). */
  readonly userPatterns: readonly { readonly pattern: string; readonly kind: string }[];
}

export const MARKER_PREFIX = "[REDACTED:";
const MARKER = /^\[REDACTED:[a-z0-9-]{1,32}:[0-9a-f]{8}\]$/;

export function marker(kind: string, secret: string): string {
  return `${MARKER_PREFIX}${kind}:${hash("sha256", secret, "hex").slice(0, 8)}]`;
}

const STRING_LITERAL = /"[^"\\]*(?:\\.[^"\\]*)*"/g;
const KEY_COLON = /\s*:\s*/y;

function applyDetector(text: string, d: Detector): string {
  d.regex.lastIndex = 0;
  return text.replace(d.regex, (...args: unknown[]) => {
    const match = args[0] as string;
    const groups = args[args.length - 1] as Record<string, string | undefined> | string;
    if (d.value === undefined || typeof groups !== "object") return marker(d.kind, match);
    const key = groups.key ?? "";
    const secret = groups[d.value] ?? "";
    const kind = d.kind === "password" && !/pass|pwd/i.test(key) ? "secret" : d.kind;
    return key + marker(kind, secret);
  });
}

/**
 * A user's pattern over `text`: each match becomes a marker. A pattern that cannot run, or cannot find every match
 * within its work bound (regex/userRegex.ts), masks the whole text: what it was written to hide might be anywhere.
 */
function applyUserPattern(text: string, p: RedactPattern): string {
  if (text === "" || MARKER.test(text)) return text;
  const replaced = p.regex?.replace(text, (match) => (MARKER.test(match) ? match : marker(p.kind, match)));
  return replaced ?? marker(p.kind, text);
}

/**
 * `\uXXXX` escapes (after any number of backslashes, for JSON inside JSON) and `\/` decoded, except those of `"`,
 * `\` and control characters: JSON text stays JSON.
 */
function decodeEscapes(s: string): string {
  return s.replace(/\\+u([0-9a-fA-F]{4})|\\\//g, (whole, code: string | undefined) => {
    if (code === undefined) return "/";
    const c = parseInt(code, 16);
    return c < 0x20 || c === 0x22 || c === 0x5c ? whole : String.fromCharCode(c);
  });
}

/** A redactor with the built-in detectors and the user's patterns after them. */
export function createRedactor(patterns: readonly RedactPattern[] = []): Redactor {
  const hasUser = patterns.length > 0;
  const plain = (s: string): string => {
    if (s.length < 8 && !hasUser) return s;
    let out = s;
    if (mayHoldSecret(s)) for (const d of BUILT_IN_DETECTORS) out = applyDetector(out, d);
    for (const p of patterns) out = applyUserPattern(out, p);
    return out;
  };
  // A hook that prints JSON may escape any character (`\u0067hp_...` is a GitHub token): text with escapes is read
  // again with them decoded, and when that finds more, the decoded text with its markers is what the log keeps.
  const text = (s: string): string => {
    const out = plain(s);
    if (!out.includes("\\")) return out;
    const decoded = decodeEscapes(out);
    if (decoded === out) return out;
    const again = plain(decoded);
    return again === decoded ? out : again;
  };
  const keyedSecret = (key: string, value: string): string | null =>
    value !== "" && !MARKER.test(value) && SECRET_KEY.test(key) ? marker(/pass|pwd/i.test(key) ? "password" : "secret", value) : null;

  const json = (s: string): string => {
    if (!hasUser && !mayHoldSecret(s) && !s.includes("\\u")) return s;
    try {
      const first = s.trimStart();
      if (first[0] !== "{" && first[0] !== "[" && first[0] !== '"') return text(s);
      JSON.parse(s);
    } catch {
      return text(s);
    }
    let out = "";
    let last = 0;
    let key: string | null = null;
    let keyEnd = 0;
    STRING_LITERAL.lastIndex = 0;
    for (let m = STRING_LITERAL.exec(s); m !== null; m = STRING_LITERAL.exec(s)) {
      const end = m.index + m[0].length;
      const decoded = JSON.parse(m[0]) as string;
      // A key's value follows it after a colon; a key is a literal followed by one.
      const keyOfValue = key !== null && /^\s*:\s*$/.test(s.slice(keyEnd, m.index)) ? key : null;
      KEY_COLON.lastIndex = end;
      const isKey = KEY_COLON.test(s);
      key = isKey ? decoded : null;
      keyEnd = end;
      const redacted = (keyOfValue !== null && !isKey ? keyedSecret(keyOfValue, decoded) : null) ?? text(decoded);
      if (redacted !== decoded) {
        out += s.slice(last, m.index) + JSON.stringify(redacted);
        last = end;
      }
    }
    return last === 0 ? s : out + s.slice(last);
  };

  // One test of the whole value as JSON first: most outcomes hold nothing to redact, and one pass over one string
  // costs less than a test per string (key words in keys included).
  // (A backslash in a string is `\\` there: its escapes may hide a secret.)
  const clean = (json: string) => !mayHoldSecret(json) && !json.includes("\\\\");
  const value = <T>(v: T): T =>
    !hasUser && (v === null || typeof v !== "object" || clean(JSON.stringify(v))) && typeof v !== "string" ? v : (walk(v, null) as T);
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === "string") return (key !== null ? keyedSecret(key, v) : null) ?? text(v);
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const r = walk(v[i], null);
        if (r !== v[i]) (copy ??= v.slice())[i] = r;
      }
      return copy ?? v;
    }
    // Keys too: a tool_input key echoed back as updatedInput can be the secret. A renamed key keeps its place.
    const entries = Object.entries(v);
    let changed = false;
    const redacted = entries.map(([k, item]): [string, unknown] => {
      const r = walk(item, k);
      const rk = text(k);
      if (r !== item || rk !== k) changed = true;
      return [rk, r];
    });
    // fromEntries defines each key as data: a `__proto__` key stays a key.
    return changed ? Object.fromEntries(redacted) : v;
  };
  return { text, json, value, userPatterns: patterns.map((p) => ({ pattern: p.source, kind: p.kind })) };
}

/** The built-in detectors alone: what is used where no settings say more. */
export const builtInRedactor: Redactor = createRedactor();

/**
 * Where a payload holds a marker: the JSON paths of its redacted strings (`tool_input.command`), or `payload` for a
 * payload that is not JSON. Empty when nothing in it was redacted.
 */
export function redactedFields(payload: string): string[] {
  if (!payload.includes(MARKER_PREFIX)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return ["payload"];
  }
  const paths: string[] = [];
  const visit = (v: unknown, path: string): void => {
    if (typeof v === "string") {
      if (v.includes(MARKER_PREFIX)) paths.push(path === "" ? "payload" : path);
    } else if (Array.isArray(v)) v.forEach((item, i) => visit(item, `${path}[${i}]`));
    else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) visit(item, path === "" ? k : `${path}.${k}`);
  };
  visit(parsed, "");
  return paths;
}
