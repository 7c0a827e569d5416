/** The scalar forms of Compose values: durations, sizes, booleans, shell words. */
import assert from "node:assert/strict";
import { parseBool, parseBytes, parseCount, parseCpus, parseDuration, shellWords } from "./compose_units.ts";

Deno.test("parseDuration: Go durations in milliseconds", () => {
  assert.equal(parseDuration("1m30s"), 90_000);
  assert.equal(parseDuration("1.5s"), 1500);
  assert.equal(parseDuration("100ms"), 100);
  assert.equal(parseDuration("2h"), 7_200_000);
  assert.equal(parseDuration("0"), 0);
  assert.equal(parseDuration(5), 5000);
  for (const bad of ["", "5", "1x", "s", "1m 30s", "-1s", true]) {
    assert.equal(parseDuration(bad), undefined, String(bad));
  }
});

Deno.test("parseBytes: binary units as Docker reads them", () => {
  assert.equal(parseBytes("512m"), 512 * 1024 ** 2);
  assert.equal(parseBytes("2g"), 2 * 1024 ** 3);
  assert.equal(parseBytes("1.5GB"), 1.5 * 1024 ** 3);
  assert.equal(parseBytes("100MiB"), 100 * 1024 ** 2);
  assert.equal(parseBytes("1024"), 1024);
  assert.equal(parseBytes(2048), 2048);
  for (const bad of ["", "2x", "m", "-1m"]) assert.equal(parseBytes(bad), undefined, bad);
});

Deno.test("parseCpus, parseCount, parseBool", () => {
  assert.equal(parseCpus("0.5"), 0.5);
  assert.equal(parseCpus(2), 2);
  assert.equal(parseCpus("two"), undefined);
  assert.equal(parseCount("3"), 3);
  assert.equal(parseCount(1.5), undefined);
  assert.equal(parseBool("yes"), true);
  assert.equal(parseBool("OFF"), false);
  assert.equal(parseBool("maybe"), undefined);
});

Deno.test("shellWords: quotes and escapes, no expansion", () => {
  assert.deepEqual(shellWords(`python3 -m http.server 8000`), ["python3", "-m", "http.server", "8000"]);
  assert.deepEqual(shellWords(`sh -c "echo 'a b' \\"c\\""`), ["sh", "-c", `echo 'a b' "c"`]);
  assert.deepEqual(shellWords(`a '' b\\ c $HOME`), ["a", "", "b c", "$HOME"]);
  assert.deepEqual(shellWords("  "), []);
  assert.equal(shellWords(`echo "open`), undefined);
});
