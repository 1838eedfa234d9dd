import type { DeclaredHook } from "../../core/hookDescriptor.js";
import { EVENT_TRAITS } from "../../schema/events.js";
import type { DoctorContext, DoctorRule } from "../rule.js";
import { isGuardEvent } from "../guardEvents.js";
import { BLOCK_WORDS, type RunsSeen } from "../runHistory.js";
import { entryTimeouts } from "../installedEntries.js";

/** A host default this long means a hung guard holds the agent for minutes, and then lets it go on. */
const LONG_DEFAULT_SECONDS = 60;
/** What qhooks' own start, its log and its answer take of an entry's time, around the hooks it runs. */
const ENTRY_MARGIN_SECONDS = 1;

export const guardTimeout: DoctorRule = {
  id: "guard-timeout",
  level: "warn",
  summary:
    "a guard event's hook (one that can deny or block) with no timeout where the host's default is long, or with more time than the host gives the qhooks entry that runs it (a managed install): the host stops qhooks before the guard's decision, and what it guards goes ahead",
  fix: 'give the hook a timeout a little above its slowest real run (e.g. "timeout": 10)',
  *check(context) {
    // The host's own timeout of a hook it runs is the hook's: only an entry in front of the hooks (qhooks', managed)
    // bounds them, with the time the host gives that entry.
    const entries = entryTimeouts(context);
    for (const hook of context.snapshot.hooks) {
      if (!isGuardEvent(hook.event)) continue;
      const hostDefault = context.host.defaultTimeoutSeconds(hook.handler.type, hook.event);
      const seconds = hook.timeoutMs / 1000;
      const entry = entries?.seconds.get(hook.event);
      // qhooks decides when the hook ends or its timeout comes: that, and qhooks' own start and answer, within the entry's time.
      if (entries !== null && entry !== undefined && seconds + ENTRY_MARGIN_SECONDS > entry) {
        const what = hook.timeoutSetting === "settings" ? `timeout of ${seconds} s` : `${context.host.defaultsName} of ${seconds} s (it names no timeout)`;
        yield {
          hook,
          ...(hook.timeoutSetting === "settings" ? { subPath: "timeout" } : {}),
          message: `${hook.event} guard's ${what} does not fit in the ${entry} s ${context.host.name} gives qhooks' ${hook.event} entry (${entries.file}): ${context.host.name} stops qhooks first, and no decision of this guard reaches it`,
          fix: `give it a timeout of at most ${Math.max(1, entry - ENTRY_MARGIN_SECONDS)} s, or run qhooks install ${context.dialect} again: the entries then get the longest hook's time`,
        };
      } else if (hook.timeoutSetting === "host-default" && hostDefault > LONG_DEFAULT_SECONDS)
        yield {
          hook,
          message: `${hook.event} guard has no timeout: ${context.host.defaultsName} of ${hostDefault} s applies; a hung guard holds the agent that long, then decides nothing`,
        };
    }
  },
};

export const guardAsync: DoctorRule = {
  id: "guard-async",
  level: "error",
  summary: "an `async` hook on a guard event: it runs in the background and is never waited for, so it never blocks",
  fix: 'remove "async": true, or move the hook to an event that cannot block (PostToolUse feedback, SessionEnd...)',
  *check(context) {
    for (const hook of context.commandHooks)
      if (isGuardEvent(hook.event) && hook.handler.type === "command" && hook.handler.async === true)
        yield { hook, subPath: "async", message: `async ${hook.event} hook: never waited for, so it can never ${EVENT_TRAITS[hook.event].blockDecision}` };
  },
};

export const onFailureCannotBlock: DoctorRule = {
  id: "onfailure-cannot-block",
  level: "warn",
  summary: "`onFailure` on an event that cannot block, or on an async hook: a failure stays a non-blocking error",
  fix: "remove onFailure here; it only acts on events that can block, for hooks that are waited for",
  *check(context) {
    for (const hook of context.snapshot.hooks) {
      const handler = hook.handler as { readonly onFailure?: string; readonly async?: boolean };
      if (handler.onFailure === undefined) continue;
      if (!isGuardEvent(hook.event)) yield { hook, subPath: "onFailure", message: `onFailure on ${hook.event}, which cannot be blocked: it changes nothing` };
      else if (handler.async === true)
        yield { hook, subPath: "onFailure", message: "onFailure on an async hook: it is never waited for, so it changes nothing" };
    }
  },
};

