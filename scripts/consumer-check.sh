#!/usr/bin/env bash
# Packs the package and installs the tarball into a throwaway project outside the repo,
# then runs a vitest suite there that imports it by name, and starts its bin with npx.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(cd "$repo" && npm pack --silent --pack-destination "$work" | tail -n 1)
echo "Packed $tarball: $(du -k "$work/$tarball" | cut -f1) KiB"

mkdir "$work/consumer"
cd "$work/consumer"
cat > package.json <<'JSON'
{ "name": "petstore-consumer", "private": true, "type": "module" }
JSON
npm install --no-audit --no-fund --silent "$work/$tarball" msw@^2.12.0 vitest@^4.1.0
mkdir test
cp "$repo/test/consumer/sandbox.consumer-test.ts" test/sandbox.test.ts
npx vitest run --reporter=default

# The bin, from the installed package, answering a real request.
log="$work/cli.log"
# In its own process group: npx does not pass SIGTERM on to the node process it starts.
setsid npx --no-install petstore-sandbox --port 0 --quiet >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  grep -q 'listening on' "$log" && break
  sleep 0.1
done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log")
status=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer petstore-sandbox-key' "$url/pets")
kill -TERM -- "-$pid"
wait "$pid" || true
if [ "$status" != 200 ]; then
  echo "npx petstore-sandbox answered $status at $url/pets" >&2
  cat "$log" >&2
  exit 1
fi
echo "npx petstore-sandbox answered 200 at $url/pets"
