import { spawn, type ChildProcess } from "node:child_process";
import { KILL_GRACE_SECONDS_TEXT } from "./killGrace.js";

/**
 * Node cannot ask the kernel to kill children along with their parent, so each engine process has one small shell
 * that outlives it: the engine tells it, one line at a time, which hook process groups are running (`+pgid`,
 * `-pgid`), and when the engine's end of the pipe closes (a normal exit, a crash, even SIGKILL) the shell
 * SIGTERMs, then SIGKILLs, whatever groups are still listed. It runs in its own session and ignores the signals
 * that stop the engine, so that Ctrl-C in a terminal reaches it only through that closing pipe.
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
for g in "$@"; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep ${KILL_GRACE_SECONDS_TEXT}
for g in "$@"; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

class Watchdog {
  private child: ChildProcess | null = null;

  watch(pgid: number): void {
    this.send(`+${pgid}\n`);
  }

  unwatch(pgid: number): void {
    if (this.child) this.send(`-${pgid}\n`);
  }

  private send(line: string): void {
    const child = this.child ?? this.start();
    child.stdin?.write(line);
  }

  private start(): ChildProcess {
    const child = spawn("/bin/sh", ["-c", SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", () => {
      // Without a watchdog the engine still kills its hooks on every exit it lives to see.
      this.child = null;
    });
    child.stdin?.on("error", () => undefined);
    // The watchdog must never keep the engine alive, nor be waited for.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.child = child;
    return child;
  }
}

export const watchdog = new Watchdog();
