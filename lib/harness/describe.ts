/** Plain descriptions of profiles for `pgs harness profiles` and `show`. */
import { defaultVersion, getProfile, profileNames } from "./registry.ts";
import { protocolDef } from "./protocols/registry.ts";
import { chainFor } from "./tools/edit_match/types.ts";
import type { AnswerRule, HarnessProfile, Protocol, StopRule } from "./types.ts";
import { VARIANTS } from "./variants.ts";

/** One profile, summarised. */
export interface ProfileSummary {
  /** The profile's name. */
  name: string;
  /** Its version. */
  version: string;
  /** True when a bare name selects this version. */
  isDefault: boolean;
  /** The protocol in words. */
  protocol: string;
  /** Tool names in the order sent. */
  tools: string[];
  /** The stop rule in words. */
  stop: string;
  /** Where the answer comes from, in words. */
  answer: string;
  /** The edit tools' matching: the strategy chain run, and the variants that change it (absent: exact only). */
  edits?: { chain: readonly string[]; variants: string[]; sources: readonly string[] };
  /** What it emulates and its sources. */
  emulates: HarnessProfile["emulates"];
  /** The version it was derived from and what changed (absent: written whole). */
  extends?: { version: string; changes: string[] };
  /** How its requests follow the harness's model name: the name recorded, the note and each rule (absent: they do not). */
  models?: {
    recordedWith: string;
    note: string;
    rules: { name: string; doc: string; sources: string[] }[];
    /** What the harness changes for some names that the profile does not follow. */
    unmodeled: string[];
  };
}

/** The protocol in words. */
export function describeProtocol(p: Protocol): string {
  return protocolDef(p).describe(p);
}

/** The stop rule in words. */
export function describeStop(s: StopRule): string {
  switch (s.kind) {
    case "no_call":
      return "turn without a tool call";
    case "sentinel":
      return `sentinel ${s.text}`;
    case "submit":
      return `${s.tool}${s.confirm ? " twice (review first)" : ""}`;
    case "finish":
      return `${s.tool}(${s.field})`;
    case "flag":
      return `completion flag${s.confirm ? " twice" : ""}`;
  }
}

/** The answer rule in words. */
export function describeAnswer(a: AnswerRule): string {
  return a.kind === "last_text" ? "last text" : `stop answer${a.fallback === "last_text" ? ", else last text" : ""}`;
}

/** Every registered profile, summarised. */
export function summarizeProfiles(): ProfileSummary[] {
  return profileNames().map((full) => {
    const p = getProfile(full);
    return {
      name: p.name,
      version: p.version,
      isDefault: defaultVersion(p.name) === p.version,
      protocol: describeProtocol(p.protocol),
      tools: p.tools.map((t) => t.schema.function.name),
      stop: describeStop(p.stop),
      answer: describeAnswer(p.answer),
      ...(p.edits && {
        edits: {
          chain: chainFor(p.edits.matcher, p.edits.rule),
          variants: VARIANTS.filter((v) => typeof v.apply(p) !== "string").map((v) => `+${v.name}`),
          sources: p.edits.matcher.sources,
        },
      }),
      emulates: p.emulates,
      ...(p.extends && { extends: p.extends }),
      ...(p.models && {
        models: {
          recordedWith: p.models.recordedWith,
          note: p.models.note,
          rules: p.models.rules.map((r) => ({ name: r.name, doc: r.doc, sources: r.sources })),
          unmodeled: (p.models.unmodeled ?? []).map((u) => u.what),
        },
      }),
    };
  });
}
