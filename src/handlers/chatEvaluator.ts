import { messageOf } from "../errors.js";
import { oneLineText } from "../text/oneLine.js";
import { shownUrl, withoutUrlCredentials } from "../text/shownUrl.js";
import { post } from "../exec/runners/httpPost.js";
import type { Evaluator } from "../core/services.js";

const INSTRUCTIONS =
  "You judge one event of an AI coding agent for a hook. Answer with one JSON object and nothing else: " +
  '{"ok": true} to let it go ahead, or {"ok": false, "reason": "<why, for the agent>"} to block it.';

/**
 * The CLI's evaluator of prompt and agent hooks: an OpenAI-compatible chat endpoint (`POST <url>/chat/completions`),
 * configured by QHOOKS_EVALUATOR_URL (the base URL, e.g. http://127.0.0.1:8080/v1), QHOOKS_EVALUATOR_MODEL (used
 * when the hook names no model) and QHOOKS_EVALUATOR_API_KEY (sent as a bearer token). Only the environment
 * configures it: a project's settings must not be able to send its events elsewhere. Undefined without a URL.
 */
export function chatEvaluatorFromEnv(env: Readonly<Record<string, string | undefined>>): Evaluator | undefined {
  const base = env.QHOOKS_EVALUATOR_URL?.trim();
  if (!base) return undefined;
  const endpoint = `${base.replace(/\/+$/, "")}/chat/completions`;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    return () => {
      throw new Error(`QHOOKS_EVALUATOR_URL is not an http:// or https:// URL: ${oneLineText(shownUrl(base))}`);
    };
  }
  // What errors name: the endpoint without its password (they reach the outcome, the log and the terminal).
  const shown = shownUrl(endpoint);
  const defaultModel = env.QHOOKS_EVALUATOR_MODEL?.trim() || null;
  const apiKey = env.QHOOKS_EVALUATOR_API_KEY?.trim() || null;
  return async (request) => {
    const model = request.model ?? defaultModel;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const body = {
      ...(model ? { model } : {}),
      temperature: 0,
      messages: [
        { role: "system", content: INSTRUCTIONS },
        { role: "user", content: request.prompt },
      ],
    };
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (c: Buffer) => {
      // An answer is a few hundred bytes; past a mebibyte the rest is dropped (and the JSON will not read).
      if ((size += c.length) <= 1024 * 1024) chunks.push(c);
    };
    let status: number;
    try {
      ({ status } = await post(new URL(endpoint), headers, JSON.stringify(body), request.signal, keep));
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new Error(`evaluator ${shown} unreachable: ${typeof code === "string" ? code : oneLineText(withoutUrlCredentials(messageOf(e)))}`);
    }
    if (status >= 300 && status < 400) throw new Error(`evaluator ${shown}: HTTP ${status} (redirects are not followed)`);
    if (status < 200 || status >= 300) throw new Error(`evaluator ${shown}: HTTP ${status}`);
    const text = Buffer.concat(chunks).toString("utf8");
    let content: unknown;
    try {
      content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
    } catch {
      throw new Error(`evaluator ${shown}: the response is not JSON`);
    }
    if (typeof content !== "string") throw new Error(`evaluator ${shown}: no choices[0].message.content in the response`);
    const json = content
      .trim()
      .replace(/^```(?:json)?\s*/i, "")
      .replace(/\s*```$/, "");
    let answer: unknown;
    try {
      answer = JSON.parse(json) as unknown;
    } catch {
      throw new Error(`evaluator answered ${JSON.stringify(oneLineText(content).slice(0, 120))}, not a JSON object`);
    }
    // The model was asked for {"ok": ...}: an answer without it ({} or {"reason": ...}) decided nothing, and must not
    // pass for a go-ahead. Whether `ok` is true or false is checked with every evaluator's answer (readShortForm).
    if (typeof answer !== "object" || answer === null || Array.isArray(answer) || !("ok" in answer)) {
      throw new Error(`evaluator answered ${JSON.stringify(oneLineText(content).slice(0, 120))}, without "ok": true or false`);
    }
    return answer;
  };
}
