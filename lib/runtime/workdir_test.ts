/** Which working directory a task's episodes use: task.toml, else the image's WORKDIR, else /workdir. */
import assert from "node:assert/strict";
import { dockerfileWorkdir, effectiveWorkdir, effectiveWorkdirOrRoot } from "./workdir.ts";

Deno.test("effectiveWorkdir: task.toml wins, then the image's WORKDIR unless it is / or unset, then /workdir", () => {
  assert.equal(effectiveWorkdir("/x", "/app"), "/x");
  assert.equal(effectiveWorkdir(undefined, "/app"), "/app");
  assert.equal(effectiveWorkdir(undefined, "/app/"), "/app/");
  assert.equal(effectiveWorkdir(undefined, "/"), "/workdir");
  assert.equal(effectiveWorkdir(undefined, ""), "/workdir");
  assert.equal(effectiveWorkdir(undefined, undefined), "/workdir");
  // A separate verifier image with no WORKDIR runs its tests in / (Docker's default), as under Harbor.
  assert.equal(effectiveWorkdirOrRoot(undefined, ""), "/");
  assert.equal(effectiveWorkdirOrRoot(undefined, "/grader"), "/grader");
  assert.equal(effectiveWorkdirOrRoot("/v", "/grader"), "/v");
});

Deno.test("dockerfileWorkdir: read from the final stage without building", () => {
  assert.equal(dockerfileWorkdir("FROM ubuntu:24.04\nWORKDIR /app\nRUN true\n"), "/app");
  assert.equal(dockerfileWorkdir("from ubuntu\nworkdir /app\nWORKDIR src\nWORKDIR ../lib"), "/app/lib");
  assert.equal(dockerfileWorkdir('FROM x\nWORKDIR "/quoted dir"'), "/quoted dir");
  // The base image decides: only the built (or inspected) image can tell.
  assert.equal(dockerfileWorkdir("FROM python:3.12-slim\nRUN pip install x\n"), undefined);
  assert.equal(dockerfileWorkdir("FROM x\nWORKDIR rel\n"), undefined);
  assert.equal(dockerfileWorkdir("FROM x\nARG D=/a\nWORKDIR $D\n"), undefined);
  assert.equal(dockerfileWorkdir("FROM scratch\nCOPY a /a\n"), "");
  // Multi-stage: the last stage counts, and a stage built FROM an earlier one inherits its WORKDIR.
  const multi =
    "FROM golang AS build\nWORKDIR /src\nRUN go build\n\nFROM debian\nWORKDIR /srv\nCOPY --from=build /x .\n";
  assert.equal(dockerfileWorkdir(multi), "/srv");
  assert.equal(dockerfileWorkdir("FROM ubuntu AS base\nWORKDIR /opt/app\nFROM base\nRUN make\n"), "/opt/app");
  assert.equal(dockerfileWorkdir("FROM ubuntu AS base\nWORKDIR /opt/app\nFROM other\nRUN make\n"), undefined);
  // Comments and continuations.
  assert.equal(dockerfileWorkdir("# WORKDIR /nope\nFROM x\nRUN a \\\n  && b\nWORKDIR \\\n  /w\n"), "/w");
  assert.equal(dockerfileWorkdir("FROM --platform=linux/amd64 ubuntu AS b\nWORKDIR /p\n"), "/p");
});
