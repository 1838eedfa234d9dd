import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** One import between two files of src/, as written (type-only imports included: they tie files together too). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

// `import ... from "x"`, `export ... from "x"`, `import "x"`, `import("x")`: module specifiers as text. The
// sources are our own, formatted by one hand, so a scan of the text sees every import a compiler would.
const STATIC = /^\s*(import|export)\s+(type\s+)?[^;]*?\bfrom\s+"([^"]+)"/gms;
const BARE = /^\s*import\s+"([^"]+)"/gm;
const DYNAMIC = /\bimport\(\s*"([^"]+)"\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(c|m)?ts$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The relative imports between the files under `root` (paths relative to it, e.g. `engine/context.ts`). */
export function importGraph(root: string): { files: string[]; edges: ImportEdge[] } {
  const files = sourceFiles(root).map((f) => relative(root, f));
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const add = (spec: string, typeOnly: boolean) => {
      if (!spec.startsWith(".")) return;
      const target = relative(root, resolve(root, dirname(file), spec)).replace(/\.(c|m)?js$/, (ext) => ext.replace("js", "ts"));
      if (!known.has(target)) throw new Error(`${file}: import of ${spec} names no source file`);
      edges.push({ from: file, to: target, typeOnly });
    };
    for (const m of text.matchAll(STATIC)) add(m[3]!, m[2] !== undefined || /^\s*import\s+type\b/.test(m[0]));
    for (const m of text.matchAll(BARE)) add(m[1]!, false);
    for (const m of text.matchAll(DYNAMIC)) add(m[1]!, false);
  }
  return { files, edges };
}

/** The strongly connected groups of more than one node (Tarjan): each is an import cycle. */
export function cycles(nodes: readonly string[], edges: readonly { from: string; to: string }[]): string[][] {
  const out = new Map<string, string[]>();
  for (const e of edges) if (e.from !== e.to) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}
