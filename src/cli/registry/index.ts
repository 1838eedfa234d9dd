import type { CommandSpec } from "../commandSpec.js";
import { asyncHook } from "./asyncHook.js";
import { config } from "./config.js";
import { doctor } from "./doctor.js";
import { erase } from "./erase.js";
import { explain } from "./explain.js";
import { exportLog } from "./export.js";
import { hooks } from "./hooks.js";
import { hooksAdd } from "./hooksAdd.js";
import { install } from "./install.js";
import { key } from "./key.js";
import { log } from "./log.js";
import { prune } from "./prune.js";
import { record } from "./record.js";
import { replay } from "./replay.js";
import { report } from "./report.js";
import { run } from "./run.js";
import { schema } from "./schema.js";
import { live } from "./live.js";
import { serve } from "./serve.js";
import { sessions } from "./sessions.js";
import { ship } from "./ship.js";
import { show } from "./show.js";
import { stats } from "./stats.js";
import { test } from "./test.js";
import { testAdd } from "./testAdd.js";
import { trust } from "./trust.js";
import { uninstall } from "./uninstall.js";
import { verify } from "./verify.js";

/** Every command of the CLI, in the order `qhooks --help` lists them; a subcommand comes after its parent. */
export const COMMANDS: readonly CommandSpec[] = [
  run,
  install,
  uninstall,
  config,
  serve,
  live,
  hooks,
  hooksAdd,
  doctor,
  trust,
  test,
  testAdd,
  explain,
  record,
  log,
  sessions,
  stats,
  replay,
  verify,
  erase,
  prune,
  key,
  ship,
  exportLog,
  schema,
  show,
  report,
  asyncHook,
];
