import { Observable } from "rxjs";
import { messageOf } from "../../errors.js";
import type { HookRun } from "../../core/hookRun.js";
import { oneLineText } from "../../text/oneLine.js";
import { shownUrl, withoutUrlCredentials } from "../../text/shownUrl.js";
import { post } from "./httpPost.js";
import { handlerOf } from "../../core/hookDescriptor.js";
import type { Runner } from "./runner.js";
import { hookInput } from "./hookInput.js";

/** Redirects an http hook follows, within its own origin. */
export const MAX_HTTP_REDIRECTS = 5;

/**
 * An `http` hook: POSTs the payload to its URL and reads the response body as a command's stdout (JSON output, or
 * context where plain stdout is). A 2xx status is exit 0; any other status is like an unexpected exit code, this
 * hook's error (a block with `onFailure: "block"`), and so is a server that is down or a response cut by the timeout.
 * Redirects are followed only within the same origin (scheme, host and port), at most MAX_HTTP_REDIRECTS.
 */
export const httpRunner: Runner = ({ spec, valid, env, stdout, elapsed }) =>
  new Observable<HookRun>((subscriber) => {
    const handler = handlerOf(spec);
    if (handler?.type !== "http") throw new Error("httpRunner: not an http hook");
    const controller = new AbortController();
    const headers: Record<string, string> = { "content-type": "application/json" };
    for (const [name, value] of Object.entries<string>(handler.headers ?? {})) headers[name] = expandAllowed(value, handler.allowedEnvVars ?? [], env);

    const run = async (): Promise<HookRun> => {
      let url = new URL(handler.url);
      for (let hops = 0; ; hops++) {
        const answer = await post(url, headers, hookInput(spec, valid), controller.signal, stdout.push);
        const location = answer.headers.location;
        if (answer.status >= 300 && answer.status < 400 && location !== undefined) {
          const next = new URL(location, url);
          if (next.origin !== url.origin)
            return failed(`HTTP ${answer.status} redirect to ${next.origin} refused (redirects are followed within ${url.origin} only)`);
          if (hops >= MAX_HTTP_REDIRECTS) return failed(`more than ${MAX_HTTP_REDIRECTS} redirects`);
          url = next;
          continue;
        }
        if (answer.status >= 200 && answer.status < 300) {
          return { type: "exited", exitCode: 0, signal: null, durationMs: elapsed(), stdout: stdout.text(), stderr: "", truncated: stdout.truncated };
        }
        const detail =
          stdout
            .text()
            .split("\n")
            .find((l) => l.trim() !== "")
            ?.trim() ?? "";
        return failed(`HTTP ${answer.status}${detail ? `: ${detail.slice(0, 300)}` : ""}`);
      }
    };
    const failed = (message: string): HookRun => ({ type: "failed", message, durationMs: elapsed(), stdout: stdout.text(), truncated: stdout.truncated });

    run().then(
      (result) => {
        if (controller.signal.aborted) return;
        subscriber.next(result);
        subscriber.complete();
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        subscriber.next(failed(`could not reach ${shownUrl(handler.url)}: ${describeFetchError(e)}`));
        subscriber.complete();
      },
    );
    return () => controller.abort();
  });

/** `$VAR` and `${VAR}` replaced by the variable's value when its name is allowed; by nothing otherwise. */
export function expandAllowed(value: string, allowed: readonly string[], env: Readonly<Record<string, string>>): string {
  return value.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    return allowed.includes(name) ? (env[name] ?? "") : "";
  });
}

function describeFetchError(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
  return oneLineText(withoutUrlCredentials(messageOf(e)));
}
