/**
 * The profile registry: `name@version` → a factory. A bare name is the name's default version, `name@version` pins.
 * It is a plain object that starts empty: the built-ins live in `profiles/` and are registered by the CLI
 * (`cli/mod.ts`) and the library's `mod.ts` (`registerBuiltins`), so the engine's own layers never load a profile.
 */
import type { HarnessProfile } from "./types.ts";
import { variantNamed, VARIANTS } from "./variants.ts";
import { closest, didYouMean } from "../base/suggest.ts";

/** Builds a fresh profile (profiles may hold per-build state). */
export type ProfileFactory = () => HarnessProfile;

/** One registry entry: [name, version, factory, isDefault?]. */
export type ProfileEntry = [name: string, version: string, factory: ProfileFactory, isDefault?: boolean];

/**
 * The dialect HarborEnv, `pgs eval` and `pgs env serve` use when no profile is given. It is not the bare name's
 * default: `palingenesis-default` alone means its default version (@2), while no profile at all means @1, the
 * dialect HarborEnv always had (both stay: docs/spec-notes.md).
 */
export const NO_PROFILE_DIALECT = "palingenesis-default@1";

/** A set of profiles by name and version. */
export class ProfileRegistry {
  readonly #byName = new Map<string, Map<string, ProfileFactory>>();
  readonly #defaults = new Map<string, string>();

  /** Registers a profile version; the first version registered for a name is its default unless `isDefault` says. */
  register(name: string, version: string, factory: ProfileFactory, isDefault?: boolean): void {
    if (!this.#byName.has(name)) this.#byName.set(name, new Map());
    this.#byName.get(name)!.set(version, factory);
    if (isDefault || !this.#defaults.has(name)) this.#defaults.set(name, version);
  }

  /** True when `name@version` is registered. */
  has(name: string, version: string): boolean {
    return this.#byName.get(name)?.has(version) ?? false;
  }

  /** Every registered `name@version`, sorted. */
  names(): string[] {
    return [...this.#byName].flatMap(([n, vs]) => [...vs.keys()].map((v) => `${n}@${v}`)).sort();
  }

  /** The default version of a name, if registered. */
  defaultVersion(name: string): string | undefined {
    return this.#defaults.get(name);
  }

  /**
   * `name`, `name@version` or either with `+variant` suffixes → the canonical `name@version[+variant...]`; an unknown
   * name, or a variant that is unknown or does not apply, throws, listing the valid ones.
   */
  resolve(spec: string): string {
    const [base, ...variants] = spec.split("+");
    const at = base.lastIndexOf("@");
    const [name, version] = at > 0 ? [base.slice(0, at), base.slice(at + 1)] : [base, this.#defaults.get(base)];
    if (!version || !this.has(name, version)) {
      const valid = this.names();
      const hint = valid.length
        ? `valid: ${valid.join(", ")}`
        : "no profile is registered (registerBuiltins() adds pgs's)";
      throw new Error(`unknown harness profile ${JSON.stringify(spec)}${this.#suggest(base)}; ${hint}`);
    }
    const full = `${name}@${version}`;
    if (variants.length) this.#build(full, variants, spec);
    return [full, ...variants].join("+");
  }

  /** A fresh profile for `name` or `name@version`, with its `+variant` suffixes applied. */
  get(spec: string): HarnessProfile {
    const [full, ...variants] = this.resolve(spec).split("+");
    return this.#build(full, variants, spec);
  }

  /** A close registered name for a mistyped `name[@version]`: another version of a known name, else a close name. */
  #suggest(base: string): string {
    const at = base.lastIndexOf("@");
    const name = at > 0 ? base.slice(0, at) : base;
    const versions = this.#byName.get(name);
    if (versions) {
      // The default version first, so that it wins a tie.
      const vs = [...versions.keys()].sort((a, b) =>
        Number(b === this.#defaults.get(name)) - Number(a === this.#defaults.get(name))
      );
      return didYouMean(base, vs.map((v) => `${name}@${v}`));
    }
    const close = closest(name, [...this.#byName.keys()]);
    if (close === undefined) return "";
    return didYouMean(close, [at > 0 ? `${close}@${this.#defaults.get(close)}` : close]);
  }

  #build(full: string, variants: string[], spec: string): HarnessProfile {
    const at = full.lastIndexOf("@");
    let p = this.#byName.get(full.slice(0, at))!.get(full.slice(at + 1))!();
    for (const v of variants) {
      const variant = variantNamed(v);
      if (!variant) {
        throw new Error(
          `unknown profile variant "+${v}" in ${JSON.stringify(spec)}${
            didYouMean(`+${v}`, VARIANTS.map((x) => `+${x.name}`))
          }; valid: ${VARIANTS.map((x) => `+${x.name}`).join(", ")}`,
        );
      }
      const out = variant.apply(p);
      if (typeof out === "string") throw new Error(`profile variant "+${v}" does not apply: ${out}`);
      p = { ...out, version: `${out.version}+${v}` };
    }
    return p;
  }
}

/** The process's registry, which the runner, HarborEnv and the CLI look names up in. */
export const profiles: ProfileRegistry = new ProfileRegistry();

/** Registers a profile version in the process's registry (see `ProfileRegistry.register`). */
export function register(name: string, version: string, factory: ProfileFactory, isDefault?: boolean): void {
  profiles.register(name, version, factory, isDefault);
}

/** Every `name@version` in the process's registry, sorted. */
export function profileNames(): string[] {
  return profiles.names();
}

/** The default version of a name in the process's registry. */
export function defaultVersion(name: string): string | undefined {
  return profiles.defaultVersion(name);
}

/** `name` or `name@version` → the canonical `name@version` in the process's registry; unknown names throw. */
export function resolveProfileName(spec: string): string {
  return profiles.resolve(spec);
}

/** A fresh profile for `name` or `name@version` from the process's registry. */
export function getProfile(spec: string): HarnessProfile {
  return profiles.get(spec);
}
