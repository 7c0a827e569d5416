import assert from "node:assert/strict";
import { buildFailure } from "./build_error.ts";

/** The legacy builder's notice, as dockerd 20.10 prints it before every build. */
const NOTICE = "DEPRECATED: The legacy builder is deprecated and will be removed in a future release.\n" +
  "            Install the buildx component to build images with BuildKit:\n" +
  "            https://docs.docker.com/go/buildx/\n\n";

Deno.test("buildFailure: a failing RUN gets its own lines and no BuildKit hint", () => {
  const said = buildFailure(NOTICE + "The command '/bin/sh -c false' returned a non-zero code: 1\n");
  assert.equal(said, "The command '/bin/sh -c false' returned a non-zero code: 1");
});

Deno.test("buildFailure: COPY --chmod on the legacy builder gets the BuildKit hint", () => {
  const said = buildFailure(
    NOTICE + "the --chmod option requires BuildKit. Refer to https://docs.docker.com/go/buildkit/ to learn how\n",
  );
  assert.match(said, /--chmod option requires BuildKit.*write COPY --chmod as COPY and RUN chmod/);
});

Deno.test("buildFailure: a heredoc's parse error gets the heredoc hint, another parse error does not", () => {
  const err = NOTICE + "Error response from daemon: dockerfile parse error line 3: unknown instruction: ECHO\n";
  assert.match(buildFailure(err, "FROM x\nRUN <<EOF\necho hi\nEOF\n"), /heredocs in RUN and COPY need BuildKit/);
  assert.doesNotMatch(buildFailure(err, "FROM x\nECHO hi\n"), /BuildKit/);
});
