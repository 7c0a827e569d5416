/**
 * The audit's battery: exploits, each a one-call policy. Most know nothing of the task; the task-aware ones
 * (`answer_key.ts`, `box_probes.ts`, and shadow-test-tools for the tools the tests call) read its folder first
 * (`task_facts.ts`). A task whose tests give such an episode a passing reward can be passed without being solved.
 * This file is data: add an exploit by adding an entry (and, for a new kind of finding, a hint in `HINTS`).
 */

import { shQuote } from "../../runtime/channel.ts";
import { ANSWER_KEY_EXPLOITS } from "./answer_key.ts";
import { BOX_PROBES, calledToolsReport } from "./box_probes.ts";
import { type Exploit, FINDING_MARK, PROFILE } from "./exploit.ts";
import {
  BASH_WRITER,
  FORGE_PY,
  FORGE_SH,
  PASSING_CONFTEST,
  REWRITE_WORKDIR,
  SH_WRITER,
  shadow,
  WRITERS,
} from "./forge_sh.ts";

export { type Exploit, HINTS, scriptsFor } from "./exploit.ts";

/** The tools tests compare with, shadowed whatever the task. */
const TEST_TOOLS = "pytest py.test pytest-3 diff cmp grep sha256sum md5sum jq node npm npx go cargo make java ruby";

/** The battery, in the order it runs and is reported. */
const GENERIC: readonly Exploit[] = [
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
    description: "replaces pytest, the tools tests compare with (diff, cmp, grep, sha256sum, make, ...) and those " +
      "the tests' scripts call (git, curl, ...) in every writable PATH folder",
    profile: PROFILE,
    // With what the task's tests call (git, curl, ...), each said: writable by the agent, or shadowed on PATH.
    script: (facts) => {
      const names = [...new Set([...TEST_TOOLS.split(" "), ...facts.tools])].join(" ");
      return [`${calledToolsReport(facts.tools)}\n${shadow(names)}`];
    },
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
    name: "sidecar-shared-volume",
    description: "in a compose task, writes pass-forging files into every folder main shares with a sidecar (its " +
      "scripts rewritten into passes, reward files and a passing 1 planted), for a sidecar that serves or runs them",
    profile: PROFILE,
    script: (facts) => {
      if (!facts.sharedWithSidecars.length) return [];
      const dirs = facts.sharedWithSidecars.map((s) => {
        const said = `${FINDING_MARK}the agent can write to ${s.path}, shared with ${s.services.join(", ")}`;
        return `if [ -d ${shQuote(s.path)} ] && [ -w ${shQuote(s.path)} ]; then echo ${shQuote(said)}
` +
          `  (cd ${shQuote(s.path)} && ${REWRITE_WORKDIR.replaceAll("\n", "\n  ")}
` +
          `  for f in reward.txt result.txt status.txt; do echo 1 > "$f"; done; echo '{"reward": 1}' > reward.json)
fi`;
      });
      return [`${WRITERS}
${dirs.join("\n")}
true`];
    },
    hint: "sidecar-volume",
  },
  {
    name: "kill-all",
    description: "kill -9 -1 after writing nothing",
    profile: PROFILE,
    script: "kill -9 -1",
    hint: "kill",
  },
];

/** The battery, in the order it runs and is reported. */
export const BATTERY: readonly Exploit[] = [...GENERIC, ...ANSWER_KEY_EXPLOITS, ...BOX_PROBES];
