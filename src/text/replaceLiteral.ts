/**
 * Every `search` in `text` replaced by `replacement`, both taken as plain text. String.replace and replaceAll read
 * `$&`, `$'`, `` $` `` and `$1` in a string replacement as patterns: a payload or a folder name holding them would
 * put other text in (the evaluator would judge another command than the agent's). split/join has no patterns.
 */
export function replaceLiteral(text: string, search: string, replacement: string): string {
  return text.split(search).join(replacement);
}
