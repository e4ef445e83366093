#!/usr/bin/env bash
# Packs the package and installs the tarball into a throwaway project outside the repo, then
# there: type-checks a consumer under moduleResolution nodenext and bundler, runs a vitest suite
# that imports the package by name (setupServer, onUnhandledRequest: 'error'), and starts the
# installed bin with npx. CONSUMER_MSW picks msw's range (default ^2.12.0); CONSUMER_NODE_DIR
# puts another Node first on PATH (CI uses Node 24 with msw 3).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
msw_range=${CONSUMER_MSW:-^2.12.0}
if [ -n "${CONSUMER_NODE_DIR:-}" ]; then export PATH="$CONSUMER_NODE_DIR:$PATH"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
echo "Consumer check: Node $(node --version), msw $msw_range"

tarball=$(cd "$repo" && npm pack --silent --pack-destination "$work" | tail -n 1)
echo "Packed $tarball: $(du -k "$work/$tarball" | cut -f1) KiB"

mkdir "$work/consumer"
cd "$work/consumer"
cat > package.json <<'JSON'
{ "name": "petstore-consumer", "private": true, "type": "module" }
JSON
npm install --no-audit --no-fund --silent "$work/$tarball" "msw@$msw_range" vitest@^4.1.0 typescript@~6.0.3 @types/node@^20
echo "Installed msw $(node -p 'require("msw/package.json").version')"
mkdir test
cp "$repo/test/consumer/sandbox.consumer-test.ts" test/sandbox.test.ts
msw_major=$(node -p 'require("msw/package.json").version.split(".")[0]')
if [ "$msw_major" -ge 3 ]; then option=onUnhandledFrame; else option=onUnhandledRequest; fi
echo "export const listenOptions = { $option: 'error' } as const" > test/listen-options.ts
for resolution in nodenext bundler; do
  module=$([ "$resolution" = nodenext ] && echo nodenext || echo esnext)
  cat > "tsconfig.$resolution.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "$module", "moduleResolution": "$resolution",
    "strict": true, "noEmit": true, "skipLibCheck": false, "types": ["node"],
    "lib": ["ES2023", "DOM"], "verbatimModuleSyntax": true
  },
  "include": ["test"]
}
JSON
  npx tsc -p "tsconfig.$resolution.json"
  echo "tsc --moduleResolution $resolution: no errors"
done
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
echo "Consumer check took $(($(date +%s) - started)) s"
