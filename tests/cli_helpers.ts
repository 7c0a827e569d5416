/** Running the CLI as a user would, for the tests of its bad-input handling (`cli_errors*_test.ts`). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { ROOT } from "./eval_helpers.ts";

/** The count-error-lines example task. */
export const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
/** No engine answers here: a command that got past its checks says so instead of starting containers. */
export const NO_ENGINE = "unix:///nonexistent/pgs-test.sock";

/** The CLI as a child process (`deno run main.ts ARGS`), piped. */
export function command(args: string[], env: Record<string, string> = {}) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  });
}

/** Runs pgs; stderr trimmed. */
export async function pgs(args: string[], env: Record<string, string> = {}) {
  const o = await command(args, env).output();
  return {
    code: o.code,
    stderr: new TextDecoder().decode(o.stderr).trim(),
    stdout: new TextDecoder().decode(o.stdout),
  };
}

/** Asserts one line on stderr matching `re`, and the exit code. */
export async function oneLine(args: string[], code: number, re: RegExp, env: Record<string, string> = {}) {
  const r = await pgs(args, env);
  assert.equal(r.code, code, `pgs ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.stderr.split("\n").length, 1, `pgs ${args.join(" ")}: not one line:\n${r.stderr}`);
  assert.match(r.stderr, re, `pgs ${args.join(" ")}`);
}

/** A loopback port nothing listens on (bound, then let go). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Whether anything is at `path`. */
export async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
