import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { progress } from "../harness.js";
import type { Peer } from "./peer.js";

const PACKAGE = "@google/gemini-cli-core@0.61";

/** The slice of gemini-cli-core's hooks module the peer uses (dist/src/hooks/index.js). */
interface GeminiHooks {
  HookSystem: new (
    config: unknown,
  ) => {
    initialize(): Promise<void>;
    getRegistry(): { getHooksForEvent(event: string): unknown[] };
    getEventHandler(): {
      fireBeforeToolEvent(toolName: string, toolInput: Record<string, unknown>): Promise<{ success: boolean; errors: Error[] }>;
    };
  };
}

/**
 * The least of gemini-cli's Config that its HookSystem reads (hookRegistry, hookRunner, hookEventHandler): the
 * hooks, a trusted folder, the session and working directory; telemetry and usage statistics stay off (every
 * other getter answers undefined), so nothing leaves the machine.
 */
function fakeConfig(hooks: unknown, cwd: string): unknown {
  const known: Record<string, unknown> = {
    getHooks: () => hooks,
    getProjectHooks: () => undefined,
    getExtensions: () => [],
    getDisabledHooks: () => [],
    getExtensionHooksDisabled: () => [],
    isTrustedFolder: () => true,
    getProjectRoot: () => cwd,
    getWorkingDir: () => cwd,
    getTargetDir: () => cwd,
    getSessionId: () => "bench-session-0001",
    getGeminiClient: () => undefined,
    // 0.61's HookEventHandler takes an agent context ({config, geminiClient}) where the others take the Config.
    geminiClient: undefined,
    getUsageStatisticsEnabled: () => false,
    getTelemetryEnabled: () => false,
    sanitizationConfig: { enableEnvironmentVariableRedaction: false, allowedEnvironmentVariables: [], blockedEnvironmentVariables: [] },
    storage: { getPlansDir: () => join(cwd, ".gemini", "plans") },
  };
  const config: unknown = new Proxy(known, {
    get: (target, prop) =>
      prop === "config" ? config : typeof prop === "string" && prop in target ? target[prop] : prop === "then" ? undefined : () => undefined,
  });
  return config;
}

/**
 * `--peer gemini`: installs the published @google/gemini-cli-core into a temporary directory (never a dependency
 * of qhooks) and runs cases 2-4 through its HookSystem: a BeforeTool event with command hooks, the event gemini-cli
 * fires where Claude Code fires PreToolUse. It has no event log, runs hooks with `bash -c`, and builds the hook's
 * input itself from the tool name and input. Returns a string saying why when the peer cannot run.
 */
export async function startGeminiPeer(): Promise<Peer | string> {
  const prefix = mkdtempSync(join(tmpdir(), "qhooks-peer-gemini-"));
  progress(`peer: npm install --prefix ${prefix} ${PACKAGE}`);
  const installed = spawnSync("npm", ["install", "--prefix", prefix, PACKAGE, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
    encoding: "utf8",
    timeout: 300_000,
  });
  if (installed.status !== 0) {
    rmSync(prefix, { recursive: true, force: true });
    const lines = (installed.error?.message ?? installed.stderr ?? "")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.includes("A complete log"));
    const why = lines.find((l) => /code|errno|network|request/i.test(l)) ?? lines[0] ?? `exit ${installed.status}`;
    return `npm install ${PACKAGE} failed (closed network?): ${why.slice(0, 200)}`;
  }
  let hooksModule: GeminiHooks;
  try {
    const dist = join(prefix, "node_modules", "@google", "gemini-cli-core", "dist", "src");
    hooksModule = (await import(pathToFileURL(join(dist, "hooks", "index.js")).href)) as GeminiHooks;
    // Its debug logger writes every hook run to the console, which gemini-cli's UI captures into a debug drawer:
    // silenced here, so that the peer pays for neither our terminal nor its own UI.
    const { debugLogger } = (await import(pathToFileURL(join(dist, "utils", "debugLogger.js")).href)) as { debugLogger: Record<string, unknown> };
    for (const level of ["log", "warn", "error", "debug"]) debugLogger[level] = () => undefined;
  } catch (e) {
    rmSync(prefix, { recursive: true, force: true });
    return `cannot load its HookSystem: ${(e as Error).message.split("\n")[0]}`;
  }

  const cwd = join(prefix, "project");
  mkdirSync(cwd, { recursive: true });
  // gemini-cli runs hooks with `bash -c` in the environment of its own process. bash started with a socket on stdin
  // (Node's pipes are sockets) and SHLVL below 1 believes sshd started it and sources ~/.bashrc, at about 100 ms a
  // hook; whether SHLVL is set depends on how the agent was launched. The table measures the peer at its best, with
  // SHLVL=1 in each hook's `env`, and notes() measures it as launched without.
  const system = async (
    hooks: ReadonlyArray<{ matcher: string; command: string }>,
    expected: number,
    hookEnv: Record<string, string> | null = { SHLVL: "1" },
  ) => {
    const config = {
      BeforeTool: hooks.map((h) => ({ matcher: h.matcher, hooks: [{ type: "command", command: h.command, ...(hookEnv ? { env: hookEnv } : {}) }] })),
    };
    const s = new hooksModule.HookSystem(fakeConfig(config, cwd));
    await s.initialize();
    const registered = s.getRegistry().getHooksForEvent("BeforeTool").length;
    if (registered !== expected) throw new Error(`gemini HookSystem registered ${registered} BeforeTool hooks, expected ${expected}`);
    return s.getEventHandler();
  };
  const one = await system([{ matcher: "Bash", command: "true" }], 1);
  const ten = await system(
    Array.from({ length: 10 }, (_, i) => ({ matcher: "Bash", command: `true #${i}` })),
    10,
  );
  const none = await system([{ matcher: "Write|Edit", command: "true" }], 1);
  const bare = await system([{ matcher: "Bash", command: "true" }], 1, null);

  const fire = async (handler: typeof one, payload: string) => {
    const { tool_name, tool_input } = JSON.parse(payload) as { tool_name: string; tool_input: Record<string, unknown> };
    const result = await handler.fireBeforeToolEvent(tool_name, tool_input);
    if (!result.success || result.errors.length) throw new Error(`gemini hook failed: ${result.errors.map((e) => e.message).join("; ")}`);
  };
  const time = async (f: () => Promise<void>) => {
    const start = performance.now();
    await f();
    return performance.now() - start;
  };
  return {
    name: "gemini-cli-core 0.61",
    dispatchOneHook: (payload) => time(() => fire(one, payload)),
    dispatchTenHooks: (payload) => time(() => fire(ten, payload)),
    dispatchNoMatch: async (payload, count) => {
      const ms = await time(async () => {
        for (let i = 0; i < count; i++) await fire(none, payload);
      });
      return (count * 1000) / ms;
    },
    notes: async (payload) => {
      const withoutShlvl = async () => {
        const saved = process.env.SHLVL;
        delete process.env.SHLVL;
        try {
          return await time(() => fire(bare, payload));
        } finally {
          if (saved !== undefined) process.env.SHLVL = saved;
        }
      };
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) samples.push(await withoutShlvl());
      samples.sort((a, b) => a - b);
      return `peer hooks run with SHLVL=1 in their env; launched without SHLVL, its bash -c reads ~/.bashrc: one hook ${samples[2]!.toFixed(1)} ms (median of 5)`;
    },
    close: async () => rmSync(prefix, { recursive: true, force: true }),
  };
}
