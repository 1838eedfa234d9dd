import { messageOf } from "../../errors.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../json/jsonDepth.js";
import { oneLineText } from "../../text/oneLine.js";

/**
 * What an in-process handler (or an evaluator, or an MCP caller) returned or resolved to, as plain JSON data, read
 * once, here: a getter that throws, a BigInt, a cycle or a toJSON that throws is this handler's error, and what the
 * outcome, the log and the CLI later serialise can no longer throw. Data nested deeper than command hooks may print
 * is refused the same way.
 */
export async function plainJson(result: unknown): Promise<{ ok: true; value: unknown } | { ok: false; why: string }> {
  // A rejection or a throwing `then` is the handler's throw, as before.
  const value = await result;
  if (value === undefined) return { ok: true, value: undefined };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    return { ok: false, why: `a value that is not JSON data (${oneLineText(messageOf(e))})` };
  }
  if (text === undefined) return { ok: false, why: `a ${typeof value}, not an object` };
  if (nestsDeeperThan(text)) return { ok: false, why: `data nested deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value: JSON.parse(text) };
}
