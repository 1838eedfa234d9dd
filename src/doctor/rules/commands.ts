import type { DeclaredHook } from "../../core/hookDescriptor.js";
import { oneLineText } from "../../text/oneLine.js";
import type { DoctorContext, DoctorRule, RawFinding } from "../rule.js";
import { isOwnEntry } from "./install.js";

/**
 * Each program position of each command hook, with what doctor found there; qhooks' own entries are install-cli-missing's
 * (one finding per file, not one per event when their CLI is gone).
 */
function* eachProgram(context: DoctorContext) {
  for (const hook of context.commandHooks) {
    if (isOwnEntry(hook)) continue;
    for (const ref of context.programs(hook)) yield { hook, ref };
  }
}

const shown = (text: string) => oneLineText(text, 120);

export const commandMissing: DoctorRule = {
  id: "command-missing",
  level: "error",
  summary: "a program or script a command hook starts does not exist: not on PATH, a missing path, a dangling symlink, a directory",
  fix: "correct the path (relative paths start in the project directory) or install the program",
  *check(context) {
    for (const { hook, ref } of eachProgram(context)) {
      if (ref.kind === "name") {
        if (context.which(ref.name) === null)
          yield {
            hook,
            subPath: "command",
            message: `${shown(ref.name)} is not on PATH (exit 127 at every run)`,
            fix: `install ${shown(ref.name)} or name it by its full path`,
          };
        continue;
      }
      if (ref.kind !== "path") continue;
      const probe = context.probe(ref.path);
      const what = `${ref.role === "script" ? "script" : "program"} ${shown(ref.path)}`;
      if (probe.state === "missing") yield { hook, subPath: "command", message: `${what} does not exist` };
      else if (probe.state === "dangling") yield { hook, subPath: "command", message: `${what} is a symlink to ${shown(probe.target)}, which does not exist` };
      else if (probe.state === "directory") yield { hook, subPath: "command", message: `${what} is a directory`, fix: "name the script inside it" };
      else if (probe.state === "not-regular") yield { hook, subPath: "command", message: `${what} is not a regular file (a FIFO, a device or a socket)` };
    }
  },
};

export const commandNotExecutable: DoctorRule = {
  id: "command-not-executable",
  level: "error",
  summary: "a script a command hook runs directly has no execute permission (exit 126 at every run)",
  fix: "chmod +x the script, or run it through its interpreter (bash script.sh)",
  *check(context) {
    for (const { hook, ref } of eachProgram(context)) {
      if (ref.kind !== "path" || ref.role !== "program") continue;
      const probe = context.probe(ref.path);
      if ((probe.state === "ok" || probe.state === "unreadable") && probe.executable === false)
        yield { hook, subPath: "command", message: `${shown(ref.path)} is not executable`, fix: `chmod +x ${shown(ref.path)}` };
    }
  },
};

export const commandUnreadable: DoctorRule = {
  id: "command-unreadable",
  level: "warn",
  summary: "a script a command hook runs cannot be read by this user (a script must be readable to run; doctor cannot check it)",
  fix: "give the user who runs the agent read permission (chmod u+r)",
  *check(context) {
    for (const { hook, ref } of eachProgram(context)) {
      if (ref.kind !== "path") continue;
      const probe = context.probe(ref.path);
      if (probe.state === "unreadable") yield { hook, subPath: "command", message: `${shown(ref.path)} cannot be read (${probe.code})` };
    }
  },
};

export const scriptNoShebang: DoctorRule = {
  id: "script-no-shebang",
  level: "warn",
  summary: "a script a command hook runs directly does not start with #! (it then runs under /bin/sh, whatever it is written in)",
  fix: "start the script with its interpreter's line, e.g. #!/usr/bin/env bash",
  *check(context) {
    for (const { hook, ref } of eachProgram(context)) {
      if (ref.kind !== "path" || ref.role !== "program") continue;
      const probe = context.probe(ref.path);
      if (probe.state === "ok" && probe.executable && !probe.shebang && !probe.binary)
        yield { hook, subPath: "command", message: `${shown(ref.path)} has no #! line` };
    }
  },
};

export const commandNotChecked: DoctorRule = {
  id: "command-not-checked",
  level: "info",
  summary: "a command whose program only the shell knows at run time (a variable, a command substitution): not checked, never guessed",
  fix: "write the program as a path or a name (variables other than the project and plugin directories are not expanded)",
  *check(context) {
    const seen = new Set<DeclaredHook>();
    for (const { hook, ref } of eachProgram(context)) {
      if (ref.kind !== "unknown" || seen.has(hook)) continue;
      seen.add(hook);
      yield { hook, subPath: "command", message: `not checked: ${shown(ref.written)}: ${ref.why}` } satisfies RawFinding;
    }
  },
};
