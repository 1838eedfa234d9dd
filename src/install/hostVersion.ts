import { spawnSync } from "node:child_process";

/**
 * `claude --version` as the PATH of `env` finds it, its stdout; null when there is no `claude` to run (or it fails or
 * hangs for 10 s). Run by `install claude --server` only.
 */
export function claudeVersionOutput(env: Readonly<Record<string, string | undefined>>): string | null {
  const r = spawnSync("claude", ["--version"], { env: env as NodeJS.ProcessEnv, encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] });
  return r.error === undefined && r.status === 0 ? r.stdout : null;
}
