#!/usr/bin/env -S deno run -A
/** The `pgs` executable: runs the CLI and exits with its code. */
import { runCli } from "./cli/mod.ts";
import { afterSignalCleanup } from "./cli/signals.ts";

if (import.meta.main) {
  const code = await runCli(Deno.args);
  // A command that ends while Ctrl-C is being handled waits for the handler, which removes containers and exits.
  await afterSignalCleanup();
  Deno.exit(code);
}
