import type { IncomingHttpHeaders } from "node:http";

export interface PostAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

/**
 * One POST with node:http(s), without a connection pool (`agent: false`): nothing is kept open after the answer,
 * so a `qhooks run` exits as soon as it is done (fetch's pool kept it alive for seconds, and loading it cost more
 * than the request). The body of a redirect is not read; any other body goes to `onChunk`. Rejects with the
 * system's error (ECONNREFUSED...) or the abort.
 */
export async function post(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  signal: AbortSignal,
  onChunk: (chunk: Buffer) => void,
): Promise<PostAnswer> {
  // Loaded with the first request: most runs of qhooks have no http hook, and TLS is costly to load.
  const modules = await import("./httpModules.js");
  const send = url.protocol === "https:" ? modules.httpsRequest : modules.httpRequest;
  return new Promise<PostAnswer>((resolve, reject) => {
    const req = send(url, { method: "POST", headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, agent: false, signal }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location !== undefined) {
        res.resume();
        resolve({ status, headers: res.headers });
        return;
      }
      res.on("data", onChunk);
      res.on("end", () => resolve({ status, headers: res.headers }));
      res.on("error", reject);
      res.on("aborted", () => reject(new Error("the response was cut off")));
    });
    req.on("error", reject);
    req.end(body);
  });
}
