import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { TrustScope } from "../schema/trust.js";
import { isInside, type CommandPlace } from "./namedFiles.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";

/** The project trust is decided for: its scope (by real path, so that a symlinked path is the same project). */
export class ProjectTrust {
  readonly scope: TrustScope;
  /** The project directory as given and as its real path: files below either are the project's. */
  readonly roots: readonly string[];
  private readonly realFiles = new Map<string, string>();

  constructor(
    readonly projectDir: string,
    readonly homeDir: string,
  ) {
    const real = realOr(projectDir);
    this.scope = { kind: "project", path: real };
    this.roots = real === projectDir ? [projectDir] : [projectDir, real];
  }

  /**
   * Whose trust a configured hook needs: a plugin's hooks their plugin's, the project and local levels (and a
   * `--settings` file inside the project) the project's; null for the user's own hooks (the user level, a
   * `--settings` file elsewhere), which run as they always did.
   */
  scopeOf(hook: DeclaredHook): TrustScope | null {
    return this.scopeOfFile(hook.level, hook.plugin?.root ?? null);
  }

  /** Whose trust the hooks of a settings file of this level (or of this plugin folder) need. */
  scopeOfFile(level: string, pluginRoot: string | null): TrustScope | null {
    if (pluginRoot !== null) return { kind: "plugin", path: pluginRoot };
    if (level === "project" || level === "local") return this.scope;
    if (isAbsolute(level) && (this.isProjects(level) || this.isProjects(this.real(level)))) return this.scope;
    return null;
  }

  /** What the hook's command words mean where it runs. */
  placeOf(hook: DeclaredHook): CommandPlace {
    const pluginRoot = hook.plugin?.root ?? null;
    return {
      projectDir: this.projectDir,
      homeDir: this.homeDir,
      pluginRoot,
      pluginData: hook.plugin?.dataDir ?? null,
      // Real paths too: a file's real path is what decides whether a symbolic link leads out of the folder.
      roots: pluginRoot === null ? this.roots : [...this.roots, pluginRoot, this.real(pluginRoot)],
    };
  }

  private isProjects(path: string): boolean {
    return this.roots.some((root) => isInside(path, root));
  }

  private real(path: string): string {
    let real = this.realFiles.get(path);
    if (real === undefined) this.realFiles.set(path, (real = realOr(path)));
    return real;
  }
}

/** Where a hook was declared, as messages and the store name it. */
export const whereOf = (hook: DeclaredHook): string => `${hook.file} ${hook.path}`;

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
