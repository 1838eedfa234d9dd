/**
 * What an agent tried, in a few words, for listings (`log`, `show`, the report, OTLP records): the Bash command, the
 * file a tool touched, the URL fetched, the MCP tool and its first arguments, the prompt. The tool name alone (`Bash`)
 * says too little to audit; the whole input says too much for a column.
 */

/** Longest summary, in characters (a column, not a transcript). */
export const SUMMARY_LENGTH = 80;

type Json = Readonly<Record<string, unknown>>;

/** Tools whose input names one file, and the field that names it. */
const FILE_FIELDS = ["file_path", "notebook_path", "path"] as const;

/** The summary of an event's payload; null when it carries nothing worth a column. */
export function toolInputSummary(payload: unknown): string | null {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return null;
  const p = payload as Json;
  const tool = typeof p.tool_name === "string" ? p.tool_name : null;
  const input = isObject(p.tool_input) ? p.tool_input : null;
  if (tool !== null && input !== null) return cut(ofTool(tool, input));
  if (typeof p.prompt === "string") return cut(p.prompt);
  return null;
}

/** The summary of a payload as the log stores it (its JSON text); null for a payload that was not even JSON. */
export function storedInputSummary(text: string): string | null {
  try {
    return toolInputSummary(JSON.parse(text));
  } catch {
    return null;
  }
}

function ofTool(tool: string, input: Json): string | null {
  if (typeof input.command === "string") return input.command;
  if (typeof input.url === "string") return input.url;
  if (tool.startsWith("mcp__")) return `${tool.slice(5).replace("__", ".")}${firstArguments(input)}`;
  for (const field of FILE_FIELDS) if (typeof input[field] === "string") return withPattern(input, input[field] as string);
  if (typeof input.pattern === "string") return input.pattern;
  if (typeof input.query === "string") return input.query;
  if (typeof input.description === "string") return input.description;
  return firstArguments(input).trim() || null;
}

/** Grep and Glob name a pattern and a folder: both say what was searched. */
const withPattern = (input: Json, path: string): string => (typeof input.pattern === "string" ? `${input.pattern} in ${path}` : path);

/** ` key=value key=value`, the first two scalar arguments, for an MCP call. */
function firstArguments(input: Json): string {
  const shown = Object.entries(input)
    .filter(([, v]) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    .slice(0, 2)
    .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  return shown.length ? ` ${shown.join(" ")}` : "";
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** One line (control characters escaped, runs of spaces kept), at most SUMMARY_LENGTH characters. */
function cut(text: string | null): string | null {
  if (text === null) return null;
  const line = text
    .replace(/\r?\n/g, " ⏎ ")
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .trim();
  if (line === "") return null;
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line;
}
