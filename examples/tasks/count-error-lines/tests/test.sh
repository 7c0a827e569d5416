#!/bin/bash
# Verifier for count-error-lines: grades the last integer of the agent's final reply.
mkdir -p /logs/verifier
echo '{"reward": 0, "answer_found": 0}' > /logs/verifier/reward.json
# -I: the working directory is not on sys.path, so a json.py the agent left there is not imported.
timeout 20 python3 -I - <<'PY' || true
import json, re

EXPECTED = 35  # lines of the shipped app.log whose level field is ERROR
try:
    with open("/logs/agent/final_message.md", encoding="utf-8", errors="replace") as handle:
        reply = handle.read()
except OSError:
    reply = ""
numbers = re.findall(r"\d+", reply)
answer = int(numbers[-1]) if numbers else None
result = {"reward": 1.0 if answer == EXPECTED else 0.0, "answer_found": 0 if answer is None else 1}
print(f"answer={answer} expected={EXPECTED}")
with open("/logs/verifier/reward.json", "w") as handle:
    json.dump(result, handle)
PY
cat /logs/verifier/reward.json
exit 0
