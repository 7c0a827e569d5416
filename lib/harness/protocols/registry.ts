/** The registered protocols, by kind: `protocolDef(p)` is what shared code asks instead of switching on a kind. */
import type { Protocol } from "../types.ts";
import { FENCED } from "./fenced.ts";
import { KEYSTROKES } from "./keystrokes.ts";
import { NATIVE } from "./native.ts";
import type { ProtocolDef } from "./protocol.ts";

/** Every protocol, by kind. */
export const PROTOCOLS: { [K in Protocol["kind"]]: ProtocolDef<Extract<Protocol, { kind: K }>> } = {
  native: NATIVE,
  fenced: FENCED,
  terminus_json: KEYSTROKES,
};

/** The behaviour of protocol `p`. */
export function protocolDef<P extends Protocol>(p: P): ProtocolDef<P> {
  const def = PROTOCOLS[p.kind as Protocol["kind"]] as unknown as ProtocolDef<P> | undefined;
  if (!def) throw new Error(`unknown protocol ${JSON.stringify(p.kind)}`);
  return def;
}
