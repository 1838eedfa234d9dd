import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL) that a test can freeze: from then on nothing passes
 * either way, on the connections already open and on new ones, and no close passes either (a network that went
 * silent: the client waits for an answer that never comes, the server for a client that never speaks).
 */
export interface FreezableProxy {
  readonly port: number;
  /** `url` (a postgres:// URL of the real server) pointed at the proxy instead. */
  via(url: string): string;
  freeze(): void;
  readonly frozen: boolean;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function freezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => sockets.delete(s));
    }
    const forward = (from: Socket, to: Socket) => {
      from.on("data", (chunk: Buffer) => {
        if (!frozen) to.write(chunk);
      });
      from.on("close", () => {
        if (!frozen) to.destroy();
      });
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    freeze() {
      frozen = true;
    },
    get frozen() {
      return frozen;
    },
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
