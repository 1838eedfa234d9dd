/**
 * Deepest nesting of arrays and objects qhooks accepts where it parses JSON and later serialises it again (hook
 * output, settings files) or prints it (the log's payloads). JSON.parse reads any depth, but JSON.stringify
 * recurses and overflows the stack a few thousand levels down, which would turn one hostile document into a crash.
 * Real hook output, settings and payloads nest a few levels, never hundreds.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether a JSON text nests arrays and objects deeper than `limit`: one pass over the characters, skipping
 * strings, without parsing. Meant for text that is JSON or nearly so; for other text the answer is only a guess.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, stepping over escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
