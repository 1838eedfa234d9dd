import { messageOf } from "../errors.js";
import { oneLineText } from "../text/oneLine.js";
import type { Evaluator } from "./services.js";

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
    let response: Response;
    try {
      response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify(body), redirect: "error", signal: request.signal });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      throw new Error(`evaluator ${endpoint} unreachable: ${cause?.code ?? oneLineText(messageOf(e))}`);
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`evaluator ${endpoint}: HTTP ${response.status}`);
    let content: unknown;
    try {
      content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
    } catch {
      throw new Error(`evaluator ${endpoint}: the response is not JSON`);
    }
    if (typeof content !== "string") throw new Error(`evaluator ${endpoint}: no choices[0].message.content in the response`);
    const json = content.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
    try {
      return JSON.parse(json) as unknown;
    } catch {
      throw new Error(`evaluator answered ${JSON.stringify(oneLineText(content).slice(0, 120))}, not a JSON object`);
    }
  };
}
