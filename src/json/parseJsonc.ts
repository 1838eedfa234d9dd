import * as jsonc from "jsonc-parser";

/** What reading a JSONC text gave: its value, or where and why it is not JSONC (`line 3 column 5: ...`). */
export type JsoncRead = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly why: string };

/**
 * JSON with comments and trailing commas (VS Code's JSONC, Copilot CLI's `settings.json`), read with jsonc-parser,
 * which also finds where install edits such files. The first mistake is named by line and column, as for JSON.
 */
export function parseJsonc(text: string): JsoncRead {
  const errors: jsonc.ParseError[] = [];
  const value: unknown = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return { ok: true, value };
  const upTo = text.slice(0, first.offset);
  const line = upTo.split("\n").length;
  const column = first.offset - upTo.lastIndexOf("\n");
  return { ok: false, why: `line ${line} column ${column}: ${jsonc.printParseErrorCode(first.error)}` };
}

/** The text with its comments blanked out (offsets kept), for checks that read JSON's characters (its depth). */
export const withoutComments = (text: string): string => jsonc.stripComments(text, " ");