const TO_STDERR = /(>&2|1>&2|>\s*\/dev\/stderr)/;
/** Lines before an `exit 1` that may count as its branch. */
const WINDOW = 4;
const EXIT_1 = /(^|[\s;&|{(])exit\s+1\b/;
/** A line that ends a branch (`fi`, `;;`, `}`...) or leaves (another exit): what comes before it is another path. */
const BRANCH_END = /^\s*(fi|esac|done|\}|else|elif\b.*)\s*$|;;|\bexit\b/;

/** The `exit 1` line and the lines of its branch just before it (at most WINDOW, stopping where another ends). */
function branchBefore(lines: readonly string[], at: number): string {
  const branch = [lines[at]!];
  for (let i = at - 1; i >= Math.max(0, at - WINDOW) && !BRANCH_END.test(lines[i]!); i--) branch.unshift(lines[i]!);
  return branch.join("\n");
}

/** The text of the scripts a hook runs (each read at most MAX_SCRIPT_BYTES), with its inline command. */
function* scriptsOf(context: DoctorContext, hook: DeclaredHook): Generator<{ readonly name: string; readonly text: string }> {
  yield { name: "its command", text: hook.command };
  for (const ref of context.programs(hook)) {
    if (ref.kind !== "path") continue;
    const probe = context.probe(ref.path);
    if (probe.state === "ok" && probe.head !== "") yield { name: ref.path, text: probe.head };
  }
}

/** What the log's runs add to a finding: how many, and the newest (for `qhooks show`). */
const runsText = (runs: RunsSeen, what: string): string =>
  `the log has ${runs.count} run${runs.count === 1 ? "" : "s"} of it that ${what} (the newest in event #${runs.lastSeq})`;

export const guardExit1: DoctorRule = {
  id: "guard-exit-1",
  level: "warn",
  summary:
    "a guard's script exits 1 just after printing a deny/block message to stderr (a heuristic), or the log has its runs that exited 1 with such a message: exit 1 is a non-blocking error, only exit 2 blocks",
  fix: "exit 2 on the blocking path (or print a JSON decision and exit 0)",
  *check(context) {
    for (const hook of context.commandHooks) {
      if (!isGuardEvent(hook.event)) continue;
      const runs = context.historyOf(hook)?.exit1Blocking ?? null;
      const logged = runs === null ? "" : `; ${runsText(runs, "exited 1 with a deny/block message on stderr, and so did not block")}`;
      let found = false;
      for (const { name, text } of scriptsOf(context, hook)) {
        const lines = text.split("\n");
        const at = lines.findIndex((line, i) => {
          if (!EXIT_1.test(line)) return false;
          const branch = branchBefore(lines, i);
          return TO_STDERR.test(branch) && BLOCK_WORDS.test(branch);
        });
        if (at < 0) continue;
        yield {
          hook,
          subPath: "command",
          message: `${name === "its command" ? "its command" : name} (line ${at + 1}) exits 1 after a deny/block message on stderr: exit 1 does not block (heuristic: check that this is the blocking path)${logged}`,
        };
        found = true;
        break;
      }
      // What the script does not show (an exit code from a variable, another language): its runs do.
      if (!found && runs !== null)
        yield {
          hook,
          subPath: "command",
          message: `${runsText(runs, "exited 1 with a deny/block message on stderr")}: exit 1 does not block, so those calls went ahead`,
        };
    }
  },
};

const PRINTS_ALLOW = /\\?"permissionDecision\\?"\s*:\s*\\?"allow\\?"|\\?"behavior\\?"\s*:\s*\\?"allow\\?"/;

export const guardPrintsAllow: DoctorRule = {
  id: "guard-prints-allow",
  level: "warn",
  summary:
    'a guard prints `"permissionDecision": "allow"` (or a PermissionRequest `behavior: allow`), in its script or in the log\'s record of its runs: that skips the user\'s permission prompt; print nothing or `{}` for no opinion',
  fix: "print nothing (exit 0) where the hook has no opinion; keep allow only for calls you mean to approve without asking",
  *check(context) {
    for (const hook of context.commandHooks) {
      if (hook.event !== "PreToolUse" && hook.event !== "PermissionRequest") continue;
      const runs = context.historyOf(hook)?.allowed ?? null;
      const logged = runs === null ? "" : `; ${runsText(runs, "answered allow")}`;
      let found = false;
      for (const { name, text } of scriptsOf(context, hook)) {
        if (!PRINTS_ALLOW.test(text)) continue;
        yield { hook, subPath: "command", message: `${name} prints an allow decision: every call it answers so skips the permission prompt${logged}` };
        found = true;
        break;
      }
      if (!found && runs !== null)
        yield { hook, subPath: "command", message: `${runsText(runs, "answered allow")}: each of those calls skipped the permission prompt` };
    }
  },
};
