import { basename } from "node:path";

/**
 * Programs known to run no file named by their arguments: their arguments are data, not pinned (a log a hook
 * appends to would otherwise untrust it at every call). `cat` is one, except when its output is code (`cat x | sh`).
 */
export const DATA_TOOLS = new Set(
  (
    "echo printf cat tee touch mkdir rm rmdir mv cp ln chmod chown test [ [[ true false : exit return sleep date grep egrep fgrep rg " +
    "jq head tail wc sort uniq cut tr basename dirname realpath readlink printenv export unset set shift local read logger mktemp " +
    "diff cmp stat ls pwd wait kill trap umask break continue"
  ).split(" "),
);

/**
 * Programs that run a file named by their first argument that is not an option, the options after which the code
 * is inline (`-c`, `-e`), those that take a value (skipped with it), those whose value is a file they run (pinned),
 * and the option that makes them read code from stdin.
 */
export interface Interpreter {
  readonly shell: boolean;
  readonly inline: RegExp;
  readonly withValue: ReadonlySet<string>;
  readonly fileValue: ReadonlySet<string>;
  readonly stdin: RegExp;
  /** The option whose value is a module name (`python -m pkg.mod`). */
  readonly module?: string;
}
const SHELL: Interpreter = {
  shell: true,
  inline: /^-[A-Za-z]*c[A-Za-z]*$/,
  withValue: new Set(["-o", "+o", "-O", "+O"]),
  fileValue: new Set(["--rcfile", "--init-file"]),
  stdin: /^-[A-Za-z]*s[A-Za-z]*$/,
};
const PYTHON: Interpreter = {
  shell: false,
  inline: /^-[A-Za-z]*c/,
  withValue: new Set(["-W", "-X", "-Q", "--check-hash-based-pycs"]),
  fileValue: new Set(),
  stdin: /^-$/,
  module: "-m",
};
const NODE: Interpreter = {
  shell: false,
  inline: /^(-e|-p|--eval|--print|-pe)$|^--(eval|print)=/,
  withValue: new Set(["-C", "--conditions", "--env-file", "--input-type"]),
  fileValue: new Set(["-r", "--require", "--import", "--loader", "--experimental-loader"]),
  stdin: /^-$/,
};
const PERL: Interpreter = { shell: false, inline: /^-[A-Za-z]*[eE]/, withValue: new Set(["-I", "-M", "-m"]), fileValue: new Set(), stdin: /^-$/ };
const RUBY: Interpreter = { shell: false, inline: /^-[A-Za-z]*e/, withValue: new Set(["-I"]), fileValue: new Set(["-r"]), stdin: /^-$/ };
const PHP: Interpreter = { shell: false, inline: /^-[A-Za-z]*r/, withValue: new Set(["-c", "-d"]), fileValue: new Set(["-f"]), stdin: /^-$/ };
export const SOURCE: Interpreter = { shell: true, inline: /^$/, withValue: new Set(), fileValue: new Set(), stdin: /^$/ };
const LUA: Interpreter = { shell: false, inline: /^-e$/, withValue: new Set(["-l"]), fileValue: new Set(), stdin: /^-$/ };

export function interpreterOf(program: string): Interpreter | null {
  const name = basename(program);
  if (/^(sh|bash|dash|zsh|ksh|mksh|fish)$/.test(name)) return SHELL;
  if (/^(python|pypy)[0-9.]*$/.test(name)) return PYTHON;
  if (/^(node|nodejs|deno|bun|tsx|ts-node)$/.test(name)) return NODE;
  if (/^perl[0-9.]*$/.test(name)) return PERL;
  if (/^ruby[0-9.]*$/.test(name)) return RUBY;
  if (/^php[0-9.]*$/.test(name)) return PHP;
  if (name === "source" || name === ".") return SOURCE;
  if (/^lua[0-9.]*$/.test(name)) return LUA;
  return null;
}
