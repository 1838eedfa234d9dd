import { homedir } from "node:os";
import { localDataDir } from "../core/dataDir.js";
import { DEFAULT_DIALECT } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import { chooseDialect, type DialectChoice } from "../settings/detectDialect.js";

/** Whose files the root help names: the dialect a command typed here would read (the flag given before --help counts). */
export function helpDialect(asked: string | undefined): Pick<DialectChoice, "dialect" | "how"> {
  try {
    return chooseDialect(asked, process.env, { homeDir: homedir(), projectDir: process.cwd(), detect: true });
  } catch {
    // A $QHOOKS_DIALECT qhooks does not know: the command itself will say so; the help names the default's files.
    return { dialect: DEFAULT_DIALECT, how: "default" };
  }
}

const HOW: Readonly<Record<DialectChoice["how"], string>> = {
  flag: "named by --dialect",
  environment: "named by $QHOOKS_DIALECT",
  remembered: "remembered by qhooks config dialect",
  detected: "the only host whose settings files exist here",
  default: "the default",
};

/** The root help's closing text: getting started and where settings live, in the files of the dialect in use here. */
export function rootHelp({ dialect, how }: Pick<DialectChoice, "dialect" | "how">): string {
  const host = hostDialect(dialect);
  const home = homedir();
  const levels = host.settingsLevels(home, "<project>", {}).filter((l) => l.level === "user" || l.level === "project" || l.level === "local");
  const tilde = (path: string): string => (path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path);
  const shown = levels.map((l) => (l.level === "user" ? l.display : `<project>/${l.display}`));
  const user = levels.find((l) => l.level === "user")?.display ?? "your settings";
  // `run` never detects (a host calls it): the example names the dialect unless it is the default.
  const runDialect = dialect === DEFAULT_DIALECT ? "" : ` --dialect ${dialect}`;
  // Claude Code and Qoder call their shell tool Bash; the other hosts name it their own way (docs/hosts.md).
  const example =
    dialect === "claude" || dialect === "qoder"
      ? "qhooks hooks add PreToolUse --matcher Bash --command ~/hooks/block-rm.sh"
      : "qhooks hooks add PreToolUse --command ~/hooks/check-tool.sh";
  return `
Getting started (${host.name}'s files: ${HOW[how]}; --dialect NAME reads another host's):
  qhooks hooks                                        what is configured, from which file, and what is wrong with it
  ${example}
                                                      add a hook to ${user}, leaving the rest of the file as it is
  echo '{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"}}' | qhooks run PreToolUse${runDialect}
                                                      judge one event with your settings, as an agent would
  qhooks log --blocked                                what was blocked, by which hook, and why
  qhooks replay --session ID --settings new.json      what would new rules have decided in a past session?

Exit status: 0 ok, 1 bad usage or input (one "qhooks: ..." line) or a failed hook test (test), 2 blocked (run),
3 log integrity failure (verify, ship).
Settings (${dialect}): ${shown.join(", ")}${host.loadsEnabledPlugins ? ` and the plugins ${host.name} has enabled` : ""}; qhooks hooks lists them.
qhooks' own files (log, trust, config), for every host: ${tilde(localDataDir(home))}/
Times: tables show local time with its offset (--utc for UTC); --since and --until read a time without a zone the same way.`;
}
