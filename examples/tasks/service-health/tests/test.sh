#!/bin/bash
# Verifier for service-health: start the service from the copied /workdir and query it.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
cd /workdir || exit 0
# The agent's server runs as nobody when the tests run as root: nobody cannot write /logs/verifier, so its code cannot
# write the reward itself.
drop=()
[ "$(id -u)" = 0 ] && drop=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${drop[@]}" python3 server.py --port 8080 </dev/null >/tmp/verifier-server.log 2>&1 &
SERVER=$!
timeout 30 python3 /tests/check.py || true
kill "$SERVER" 2>/dev/null
echo "--- server log"; tail -20 /tmp/verifier-server.log
echo "reward: $(cat /logs/verifier/reward.txt)"
exit 0
