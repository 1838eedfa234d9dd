import { spawn, type ChildProcess } from "node:child_process";
import { KILL_GRACE_SECONDS_TEXT } from "./killGrace.js";

/**
 * Node cannot ask the kernel to kill children along with their parent, so each engine process has one small shell
 * that outlives it: the engine tells it, one line at a time, which hook process groups are running (`+pgid`,
 * `-pgid`), and when the engine's end of the pipe closes (a normal exit, a crash, even SIGKILL) the shell
 * SIGTERMs, then SIGKILLs, whatever groups are still listed. It runs in its own session and ignores the signals
 * that stop the engine, so that Ctrl-C in a terminal reaches it only through that closing pipe.
 *
 * `kill -SIG -pgid`, without `--`: dash (/bin/sh on Debian and Ubuntu) rejects `kill -TERM -- -pgid` ("Illegal
 * number") and `kill -s TERM -pgid`; this form works in dash and bash alike.
 */
const SCRIPT = `
trap '' INT TERM HUP QUIT
groups=" "
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) id=\${line#-}
        case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
set -- $groups
[ $# -eq 0 ] && exit 0
for g in "$@"; do kill -TERM "-$g" 2>/dev/null; done
sleep ${KILL_GRACE_SECONDS_TEXT}
for g in "$@"; do kill -KILL "-$g" 2>/dev/null; done
`;

class Watchdog {
  private child: ChildProcess | null = null;
  /** The groups to kill if the engine dies, kept here too so that a replacement watchdog can be told all of them. */
  private readonly watched = new Set<number>();

  watch(pgid: number): void {
    this.watched.add(pgid);
    if (this.child) this.child.stdin?.write(`+${pgid}\n`);
    else this.start();
  }

  unwatch(pgid: number): void {
    if (this.watched.delete(pgid) && this.child) this.child.stdin?.write(`-${pgid}\n`);
  }

  /** Starts a watchdog and tells it every group being watched. */
  private start(): void {
    let child: ChildProcess;
    try {
      child = spawn("/bin/sh", ["-c", SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    } catch {
      // No watchdog (the system is out of processes or memory): the engine still kills its hooks on every exit it
      // lives to see, and the next hook tries again.
      return;
    }
    child.on("error", () => {
      // Without a watchdog the engine still kills its hooks on every exit it lives to see.
      if (this.child === child) this.child = null;
    });
    child.on("exit", (_code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      // Killed from outside while the engine lives on (it would not see this otherwise): replace it at once, or the
      // hooks running now and later would no longer die with the engine. A watchdog that exits by itself is not
      // restarted, so that a broken shell cannot make a spawn loop.
      if (signal !== null && this.watched.size > 0) this.start();
    });
    child.stdin?.on("error", () => undefined);
    // The watchdog must never keep the engine alive, nor be waited for.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.child = child;
    child.stdin?.write([...this.watched].map((pgid) => `+${pgid}\n`).join(""));
  }
}

export const watchdog = new Watchdog();
