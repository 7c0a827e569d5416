/**
 * What a failed `docker build` says, in one line: the builder's last lines without its deprecation notice, plus a
 * hint only where the failure is one the legacy builder (an engine without BuildKit) has and BuildKit has not.
 */

/** The legacy builder's notice: a `DEPRECATED:` line and the indented lines under it, printed on every build. */
function withoutNotice(stderr: string): string[] {
  const out: string[] = [];
  let inNotice = false;
  for (const line of stderr.split("\n")) {
    if (line.startsWith("DEPRECATED:")) inNotice = true;
    else if (inNotice && /^\s+\S/.test(line)) continue;
    else inNotice = false;
    if (!inNotice && line.trim()) out.push(line.trim());
  }
  return out;
}

/** A heredoc (`RUN <<EOF`, `COPY <<EOF /x`) in a Dockerfile: BuildKit syntax the legacy builder reads as instructions. */
const HEREDOC = /^\s*(RUN|COPY|ADD)\b[^\n]*<<-?\s*["']?[A-Za-z_]\w*/im;

/**
 * One line on why a build failed: the last three lines the builder wrote (its notice left out), and a hint when the
 * legacy builder refused BuildKit-only syntax (`COPY --chmod`, heredocs) that an engine with BuildKit builds.
 */
export function buildFailure(stderr: string, dockerfileText = ""): string {
  const lines = withoutNotice(stderr);
  const tail = lines.slice(-3).join(" | ");
  const said = lines.join("\n");
  let hint = "";
  if (/option requires BuildKit/i.test(said)) {
    hint =
      " (this engine builds without BuildKit: write COPY --chmod as COPY and RUN chmod, or give the engine buildx)";
  } else if (/dockerfile parse error|unknown instruction/i.test(said) && HEREDOC.test(dockerfileText)) {
    hint = " (heredocs in RUN and COPY need BuildKit, which this engine lacks: write the lines as a script file, " +
      "or give the engine buildx)";
  }
  return tail + hint;
}
