import { spawn, type SpawnOptions } from "node:child_process";

/** Starts a process in a session of its own and lets go of it (loaded with the first async hook of a `qhooks run`). */
export function spawnDetached(command: string, args: readonly string[], options: Pick<SpawnOptions, "cwd" | "env">, failed: (e: unknown) => void): void {
  const child = spawn(command, args, { ...options, detached: true, stdio: "ignore" });
  child.on("error", failed);
  child.unref();
}
