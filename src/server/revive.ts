import { spawn } from "node:child_process";
import { serverPaths } from "./paths.js";
import { isAlive, readState } from "./state.js";

/** What reviveIfDown found: the state file names a live process, or it did not and `serve --ensure` was started. */
export type Revival = "running" | "ensuring";

export interface ReviveOptions {
  readonly homeDir: string;
  /** How to start `qhooks serve --ensure` (node and the qhooks bin). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The cheap check of an installed command entry (`qhooks run --ensure-server`): one read of the state file and a
 * signal 0 to the pid it names. A live pid is trusted without the challenge (that is `--ensure`'s job, and costs a
 * round trip); otherwise `qhooks serve --ensure` is started detached, in a session of its own, and not waited for, so
 * the event is judged at once and the next http event finds a server. Two at once are safe: `--ensure` takes the lock.
 */
export function reviveIfDown(options: ReviveOptions): Revival {
  const state = readState(serverPaths(options.homeDir).state);
  if (state?.pid != null && isAlive(state.pid)) return "running";
  try {
    const child = spawn(options.command, [...options.args, "serve", "--ensure"], {
      detached: true,
      stdio: "ignore",
      env: options.env,
      cwd: options.homeDir,
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // A server that cannot be started is the next SessionStart's to report; this event is judged regardless.
  }
  return "ensuring";
}
