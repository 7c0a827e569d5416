#!/usr/bin/env -S deno run -A
/** The `pgs` executable: runs the CLI and exits with its code. */
import { runCli } from "./cli/mod.ts";
import { afterSignalCleanup } from "./cli/signals.ts";
import { provideOwnModules } from "./lib/harness/load_module.ts";
import * as root from "./mod.ts";
import * as harness from "./lib/harness/mod.ts";
import * as runtime from "./lib/runtime/mod.ts";
import * as stub from "./stub/mod.ts";

if (import.meta.main) {
  // `deno task pgs` runs in the repository: PGS_CWD (the task sets it from INIT_CWD) is the folder it was called from,
  // so relative paths mean what the caller meant.
  const callerCwd = Deno.env.get("PGS_CWD");
  if (callerCwd) Deno.chdir(callerCwd);
  // A --profiles-module imports pgs by deno.json's export names: this program's own modules serve them, bundled or
  // compiled as well as from source.
  provideOwnModules({
    "@pgs/pgs": root,
    "@pgs/pgs/harness": harness,
    "@pgs/pgs/runtime": runtime,
    "@pgs/pgs/stub": stub,
  });
  const code = await runCli(Deno.args);
  // A command that ends while Ctrl-C is being handled waits for the handler, which removes containers and exits.
  await afterSignalCleanup();
  Deno.exit(code);
}
