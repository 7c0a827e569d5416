#!/usr/bin/env -S deno run -A
/** The `pgs` executable: runs the CLI and exits with its code. */
import { runCli } from "./cli/mod.ts";
import { afterSignalCleanup } from "./cli/signals.ts";

if (import.meta.main) {
  // `deno task pgs` runs in the repository: PGS_CWD (the task sets it from INIT_CWD) is the folder it was called from,
  // so relative paths mean what the caller meant.
  const callerCwd = Deno.env.get("PGS_CWD");
  if (callerCwd) Deno.chdir(callerCwd);
  const code = await runCli(Deno.args);
  // A command that ends while Ctrl-C is being handled waits for the handler, which removes containers and exits.
  await afterSignalCleanup();
  Deno.exit(code);
}
