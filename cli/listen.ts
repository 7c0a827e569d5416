/** A server command that cannot bind its address: one line naming the address and why, exit 1. */
import { InfraError } from "../lib/base/errors.ts";

/** `e` as a one-line error naming `host:port` when binding failed for a known reason; other errors are returned as is. */
export function listenError(cmd: string, host: string, port: number, e: unknown): unknown {
  const at = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const why = e instanceof Deno.errors.AddrInUse
    ? "the address is in use (another server listens there; pick another --port, or --port 0 for a free one)"
    : e instanceof Deno.errors.AddrNotAvailable
    ? "no interface of this machine has that address (see --host)"
    : e instanceof Deno.errors.PermissionDenied
    ? "permission denied (ports below 1024 need privileges; pick another --port)"
    : undefined;
  return why ? new InfraError(`${cmd}: cannot listen on ${at}: ${why}`, "listen") : e;
}
