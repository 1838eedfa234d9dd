import { readFileSync } from "node:fs";

/** The version in qhooks' package.json, found upwards from this file (it runs from dist/src/cli/ or, bundled, dist/bin/). */
export function version(): string {
  for (let dir = new URL(".", import.meta.url); dir.pathname !== "/"; dir = new URL("..", dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "qhooks" && pkg.version) return pkg.version;
    } catch {
      // not here: look further up
    }
  }
  return "unknown";
}
