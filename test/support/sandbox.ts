import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHookBus, type HookBus, type HookBusOptions } from "../../src/engine/createHookBus.js";

/** The repository root, from dist/test/support/. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** The real `qhooks` binary, as package.json `bin` installs it (the bundle of dist/src/cli/main.js). */
export const CLI = join(REPO_ROOT, "dist", "bin", "qhooks.cjs");

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

type Json = Record<string, unknown>;

/**
 * A temporary HOME and project directory with real settings files and real hook scripts; the CLI runs as a real
 * process inside it. Nothing from the developer's own HOME or environment leaks in.
 */
export class Sandbox {
  readonly root: string;
  readonly home: string;
  readonly project: string;
  readonly db: string;
  private readonly buses: HookBus[] = [];

  constructor() {
    this.root = mkdtempSync(join(tmpdir(), "qhooks-test-"));
    this.home = join(this.root, "home");
    this.project = join(this.root, "project");
    this.db = join(this.root, "events.db");
    mkdirSync(this.home);
    mkdirSync(this.project);
  }

  /** Writes a file under the sandbox root (or an absolute path) and returns its absolute path. */
  file(path: string, content: string | Json, mode?: number): string {
    const abs = path.startsWith("/") ? path : join(this.root, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    if (mode !== undefined) chmodSync(abs, mode);
    return abs;
  }

  /** An executable script; `body` follows a `#!/bin/sh` line unless it starts with its own `#!`. */
  script(name: string, body: string): string {
    const text = body.startsWith("#!") ? body : `#!/bin/sh\n${body}\n`;
    return this.file(join("scripts", name), text, 0o755);
  }

  userSettings(settings: string | Json): string {
    return this.file(join(this.home, ".qoder-cn", "settings.json"), settings);
  }

  projectSettings(settings: string | Json): string {
    return this.file(join(this.project, ".qoder", "settings.json"), settings);
  }

  localSettings(settings: string | Json): string {
    return this.file(join(this.project, ".qoder", "settings.local.json"), settings);
  }

  /** The environment the CLI runs with: a clean one, pointing at this sandbox. */
  env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      LANG: "C.UTF-8",
      HOME: this.home,
      QHOOKS_DB: this.db,
      SHLVL: "1",
    };
    for (const [k, v] of Object.entries(extra)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    return env;
  }

  /** Runs the real `qhooks` binary in the project directory. */
  run(args: readonly string[], options: { input?: string | Buffer; env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<CliResult> {
    const start = performance.now();
    return new Promise((resolvePromise, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: options.cwd ?? this.project,
        env: this.env(options.env),
        stdio: ["pipe", "pipe", "pipe"],
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on("data", (c: Buffer) => stdout.push(c));
      child.stderr.on("data", (c: Buffer) => stderr.push(c));
      child.stdin.on("error", () => undefined);
      child.stdin.end(options.input ?? "");
      child.on("error", reject);
      child.on("close", (code, signal) =>
        resolvePromise({
          code,
          signal,
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8"),
          ms: performance.now() - start,
        }),
      );
    });
  }

  /** `qhooks run <event>` with a payload object; parses the outcome when there is one. */
  async runEvent(event: string, payload: Json | string, args: readonly string[] = [], env: Record<string, string | undefined> = {}) {
    const input = typeof payload === "string" ? payload : JSON.stringify(payload);
    const result = await this.run(["run", event, ...args], { input, env });
    let outcome: Json | null = null;
    try {
      outcome = result.stdout.trim() ? (JSON.parse(result.stdout) as Json) : null;
    } catch {
      outcome = null;
    }
    return { ...result, outcome };
  }

  /** A library bus rooted in this sandbox, closed by cleanup(). */
  bus(options: Partial<HookBusOptions> = {}): HookBus {
    const bus = createHookBus({ projectDir: this.project, homeDir: this.home, db: false, env: this.env(), ...options });
    this.buses.push(bus);
    return bus;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.buses.map((b) => b.close()));
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A hook group for settings files: `{ matcher, hooks: [{type: "command", command, ...}] }`. */
export function group(matcher: string | undefined, ...commands: (string | Json)[]): Json {
  const hooks = commands.map((c) => (typeof c === "string" ? { type: "command", command: c } : { type: "command", ...c }));
  return matcher === undefined ? { hooks } : { matcher, hooks };
}

/** A minimal valid payload per event, for tests that care about the hooks, not the payload. */
export function payloadFor(event: string, extra: Json = {}): Json {
  const base: Record<string, Json> = {
    PreToolUse: { tool_name: "Bash", tool_input: { command: "ls" } },
    PermissionRequest: { tool_name: "Bash", tool_input: { command: "ls" } },
    PostToolUse: { tool_name: "Write", tool_input: { file_path: "/tmp/a" }, tool_response: "ok" },
    PostToolUseFailure: { tool_name: "Bash", tool_input: { command: "npm test" }, error: "exit 1" },
    UserPromptSubmit: { prompt: "hello" },
    Stop: {},
    SubagentStop: { agent_type: "task" },
    SubagentStart: { agent_type: "task" },
    SessionStart: { source: "startup" },
    SessionEnd: { reason: "other" },
    PreCompact: { trigger: "manual" },
    Notification: { message: "hi", notification_type: "permission" },
    // The events current Claude Code adds, each with the fields its hooks reference documents as always sent.
    Setup: { trigger: "init" },
    InstructionsLoaded: { file_path: "/p/CLAUDE.md", memory_type: "Project", load_reason: "session_start" },
    UserPromptExpansion: { expansion_type: "slash_command", command_name: "deploy", command_args: "prod", prompt: "/deploy prod" },
    MessageDisplay: { turn_id: "t1", message_id: "m1", index: 0, final: true, delta: "Here is the plan:\n" },
    PermissionDenied: { tool_name: "Bash", tool_input: { command: "rm -rf /tmp/build" }, tool_use_id: "toolu_1", reason: "Blocked by classifier" },
    PostToolBatch: { tool_calls: [{ tool_name: "Read", tool_input: { file_path: "/p/a.py" }, tool_use_id: "toolu_1", tool_response: "1\tx" }] },
    TaskCreated: { task_id: "task-001", task_subject: "Implement login" },
    TaskCompleted: { task_id: "task-001", task_subject: "Implement login" },
    StopFailure: { error: "rate_limit", error_details: "429 Too Many Requests" },
    TeammateIdle: { teammate_name: "researcher", team_name: "session-a1b2" },
    ConfigChange: { source: "project_settings", file_path: "/p/.claude/settings.json" },
    CwdChanged: { old_cwd: "/p", new_cwd: "/p/src" },
    DirectoryAdded: { directory: "/other-repo", source: "slash_command" },
    FileChanged: { file_path: "/p/.envrc", event: "change" },
    WorktreeCreate: { name: "bold-oak-a3f2" },
    WorktreeRemove: { worktree_path: "/p/.claude/worktrees/bold-oak-a3f2" },
    PostCompact: { trigger: "auto", compact_summary: "Summary of the conversation" },
    PreModelSwitch: { from_model: "claude-sonnet-5", to_model: "claude-opus-5", requested_model: "opus", source: "command" },
    PostModelSwitch: { from_model: "claude-sonnet-5", to_model: "claude-opus-5", requested_model: "opus", source: "command" },
    Elicitation: { mcp_server_name: "my-mcp-server", message: "Please provide your credentials", mode: "form" },
    ElicitationResult: { mcp_server_name: "my-mcp-server", action: "accept", content: { username: "alice" } },
  };
  return { session_id: "s1", ...base[event], ...extra };
}
