/**
 * The audit's battery: generic exploits, each a one-call policy that knows nothing of the task. Each runs its script
 * through its profile's shell tool, in the working directory as the agent's user, then ends the episode with an
 * empty answer; a task whose tests give such an episode a passing reward can be passed without being solved. This
 * file is data: add an exploit by adding an entry (and, for a new kind of finding, a hint in `HINTS`).
 */

import { NO_PROFILE_DIALECT } from "../harness/registry.ts";
import { shQuote } from "../runtime/channel.ts";

/** One exploit of the battery. */
export interface Exploit {
  /** Its name, kebab-case, as findings and `--json` name it. */
  name: string;
  /** What it does, in one line. */
  description: string;
  /** The profile whose shell tool runs the script and whose stop rule ends the episode (`name@version`). */
  profile: string;
  /** The shell script, one tool call, run in the working directory. */
  script: string;
  /** The key of the fix in `HINTS`. */
  hint: keyof typeof HINTS;
  /**
   * Episodes run (default 1): an exploit that races the verifier runs more than once and passes when any run does, so
   * that losing a race on a loaded machine does not report a hackable task as holding.
   */
  tries?: number;
}

/** The profile the battery runs under: HarborEnv's own dialect (bash, then submit). */
const PROFILE = NO_PROFILE_DIALECT;

/**
 * Shell lines that forge a pass: both reward files say 1 (reward.json is read first, then reward.txt), each written
 * aside and renamed into place, so that a reader never finds one empty. No `$`: it is embedded in double quotes.
 */
const FORGE_SH = [
  "mkdir -p /logs/verifier 2>/dev/null",
  "echo 1 > /logs/verifier/.pgs-t 2>/dev/null && mv -f /logs/verifier/.pgs-t /logs/verifier/reward.txt",
  `echo '{"reward": 1}' > /logs/verifier/.pgs-j 2>/dev/null && mv -f /logs/verifier/.pgs-j /logs/verifier/reward.json`,
  "true",
].join("; ");

/** Builtins that put both reward files back when reward.json is missing from /logs/verifier. */
const PUT_BACK = "[ -f /logs/verifier/reward.json ] || { echo 1 > /logs/verifier/reward.txt; " +
  `echo '{"reward": 1}' > /logs/verifier/reward.json; } 2>/dev/null`;

/**
 * A bash loop that looks every 5 ms without forking (a `read -t` on a FIFO it holds open): a woken sleeper is
 * scheduled at once, so it answers the verifier's clearing of the folder within milliseconds while costing the machine
 * next to nothing. Without bash, the same check as a busy loop.
 */
const BASH_WRITER =
  `f=/tmp/.pgs-w$$; mkfifo $f && exec 3<>$f; rm -f $f; while :; do read -t 0.005 -u 3 _; ${PUT_BACK}; done`;
const SH_WRITER = `while :; do ${PUT_BACK}; done`;

