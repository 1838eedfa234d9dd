import { dirname } from "node:path";
import type { TrustScope } from "../schema/trust.js";
import { buildSnapshot, readSettingsSource, type SettingsSnapshot } from "../settings/loadSettings.js";
import { discoverSettings, sharedHooksSource } from "../settings/settingsSources.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { HookPins, type HookPin, type PinnedSite } from "./pinHook.js";
import { StampCache } from "./stampCache.js";
import { ProjectTrust, whereOf } from "./trustScope.js";
import { displayStorePath, readTrustStore, scopeKey, trustStorePath, type TrustStoreRead } from "./trustStore.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";

export interface TrustSetup {
  readonly homeDir: string;
  readonly projectDir: string;
  /** Where QHOOKS_REQUIRE_TRUST is read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whose user-level settings file holds the switch when the configuration has none (`--settings`). */
  readonly dialect?: Dialect | undefined;
  /** The command line that trusts this configuration's hooks, named in every warning about an untrusted one. */
  readonly trustCommand: string;
}

/** What trust decides about one hook. */
export type TrustVerdict =
  /** `verified`: the scripts the command runs directly, with the hashes trusted, for the spawn to check again. */
  { readonly runs: true; readonly verified?: readonly PinnedSite[] } | { readonly runs: false; readonly message: string };

/** Trust as it stands for one event: the store read once, and a verdict per hook. */
export interface TrustCheck {
  /**
   * Why nothing that needs trust may run (the store cannot be relied on); null when the store is fine or was not
   * needed. The store is read only for the first hook that needs trust: events of the user's own hooks never read it.
   */
  storeProblem(): string | null;
  /**
   * A command hook's verdict, from every settings entry that declares it for this event: it runs without trust when
   * one of them is the user's own.
   */
  verdict(command: string, declared: readonly DeclaredHook[]): TrustVerdict;
  /**
   * Whether the `qhooks` settings of a file apply: only those of the user's own files (the user level, a
   * `--settings` file outside the project). Trust pins hooks, never settings, so the project's, its local settings'
   * and the plugins' `qhooks` keys never apply while trust is required: an untrusted project must not loosen the
   * user's guards (its `stopBlockCap: 1` would overrule the user's own Stop hook every second Stop).
   */
  settingsApply(file: { readonly level: string; readonly pluginRoot: string | null }): boolean;
}

/** Decides, event by event, whether trust is required and which hooks it lets run. Built once per engine. */
export interface TrustPolicy {
  /** null when trust is not required for this configuration: then nothing else is read or computed. */
  check(snapshot: SettingsSnapshot): TrustCheck | null;
}

/**
 * `QHOOKS_REQUIRE_TRUST` turns trust on (any value but empty, `0` or `false`); it never turns off what the user's
 * settings turn on, since a project can set environment variables too (direnv, a `.env` an agent loads).
 */
export function trustRequiredByEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.QHOOKS_REQUIRE_TRUST?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

export function createTrustPolicy(setup: TrustSetup): TrustPolicy {
  const byEnv = trustRequiredByEnv(setup.env);
  const storePath = trustStorePath(setup.homeDir);
  const storeDisplay = displayStorePath(storePath, setup.homeDir);
  // The host's own user file: not the first level, which may be the user's shared hooks file or the machine's
  // defaults (Gemini CLI), where requireTrust is not read.
  const levels = discoverSettings(setup.homeDir, setup.projectDir, setup.dialect, setup.env);
  const shared = sharedHooksSource(setup.homeDir).path;
  const userFile = levels.find((s) => s.level === "user" && s.path !== shared) ?? levels[0]!;
  const stores = new StampCache<TrustStoreRead>();
  const switches = new StampCache<boolean>();
  const pins = new HookPins();
  let project: ProjectTrust | null = null;

  // With `--settings`, the configuration holds no user-level file: the switch is read from it all the same.
  const userSwitch = () => switches.get([userFile.path], () => buildSnapshot([userFile], [readSettingsSource(userFile)]).requireTrust === true);

  return {
    check(snapshot) {
      if (!(byEnv || snapshot.requireTrust === true || (snapshot.requireTrust === null && userSwitch()))) return null;
      project ??= new ProjectTrust(setup.projectDir, setup.homeDir);
      return trustCheck(project, () => stores.get([storePath, dirname(storePath)], () => readTrustStore(storePath)), pins, storeDisplay, setup.trustCommand);
    },
  };
}

function trustCheck(project: ProjectTrust, readStore: () => TrustStoreRead, pins: HookPins, storeDisplay: string, trustCommand: string): TrustCheck {
  let read: TrustStoreRead | null = null;
  const problemOf = (store: TrustStoreRead) => (store.state === "refused" ? `the trust store ${storeDisplay} ${store.why}` : null);
  return {
    storeProblem: () => (read === null ? null : problemOf(read)),
    settingsApply: (file) => project.scopeOfFile(file.level, file.pluginRoot) === null,
    verdict(command, declared) {
      let scope: TrustScope | null = null;
      for (const hook of declared) {
        const needs = project.scopeOf(hook);
        if (needs === null) return { runs: true };
        scope ??= needs;
      }
      if (scope === null) return { runs: true };
      const store = (read ??= readStore());
      if (store.state === "refused") return { runs: false, message: `not trusted: ${problemOf(store)}` };
      const reported = declared[0]!;
      const pin: HookPin = pins.of(command, project.placeOf(reported), reported.handler);
      if (pin.state === "unpinnable") return { runs: false, message: `cannot be trusted: ${pin.why}` };
      if (store.index.digests.has(`${scopeKey(scope)}\0${pin.digest}`)) return pin.sites.length ? { runs: true, verified: pin.sites } : { runs: true };
      const trustedAt = declared.map((h) => store.index.places.get(`${scopeKey(scope)}\0${whereOf(h)}`)).find((t) => t !== undefined);
      const what =
        trustedAt === undefined ? "new, not trusted yet" : `changed since it was trusted on ${trustedAt.slice(0, 10)} (its command or a file it runs)`;
      return { runs: false, message: `${what}; review it, then run: ${trustCommand}` };
    },
  };
}
