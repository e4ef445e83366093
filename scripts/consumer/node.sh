#!/usr/bin/env bash
# The vitest recipe (examples/vitest) from the tarball, in an ESM project and in a CommonJS one
# (`npm init -y`'s default): run by vitest, and with `types`, type-checked under nodenext and
# bundler first; then every code entry from CommonJS (examples/commonjs/check.cjs) and the bin
# through npx. Like every job, it audits the install (lib.sh).
# Usage: node.sh [types]. run.sh asks for the types in one job per msw major: tsc reads the same
# declarations, the same @types/node (the example's ^20.19) and the same msw whichever Node runs
# it, so its answer cannot differ between Node 20, 22 and 24 (each run is about 11 s and 17 CPU-s
# here; the untyped job is about 29 CPU-s in all). Under bundler resolution the project's "type"
# changes nothing: tsc --listFiles --traceResolution printed the same 16,499 lines in the ESM and
# the CommonJS project, so bundler runs in the ESM project only, nodenext in both.
source "$(dirname "$0")/lib.sh"
types=${1:-}
echo "Node $(node --version), msw $msw_range${types:+, with the type checks}"

project_from_example vitest
install_with_tarball "msw@$msw_range"
echo "Installed msw $(installed_version msw), petstore-sandbox $(installed_version petstore-sandbox)"
cp "$repo/test/consumer/sandbox.consumer-test.ts" consumer.test.ts
echo "export const listenOptions = { onUnhandledRequest: 'error' } as const" > listen-options.ts
adapt_to_msw pets.test.ts per-test.test.ts loading-state.test.ts listen-options.ts

# The same files as CommonJS: a project without "type": "module".
# node_modules as hard links: the same 106 MB, copied in a fraction of the time; nothing in this
# job writes into an installed file, and vitest's cache under node_modules/.vite is a new file in
# a directory of each project's own.
mkdir ../commonjs-project
find . -mindepth 1 -maxdepth 1 ! -name node_modules -exec cp -R {} ../commonjs-project/ \;
cp -al node_modules ../commonjs-project/
(cd ../commonjs-project && npm pkg delete type)

for project in . ../commonjs-project; do
  (
    cd "$project"
    kind=$(node -p 'require("./package.json").type === "module" ? "ESM" : "CommonJS"')
    if [ "$types" = types ]; then
      npx tsc -p tsconfig.json
      echo "$kind project, tsc --module nodenext: no errors"
      if [ "$kind" = ESM ]; then
        node -e '
          const config = require("./tsconfig.json")
          Object.assign(config.compilerOptions, { module: "ESNext", moduleResolution: "Bundler" })
          require("fs").writeFileSync("tsconfig.bundler.json", JSON.stringify(config))'
        npx tsc -p tsconfig.bundler.json
        echo "$kind project, tsc --moduleResolution bundler: no errors (the same files in either project)"
      fi
    fi
    npx vitest run --reporter=dot
  )
done

# The code entries through require(), in the CommonJS project.
cd ../commonjs-project
cp "$repo/examples/commonjs/check.cjs" .
node check.cjs

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