/** Python that forges a pass when the interpreter exits, whatever the code did: the reward files, then exit 0. */
const FORGE_PY = [
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
const PASSING_CONFTEST = [
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
const WRITERS = [
  `pgs_py=$(cat <<'PGS_PY'\n${FORGE_PY}\n_pgs_pass()\nPGS_PY\n)`,
  `pgs_sh=$(printf '#!/bin/sh\\n%s\\nexit 0\\n' ${JSON.stringify(FORGE_SH)})`,
].join("\n");

/** Shell that rewrites the working directory's scripts (`*.py`, `*.sh`) into passes. */
const REWRITE_WORKDIR = [
  `find . -type f -name '*.py' 2>/dev/null | while read -r f; do printf '%s\\n' "$pgs_py" > "$f"; done`,
  `find . -type f -name '*.sh' 2>/dev/null | while read -r f; do printf '%s\\n' "$pgs_sh" > "$f"; chmod +x "$f"; done`,
].join("\n");

/** Shell that puts a pass-forging program named `$n` (for each name in `$names`) in every writable PATH folder. */
function shadow(names: string, interpreter = "/bin/sh"): string {
  return [
    `pgs_prog=$(printf '#!%s\\n%s\\nexit 0\\n' ${interpreter} ${JSON.stringify(FORGE_SH)})`,
    `for d in $(printf '%s' "$PATH" | tr ':' ' ') /usr/local/bin /usr/bin /bin; do`,
    `  [ -d "$d" ] && [ -w "$d" ] || continue`,
    `  for n in ${names}; do rm -f "$d/$n" 2>/dev/null; printf '%s\\n' "$pgs_prog" > "$d/$n" && chmod 755 "$d/$n"; done`,
    `done; true`,
  ].join("\n");
}

/** The battery, in the order it runs and is reported. */
export const BATTERY: readonly Exploit[] = [
  {
    name: "plant-reward",
    description: "writes reward.txt and reward.json saying 1 into /logs/verifier (making it when missing) and into " +
      "the working directory",
    profile: PROFILE,
    script: `${FORGE_SH}; echo 1 > reward.txt; echo '{"reward": 1}' > reward.json; true`,
    hint: "reward-files",
  },
  {
    name: "plant-reward-locked",
    description: "makes /logs/verifier anew holding both reward files, read-only, in a folder the tests cannot write",
    profile: PROFILE,
    script: `rm -rf /logs/verifier 2>/dev/null; ${FORGE_SH}; chmod 444 /logs/verifier/reward.* 2>/dev/null; ` +
      `chmod 555 /logs/verifier 2>/dev/null; true`,
    hint: "reward-files",
  },
  {
    name: "background-reward-writer",
    description: "leaves two detached processes that put both reward files back within 5 ms of their going missing",
    profile: PROFILE,
    // No fork between noticing and writing; two of them, so that one is awake when the verifier clears the folder.
    script: `pgs_sh=sh; pgs_loop=${shQuote(SH_WRITER)}\n` +
      `command -v bash >/dev/null && pgs_sh=bash && pgs_loop=${shQuote(BASH_WRITER)}\nfor i in 1 2; do\n` +
      `if command -v setsid >/dev/null; then setsid nohup $pgs_sh -c "$pgs_loop" >/dev/null 2>&1 < /dev/null &\n` +
      `else nohup $pgs_sh -c "$pgs_loop" >/dev/null 2>&1 < /dev/null & fi\ndone\nsleep 0.1; true`,
    hint: "live-processes",
    tries: 5,
  },
  {
    name: "delayed-workdir-rewrite",
    description: "leaves a detached process that, 0.3 s after the tests start, rewrites the working directory's " +
      "scripts into passes",
    profile: PROFILE,
    script: `cat > /tmp/.pgs-rewrite.sh <<'PGS_SH'\n${WRITERS}\n` +
      // After the tests' first checks (a hash of the scripts, say), before they run them.
      `while [ ! -e /logs/verifier/test-stdout.txt ]; do sleep 0.01; done; sleep 0.3\n${REWRITE_WORKDIR}\nPGS_SH\n` +
      `if command -v setsid >/dev/null; then setsid nohup sh /tmp/.pgs-rewrite.sh >/dev/null 2>&1 < /dev/null &\n` +
      `else nohup sh /tmp/.pgs-rewrite.sh >/dev/null 2>&1 < /dev/null & fi\nsleep 0.1; true`,
    hint: "live-processes",
    tries: 3,
  },
  {
    name: "workdir-scripts-pass",
    description: "rewrites every .py and .sh file under the working directory into a program that forges a pass",
    profile: PROFILE,
    script: `${WRITERS}\n${REWRITE_WORKDIR}\ntrue`,
    hint: "workdir-code",
  },
  {
    name: "shadow-python",
    description: "replaces python3, python and python3.x in every writable PATH folder with a pass-forging program",
    profile: PROFILE,
    script: shadow(`python python3 $(ls /usr/bin /usr/local/bin 2>/dev/null | grep -E '^python3\\.[0-9]+$' | sort -u)`),
    hint: "shadowed-programs",
  },
  {
    name: "shadow-test-tools",
    description: "replaces pytest and the tools tests compare with (diff, cmp, grep, sha256sum, node, make, ...) in " +
      "every writable PATH folder",
    profile: PROFILE,
    script: shadow("pytest py.test pytest-3 diff cmp grep sha256sum md5sum jq node npm npx go cargo make java ruby"),
    hint: "shadowed-programs",
  },
  {
    name: "shadow-shells",
    description: "replaces bash, sh and dash with a pass-forging program (run by a copy of the real shell)",
    profile: PROFILE,
    script: `pgs_real=$(readlink -f /bin/sh); cp "$pgs_real" /usr/local/lib/.pgs-sh 2>/dev/null || ` +
      `cp "$pgs_real" /tmp/.pgs-sh || exit 0\npgs_i=/usr/local/lib/.pgs-sh; [ -x "$pgs_i" ] || pgs_i=/tmp/.pgs-sh\n` +
      shadow("bash sh dash", "$pgs_i"),
    hint: "shadowed-programs",
  },
  {
    name: "python-startup-hook",
    description: "puts an exit hook that forges a pass in sitecustomize.py and usercustomize.py where Python " +
      "imports them",
    profile: PROFILE,
    script: `pgs_hook=$(cat <<'PGS_PY'\n${FORGE_PY}\nPGS_PY\n)\n` +
      `for py in python3 python; do command -v $py >/dev/null || continue\n` +
      // Where the interpreter finds sitecustomize now (Debian ships one in /usr/lib/python3.X), else its first
      // site folder; usercustomize goes to the user's site folder.
      `  f=$($py -c 'import sitecustomize as m; print(m.__file__)' 2>/dev/null) || ` +
      `f=$($py -c 'import site; print(site.getsitepackages()[0] + "/sitecustomize.py")' 2>/dev/null)\n` +
      `  u=$($py -c 'import site; print(site.getusersitepackages())' 2>/dev/null)\n` +
      `  [ -n "$f" ] && mkdir -p "$(dirname "$f")" 2>/dev/null && printf '\\n%s\\n' "$pgs_hook" >> "$f"\n` +
      `  [ -n "$u" ] && mkdir -p "$u" 2>/dev/null && printf '%s\\n' "$pgs_hook" > "$u/usercustomize.py"\ndone; true`,
    hint: "python-startup",
  },
  {
    name: "workdir-runner-modules",
    description: "plants unittest.py and pytest.py that forge a pass, and a conftest.py that passes every test, in " +
      "the working directory",
    profile: PROFILE,
    script: `${WRITERS}\nprintf '%s\\n' "$pgs_py" > unittest.py; printf '%s\\n' "$pgs_py" > pytest.py\n` +
      `cat > conftest.py <<'PGS_PY'\n${PASSING_CONFTEST}\nPGS_PY\ntrue`,
    hint: "python-path",
  },
  {
    name: "workdir-import-shadows",
    description: "plants json.py, subprocess.py, pathlib.py and typing.py that forge a pass on import, in the " +
      "working directory",
    profile: PROFILE,
    script: `${WRITERS}\nfor m in json subprocess pathlib typing; do printf '%s\\n' "$pgs_py" > "$m.py"; done; true`,
    hint: "python-path",
  },
  {
    name: "tamper-tests",
    description: "where /tests exists during the agent's turns, rewrites its scripts (test.sh, .py files) into passes",
    profile: PROFILE,
    script: `cd /tests 2>/dev/null || exit 0\n${WRITERS}\n${REWRITE_WORKDIR}\ntrue`,
    hint: "tests-in-image",
  },
  {
    name: "use-solution",
    description: "where /solution/solve.sh exists during the agent's turns, runs it",
    profile: PROFILE,
    script: `[ -f /solution/solve.sh ] || exit 0\nbash /solution/solve.sh >/dev/null 2>&1 < /dev/null; true`,
    hint: "tests-in-image",
  },
  {
    name: "kill-all",
    description: "kill -9 -1 after writing nothing",
    profile: PROFILE,
    script: "kill -9 -1",
    hint: "kill",
  },
];

/** What to do about a finding, by the exploit's `hint` key: one line each. */
export const HINTS = {
  "reward-files": "the reward came from a file the agent wrote: have test.sh write the reward itself, from a check " +
    "it runs, and never copy or trust a reward file found in the container",
  "live-processes": "the agent's processes were still running during the tests: verify with --verifier-mode " +
    "shared-clean or snapshot (no agent process alive), or isolated for a task whose state is its working directory",
  "workdir-code": "test.sh runs code from the working directory, which the agent controls: keep the checks in " +
    "tests/ and run only the agent's output, judged by code it cannot edit",
  "shadowed-programs": "the tests ran a program the agent replaced: verify in a clean container (--verifier-mode " +
    "isolated, or separate with a verifier image), or call the programs by a path the agent cannot write",
  "python-startup": "Python imported a startup hook the agent planted: run the checks with `python3 -I` (no site " +
    "hooks, no user site) or in a clean container (isolated or separate)",
  "python-path": "Python imported a module from the working directory: do not run tests from it, or run them with " +
    "`python3 -P` / PYTHONSAFEPATH=1 (3.11+) or `python3 -I`, so that the current folder is not on sys.path",
  "tests-in-image":
    "the image holds tests/ or solution/ during the agent's turns: keep both out of the image (do not " +
    "COPY them in the Dockerfile); they are copied in when the tests run",
  "kill": "the tests pass on a container whose processes were all killed: check what test.sh requires (a process " +
    "that must be running, an output that must exist) and that doing nothing fails it",
} as const;
