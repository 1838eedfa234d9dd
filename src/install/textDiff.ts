/**
 * A unified diff of two texts (3 lines of context), for `install --dry-run`: what would change, line by line. Settings
 * files are small; past a size where the line table would be large, the whole old text is shown removed and the new
 * one added, which is still exact.
 */
export function unifiedDiff(label: string, before: string | null, after: string | null): string {
  const a = splitLines(before ?? "");
  const b = splitLines(after ?? "");
  const header = [`--- ${before === null ? "/dev/null" : label}`, `+++ ${after === null ? "/dev/null" : label}`];
  const ops = a.length * b.length > 4_000_000 ? wholesale(a, b) : lineOps(a, b);
  return [...header, ...hunks(ops)].join("\n");
}

type Op = { readonly kind: " " | "-" | "+"; readonly line: string };

const splitLines = (text: string): string[] => {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += "\n\\ No newline at end of file";
  return lines;
};

const wholesale = (a: string[], b: string[]): Op[] => [...a.map((line) => ({ kind: "-" as const, line })), ...b.map((line) => ({ kind: "+" as const, line }))];

/** The longest common subsequence of lines, walked into keep/remove/add operations. */
function lineOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i]! });
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) ops.push({ kind: "-", line: a[i++]! });
    else ops.push({ kind: "+", line: b[j++]! });
  }
  while (i < n) ops.push({ kind: "-", line: a[i++]! });
  while (j < m) ops.push({ kind: "+", line: b[j++]! });
  return ops;
}

function hunks(ops: Op[], context = 3): string[] {
  const out: string[] = [];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === " ") k++;
    if (k === ops.length) break;
    let start = Math.max(0, k - context);
    let end = k;
    // Extend while the next change is within two contexts of the last one.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === " ") next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const oldStart = ops.slice(0, start).filter((o) => o.kind !== "+").length;
    const newStart = ops.slice(0, start).filter((o) => o.kind !== "-").length;
    const body = ops.slice(start, end);
    const oldLen = body.filter((o) => o.kind !== "+").length;
    const newLen = body.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${oldLen ? oldStart + 1 : oldStart},${oldLen} +${newLen ? newStart + 1 : newStart},${newLen} @@`);
    for (const o of body) out.push(`${o.kind}${o.line}`);
    k = end;
    start = end;
  }
  return out;
}
