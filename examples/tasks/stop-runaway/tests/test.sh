#!/bin/bash
# Verifier for stop-runaway: grades the live process list captured from the agent's container.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
# -I: the working directory is not on sys.path, so a json.py the agent left there is not imported.
timeout 20 python3 -I - <<'PY' || true
import json, os

def runs(proc, script):
    # python3 <...> script.py: any argument whose file name is the script
    return any(os.path.basename(arg) == script for arg in proc.get("cmdline", []))

try:
    with open("/logs/agent/capture.json") as handle:
        capture = json.load(handle)
    processes = capture["processes"]
    assert isinstance(processes, list) and processes, "empty process list"
except Exception as exc:  # missing, empty or malformed capture -> 0
    print("no usable capture:", exc)
else:
    live = [p for p in processes if p.get("state") != "Z"]
    runaway = [p for p in live if runs(p, "runaway.py")]
    keeper = [p for p in live if runs(p, "keeper.py")]
    print(f"runaway processes: {len(runaway)}, keeper processes: {len(keeper)}")
    if not runaway and keeper:
        with open("/logs/verifier/reward.txt", "w") as handle:
            handle.write("1\n")
PY
echo "reward: $(cat /logs/verifier/reward.txt)"
exit 0
