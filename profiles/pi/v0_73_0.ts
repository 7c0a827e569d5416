/**
 * pi 0.73.0, derived from 0.73.1: recorded with the same script (a read, a shell command, a failed edit, a reply) and
 * the same first request (tests/golden/pi@0.73.0/models.json against tests/golden/pi/models.json), nothing the model
 * sees differs. Installed whole at 0.73.0 (its pi-ai, pi-agent-core and pi-tui pinned too: a plain install takes
 * their 0.73.1, as `^0.73.0` allows).
 */
import type { Derivation } from "../../lib/harness/derive.ts";

/** What 0.73.0 changes from 0.73.1: nothing the model sees. */
export const PI_0_73_0: Derivation = {
  version: "0.73.0",
  changes: ["nothing the model sees: tools, schemas, descriptions, settings and every result recorded alike"],
  sources: ["tests/golden/pi@0.73.0/models.json (recorded: the first request, as 0.73.1's)"],
};
