#!/usr/bin/env node
// Checks the links of the documentation: every link is relative (the docs never send a reader outside the
// repository), names a file that exists inside the repository, and every #anchor names a heading of its file.
// Usage: node scripts/check-links.mjs [--root DIR]   (default: the repository this script is in)
// Prints one line per broken link (file:line: link: why) and exits 1 when there is any; exits 0 otherwise.
// Run by test/package/docs.test.ts, so `npm test` fails on a broken link.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const rootAt = args.indexOf("--root");
const ROOT = resolve(rootAt >= 0 ? (args[rootAt + 1] ?? ".") : join(dirname(fileURLToPath(import.meta.url)), ".."));

/** The documents a user or contributor reads: the top-level *.md files, docs/ (recursively) and bench/README.md. */
function documents() {
  const found = readdirSync(ROOT).filter((f) => f.endsWith(".md"));
  const walk = (dir) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  walk("docs");
  if (existsSync(join(ROOT, "bench", "README.md"))) found.push("bench/README.md");
  return found.sort();
}

/** The text outside fenced code blocks, line by line (code lines blanked, so line numbers stay right). */
function prose(text) {
  let fence = null;
  return text.split("\n").map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return "";
    }
    return fence === null ? line : "";
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2... */
function anchorsOf(text) {
  const seen = new Map();
  const anchors = new Set();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const anchorCache = new Map();
const anchorsOfFile = (file) => {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, "utf8")));
  return anchorCache.get(file);
};

const problems = [];
for (const document of documents()) {
  const file = join(ROOT, document);
  prose(readFileSync(file, "utf8")).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, ""); // a link written inside inline code is an example, not a link
    for (const m of line.matchAll(/\]\(([^)\s]*)\)|<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) {
      const target = m[1] ?? m[2];
      const say = (why) => problems.push(`${document}:${i + 1}: ${target}: ${why}`);
      if (target === "") {
        say("empty link");
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) {
        say("links outside the repository (the docs link only to files in it)");
        continue;
      }
      const hash = target.indexOf("#");
      const path = hash >= 0 ? target.slice(0, hash) : target;
      const anchor = hash >= 0 ? decodeURIComponent(target.slice(hash + 1)) : undefined;
      const dest = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
      const rel = relative(ROOT, dest);
      if (rel.startsWith("..") || rel.split(sep)[0] === ".." || resolve(dest) === resolve(ROOT, "..")) {
        say("points outside the repository");
        continue;
      }
      if (!existsSync(dest)) {
        say(`no such file: ${rel}`);
        continue;
      }
      if (anchor !== undefined) {
        if (!dest.endsWith(".md") || statSync(dest).isDirectory()) say("an anchor on a file that is not Markdown");
        else if (!anchorsOfFile(dest).has(anchor)) say(`no heading #${anchor} in ${rel}`);
      }
    }
  });
}

for (const p of problems) console.log(p);
if (problems.length > 0) {
  console.error(`check-links: ${problems.length} broken link${problems.length === 1 ? "" : "s"}`);
  process.exit(1);
}
console.log(`check-links: ok (${documents().length} documents)`);
