/**
 * Would a Unix socket make a forwarded `qhooks run` faster than loopback TCP? Not part of `npm run bench`: run by
 * hand (`node dist/bench/probes/unixSocket.js [reps]`) when the question comes back; prints one JSON line.
 *
 * A stand-in server (a child process, node:http, one handler on both a loopback port and a socket in a 0700 folder)
 * answers the forward client's exchange as qhooks serve does: GET /health with the challenge's HMAC, then POST /run
 * with a 102 and a small JSON reply. Measured, interleaved, the same client code over each transport:
 * - `inProcess`: the exchange alone, on a fresh connection each time, from one warm process (the transport's share);
 * - `perProcess`: a new node process that connects, exchanges and exits (the shape of case S5, minus the judging).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interleave, median, percentile } from "../harness.js";

const reps = Number(process.argv[2] ?? "30");
const dir = mkdtempSync(join(tmpdir(), "qhooks-unix-probe-"));
const socketPath = join(dir, "serve.sock");
const token = "t".repeat(43);

const SERVER = `
const { createServer } = require("node:http");
const { createHmac } = require("node:crypto");
const handler = (req, res) => {
  if (req.url === "/health") {
    const proof = createHmac("sha256", ${JSON.stringify(token)}).update("qhooks serve health\\n" + req.headers["x-qhooks-challenge"]).digest("hex");
    const body = JSON.stringify({ service: "qhooks serve", pid: process.pid, version: "1", port: 0, proof });
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    return res.end(body);
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    res.writeProcessing();
    const body = JSON.stringify({ early: "", stdout: null, blockIfUndelivered: null, stderr: null, exitCode: 0 });
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
};
const tcp = createServer(handler).listen(0, "127.0.0.1", () => {
  createServer(handler).listen(process.argv[1], () => console.log(tcp.address().port));
});
`;

/** The forward client's exchange, over `where` (a port or a socket path): two requests on one connection. */
const CLIENT = `
const { connect } = require("node:net");
const { createHmac, randomBytes } = require("node:crypto");
module.exports = (where, body) => new Promise((resolve, reject) => {
  const socket = typeof where === "number" ? connect({ host: "127.0.0.1", port: where }) : connect({ path: where });
  const challenge = randomBytes(24).toString("base64url");
  let got = "";
  let phase = 0;
  socket.on("error", reject);
  socket.on("connect", () => socket.write("GET /health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Qhooks-Challenge: " + challenge + "\\r\\n\\r\\n"));
  socket.on("data", (c) => {
    got += c.toString("latin1");
    for (;;) {
      const end = got.indexOf("\\r\\n\\r\\n");
      if (end === -1) return;
      const status = Number(got.slice(9, 12));
      const length = status < 200 ? 0 : Number(/content-length: *(\\d+)/i.exec(got.slice(0, end))[1]);
      if (got.length < end + 4 + length) return;
      const text = got.slice(end + 4, end + 4 + length);
      got = got.slice(end + 4 + length);
      if (status < 200) continue;
      if (phase === 0) {
        const proof = createHmac("sha256", ${JSON.stringify(token)}).update("qhooks serve health\\n" + challenge).digest("hex");
        if (JSON.parse(text).proof !== proof) return reject(new Error("no proof"));
        phase = 1;
        socket.write("POST /run HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Bearer ${token}\\r\\nContent-Type: application/json\\r\\nContent-Length: " + Buffer.byteLength(body) + "\\r\\nConnection: close\\r\\n\\r\\n" + body);
      } else {
        socket.destroy();
        return resolve(text);
      }
    }
  });
});
`;

/** A forwarded run's body is mostly the caller's environment: this process's, as a realistic size. */
const body = JSON.stringify({ env: process.env, stdin: JSON.stringify({ session_id: "s", tool_name: "Bash", tool_input: { command: "ls" } }) });

function child(args: readonly string[]): Promise<{ code: number | null; stdout: string; ms: number }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    p.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    p.on("exit", (code) => resolve({ code, stdout, ms: performance.now() - start }));
  });
}

const server = spawn(process.execPath, ["-e", SERVER, socketPath], { stdio: ["ignore", "pipe", "inherit"] });
try {
  const port = await new Promise<number>((resolve) => server.stdout.once("data", (c: Buffer) => resolve(Number(c.toString("utf8").trim()))));
  const clientFile = join(dir, "client.cjs");
  writeFileSync(clientFile, CLIENT);
  const exchange = createRequire(import.meta.url)(clientFile) as (where: number | string, body: string) => Promise<string>;
  const timed = async (where: number | string): Promise<number> => {
    const t = performance.now();
    await exchange(where, body);
    return performance.now() - t;
  };
  const inProcess = await interleave({ tcp: () => timed(port), unix: () => timed(socketPath) }, reps * 10, 20);
  const oneProcess = (where: number | string) => async (): Promise<number> => {
    const r = await child(["-e", `require(${JSON.stringify(clientFile)})(${JSON.stringify(where)}, ${JSON.stringify(body)}).then(() => 0)`]);
    if (r.code !== 0) throw new Error(`the client exited ${r.code}`);
    return r.ms;
  };
  const perProcess = await interleave({ tcp: oneProcess(port), unix: oneProcess(socketPath) }, reps, 2);
  const summary = (xs: readonly number[]) => ({ median: Number(median(xs).toFixed(3)), p90: Number(percentile(xs, 90).toFixed(3)) });
  console.log(
    JSON.stringify({
      reps,
      bodyBytes: Buffer.byteLength(body),
      inProcess: { tcp: summary(inProcess.tcp), unix: summary(inProcess.unix) },
      perProcess: { tcp: summary(perProcess.tcp), unix: summary(perProcess.unix) },
    }),
  );
} finally {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
