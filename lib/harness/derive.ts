/**
 * Profile versions derived from one another: a new version of a harness is the version it extends plus what changed,
 * as data (`Derivation`), so that adding a version is a derivation and one registry line, and `pgs harness profiles
 * --long` says what each version changed. The change is a `DialectChange` (the same as a model rule's: system text,
 * tool descriptions and schemas, tools added or removed, generation settings) and, for what data cannot say (a
 * result's new wording), a function of the base profile. The capture recipe follows the version.
 */
import { applyChange, type DialectChange } from "./model_dialect.ts";
import type { HarnessProfile } from "./types.ts";

/** A version made from another. */
export interface Derivation {
  /** The new version. */
  version: string;
  /** What changed, one line each (shown by `pgs harness profiles --long`). */
  changes: string[];
  /** The change to the dialect (default none). */
  change?: DialectChange;
  /** What data cannot say, as a function of the changed base (default none). */
  apply?: (p: HarnessProfile) => HarnessProfile;
  /** Where the new version's facts come from (provenance forms); added before the base's. */
  sources: string[];
}

/** `base` as version `d.version`: the change applied, `extends` recorded, the capture recipe and `emulates` moved on. */
export function deriveProfile(base: HarnessProfile, d: Derivation): HarnessProfile {
  let p = d.change ? applyChange(base, d.change) : { ...base };
  if (d.apply) p = d.apply(p);
  const local = base.capture?.local;
  return {
    ...p,
    version: d.version,
    extends: { version: base.version, changes: d.changes },
    capture: local ? { ...base.capture, local: { ...local, version: d.version } } : base.capture,
    emulates: { ...p.emulates, version: d.version, sources: [...d.sources, ...p.emulates.sources] },
  };
}
