import type { DeclaredHook } from "../../core/hookDescriptor.js";
import { refusalText } from "../../regex/toRe2.js";
import { compileUserRegex } from "../../regex/userRegex.js";
import { EVENT_TRAITS } from "../../schema/events.js";
import { oneLineText } from "../../text/oneLine.js";
import type { DoctorContext, DoctorRule, RawFinding } from "../rule.js";
import { KNOWN_TOOLS, toolByCase } from "./toolNames.js";

/** One hook per matcher group (its first): a group's matcher is one problem, however many hooks it holds. */
function* eachGroup(context: DoctorContext): Generator<DeclaredHook> {
  const seen = new Set<string>();
  for (const hook of context.snapshot.hooks) {
    const key = `${hook.file}\0${groupPath(hook.path)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    yield hook;
  }
}

/** `hooks.PreToolUse[0].hooks[1]` -> `hooks.PreToolUse[0]`. */
export const groupPath = (path: string): string => path.replace(/\.hooks\[\d+\]$/, "");

const matcherAt = (hook: DeclaredHook): Pick<RawFinding, "hook" | "place"> => ({
  hook,
  place: { settingsLevel: hook.level, file: hook.file, path: `${groupPath(hook.path)}.matcher` },
});

const toolNames = (hook: DeclaredHook): readonly string[] =>
  EVENT_TRAITS[hook.event].matchField === "tool_name" && hook.matcher.kind === "names" ? [...hook.matcher.names] : [];

export const matcherCase: DoctorRule = {
  id: "matcher-case",
  level: "error",
  summary: "a matcher names a tool in the wrong case (`bash` for `Bash`): matchers are case-sensitive, so the hook never runs",
  fix: "write the tool's name as the agent sends it",
  *check(context) {
    for (const hook of eachGroup(context))
      for (const name of toolNames(hook)) {
        const tool = toolByCase(name);
        if (tool !== undefined)
          yield {
            ...matcherAt(hook),
            message: `matcher names "${oneLineText(name)}"; the tool is "${tool}" (case-sensitive: this never matches)`,
            fix: `write "${tool}"`,
          };
      }
  },
};

export const matcherUnknownTool: DoctorRule = {
  id: "matcher-unknown-tool",
  level: "warn",
  summary: "a matcher names, as an exact name, a tool no agent has (nor an MCP tool `mcp__server__tool`)",
  fix: "use a tool's exact name, `mcp__server__tool` for an MCP tool, or a regex such as `mcp__memory__.*`",
  *check(context) {
    for (const hook of eachGroup(context))
      for (const name of toolNames(hook)) {
        if (KNOWN_TOOLS.has(name) || toolByCase(name) !== undefined) continue;
        if (/^mcp__.+__.+/.test(name)) continue;
        const message = name.startsWith("mcp__")
          ? `matcher names "${oneLineText(name)}": MCP tools are named mcp__<server>__<tool>, so this exact name matches none`
          : `matcher names "${oneLineText(name)}", a tool ${context.host.name} does not have (an exact name: it matches only that)`;
        yield {
          ...matcherAt(hook),
          message,
          ...(name.startsWith("mcp__") ? { fix: `write "${oneLineText(name)}__.*" to match every tool of that server` } : {}),
        };
      }
  },
};

export const matcherRegexRefused: DoctorRule = {
  id: "matcher-regex-refused",
  level: "error",
  summary:
    "a matcher regex that is invalid (the group matches nothing) or that the safe engine refuses (backreference, lookaround, too large: the group matches everything)",
  fix: "write a regex without backreferences or lookarounds, and small enough (`^(Edit|Write)$`)",
  *check(context) {
    for (const hook of eachGroup(context)) {
      const m = hook.matcher;
      if (m.kind === "never")
        yield { ...matcherAt(hook), message: `matcher "${oneLineText(hook.matcherSource ?? "")}" is not a valid regex; this group never runs` };
      else if (m.kind === "undecided")
        yield {
          ...matcherAt(hook),
          level: "warn",
          message: `matcher regex refused by the safe engine (${refusalText(m.refusal)}); this group runs for every value`,
        };
    }
  },
};

/** The known tools a regex matches; anchored: as a whole name only. Null when the anchored regex cannot be made. */
function toolsMatched(source: string, anchored: boolean): string[] | null {
  const compiled = compileUserRegex(anchored ? `^(?:${source})$` : source);
  if (!compiled.ok) return null;
  return [...KNOWN_TOOLS].filter((tool) => compiled.regex.test(tool) === true);
}

export const matcherUnanchored: DoctorRule = {
  id: "matcher-unanchored",
  level: "warn",
  summary:
    "a tool matcher regex, tested unanchored, that matches tools whose name only contains a name it lists (`(Edit|Write)` also runs for MultiEdit, NotebookEdit and TodoWrite): an exact name was probably meant",
  fix: "anchor it, `^(Edit|Write)$`, or write the names as a plain list, `Edit|Write`",
  *check(context) {
    for (const hook of eachGroup(context)) {
      if (EVENT_TRAITS[hook.event].matchField !== "tool_name" || hook.matcher.kind !== "regex") continue;
      const source = hook.matcher.regex.source;
      const whole = toolsMatched(source, true);
      // Nothing matched as a whole name (`mcp__.*`, a prefix on purpose): no exact name was meant.
      if (whole === null || whole.length === 0) continue;
      const more = (toolsMatched(source, false) ?? []).filter((tool) => !whole.includes(tool));
      if (more.length === 0) continue;
      yield {
        ...matcherAt(hook),
        message: `matcher "${oneLineText(source)}" is a regex tested unanchored: besides ${whole.join(", ")} it matches ${more.join(", ")}, whose names only contain one`,
        fix: `write "^(?:${oneLineText(source)})$" to match only ${whole.join(", ")}`,
      };
    }
  },
};
