#!/bin/bash
# Verifier for fix-word-count: hidden test cases + collateral-damage check.
# Always leaves a reward behind: 0 first, overwritten by check.py on success.
mkdir -p /logs/verifier
echo '{"reward": 0, "tests_passed": 0, "collateral_ok": 0}' > /logs/verifier/reward.json
# The agent's code runs inside check.py, so (when the tests run as root) check.py runs as nobody, who cannot write
# /logs/verifier: its result comes back through a folder of its own, and this script writes the reward.
out=$(mktemp -d)
drop=()
if [ "$(id -u)" = 0 ]; then chown nobody "$out" && drop=(setpriv --reuid=nobody --regid=nogroup --clear-groups); fi
cd /tmp || exit 0
PYTHONDONTWRITEBYTECODE=1 REWARD_OUT="$out/reward.json" timeout 30 \
  "${drop[@]}" python3 -I /tests/check.py /workdir || true
python3 -I - "$out/reward.json" <<'PY' || true
import json, sys
result = json.load(open(sys.argv[1]))
assert set(result) == {"reward", "tests_passed", "collateral_ok"}
json.dump(result, open("/logs/verifier/reward.json", "w"))
PY
cat /logs/verifier/reward.json
exit 0
