import { URL_PASSWORD_SOURCE } from "../text/shownUrl.js";

/**
 * The secrets qhooks recognises by their form, before anything reaches the log. Each detector is a global regex
 * whose every quantifier is bounded or runs over a class that cannot overlap its neighbour, so that no input can make
 * it backtrack for long; `value` names the group that is the secret (the whole match when absent), so that a
 * `password=` assignment keeps its key and loses its value.
 *
 * Order matters: the more specific forms come first (an Anthropic key before the generic `sk-` form), and a value
 * already replaced by a marker is never matched again.
 */
export interface Detector {
  readonly kind: string;
  readonly regex: RegExp;
  /** The named group holding the secret; the whole match when absent. */
  readonly value?: string;
}

/** A marker already written: never redacted again (its kind and digest are what audits group by). */
const NOT_A_MARKER = "(?!\\[REDACTED:)";

export const BUILT_IN_DETECTORS: readonly Detector[] = [
  // PEM private keys (RSA, EC, OpenSSH, PKCS#8, encrypted), whole: header, body and footer. The body is bounded.
  {
    kind: "private-key",
    regex: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g,
  },
  // Model providers.
  { kind: "anthropic", regex: /\bsk-ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_-]{20,400}/g },
  { kind: "openai", regex: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,400}/g },
  { kind: "huggingface", regex: /\bhf_[A-Za-z0-9]{30,64}\b/g },
  { kind: "groq", regex: /\bgsk_[A-Za-z0-9]{40,64}\b/g },
  { kind: "xai", regex: /\bxai-[A-Za-z0-9]{40,120}\b/g },
  // Cloud.
  { kind: "aws-access-key", regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: "google-api-key", regex: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: "stripe", regex: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,200}\b/g },
  // Version control and package registries.
  { kind: "github", regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: "gitlab", regex: /\bglpat-[A-Za-z0-9_-]{20,64}\b/g },
  { kind: "npm", regex: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // Chat.
  { kind: "slack", regex: /\bxox[abposr]-[A-Za-z0-9-]{10,250}/g },
  { kind: "slack-webhook", regex: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,200}/g },
  { kind: "discord-webhook", regex: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,30}\/[A-Za-z0-9_-]{20,100}/g },
  // JSON Web Tokens: three base64url parts, the first two JSON objects (`eyJ` is `{"`).
  { kind: "jwt", regex: /\beyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,8192}\.[A-Za-z0-9_-]{0,4096}/g },
  // The password of a URL (`https://user:password@host`, `postgres://...`), whatever its form: the same rule as the
  // URLs qhooks shows itself (src/text/shownUrl.ts).
  { kind: "url-password", regex: new RegExp(URL_PASSWORD_SOURCE, "gi"), value: "value" },
  // HTTP authorization headers, whatever the token's form.
  {
    kind: "bearer",
    regex: new RegExp(`\\b(?<key>(?:Bearer|Basic|Token)[ \\t]{1,8})${NOT_A_MARKER}(?<value>[A-Za-z0-9\\-._~+/]{8,4096}=*)`, "gi"),
    value: "value",
  },
  // Assignments whose key says secret: password=..., "api_key": "...", export GITHUB_TOKEN=..., --password=...
  {
    kind: "password",
    regex: new RegExp(
      `(?<!\\[REDACTED:[a-z0-9-]{0,32})(?<key>\\b[A-Za-z0-9_.-]{0,40}(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth)["']?[ \\t]{0,8}[:=][ \\t]{0,8}(?:\\\\?["'])?)${NOT_A_MARKER}(?!(?:true|false|null|undefined)\\b)(?<value>(?<=["'])[^"'\\\\\\n]{1,512}(?=\\\\?["'])|[^\\s"'\\\\,;&|<>(){}\\[\\]]{4,512})`,
      "gi",
    ),
    value: "value",
  },
];

/**
 * Every secret a detector finds contains one of these (its prefix, or its key word), in any case. Tested first, on
 * the text in lowercase, with one case-sensitive regex: 4 us on a 1 KB payload, where the same alternation with the
 * `i` flag, or a substring search per word, cost twice as much (measured). The detectors run only on the rare text
 * it lets through.
 */
const PREFILTER =
  /-----begin|sk[-_]|rk_|hf_|gsk_|xai-|akia|asia|abia|acca|aiza|gh[pousr]_|github_pat_|glpat-|npm_|xox|hooks\.slack|discord|eyj|bearer|basic|token|passw|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth|:\/\/[^\s/?#@]{0,300}@/;

/** True when the text may hold a secret a detector finds; false means none can match. */
export function mayHoldSecret(text: string): boolean {
  return PREFILTER.test(text.toLowerCase());
}

/**
 * Object keys whose string value is a secret whatever its form: `{"password": "hunter2"}` in a JSON payload, where
 * key and value are two strings and no `password=` appears in either.
 */
export const SECRET_KEY =
  /^[A-Za-z0-9_.-]{0,40}(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|authorization)$/i;
