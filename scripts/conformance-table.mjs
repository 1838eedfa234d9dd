#!/usr/bin/env node
// Regenerates the side-by-side table of docs/hosts.md (between its conformance markers) from the host adapters, as
// built in dist/: how each host's answer protocol treats allow, deny/block and ask on one event of each kind.
// Usage: npm run build && node scripts/conformance-table.mjs   (test/explain/hostConformance.test.ts fails on drift)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const { CONFORMANCE_EVENTS, conformanceTable } = await import(join(ROOT, "dist", "src", "explain", "hostConformance.js"));
const file = join(ROOT, "docs", "hosts.md");
const text = readFileSync(file, "utf8");
const marked = /(<!-- conformance:start -->\n)[\s\S]*?(\n<!-- conformance:end -->)/;
if (!marked.test(text)) {
  console.error("docs/hosts.md has no conformance markers");
  process.exit(1);
}
const next = text.replace(marked, (_all, start, end) => `${start}${conformanceTable(CONFORMANCE_EVENTS)}${end}`);
writeFileSync(file, next);
console.log(next === text ? "docs/hosts.md: the table was up to date" : "docs/hosts.md: the table was regenerated");
