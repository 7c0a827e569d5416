/** The readable conformance report. */
import type { ConformanceReport, Finding } from "./compare.ts";

function line(f: Finding): string {
  const tag = f.status === "same" ? "same" : f.status === "diff" ? "DIFF" : "paraphrase";
  const head = `  ${tag.padEnd(10)} ${f.aspect}`;
  if (f.status === "same") return head;
  return `${head}\n      expected: ${f.expected ?? ""}\n      actual:   ${f.actual ?? ""}`;
}

/** Sections per request index with `same` / `DIFF` / `paraphrase` lines, then the end and a summary. */
export function formatReport(r: ConformanceReport): string {
  const left = r.baseline ? `recording ${r.baseline}` : `profile ${r.profile}`;
  const out = [`conformance: ${left} vs recording ${r.recording} (${r.requests.length} requests)`];
  for (const req of r.requests) {
    const diffs = req.findings.filter((f) => f.status === "diff").length;
    out.push("", `request ${req.index}: ${diffs ? `${diffs} difference(s)` : "same"}`, ...req.findings.map(line));
  }
  out.push("", "end:", line(r.end), "");
  out.push(`${r.differences} difference(s), ${r.paraphrases} paraphrase(s)`);
  return out.join("\n");
}
