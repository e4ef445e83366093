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
# the CommonJS project, so bundler runs in the ESM project only, nodenext in both. And bundler
# reads the very declaration files nodenext read in the ESM project (the job compares the two
# lists and fails when they differ), which nodenext has checked: bundler checks the project's own
# code against them (skipLibCheck), 3 s and 4.3 CPU-s where checking all 716 files again took
# 10.5 s and 15.7.
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

# tsc under one resolution, with the files it read kept for a comparison: any error fails the job,
# shown as tsc printed it (the file list is the lines that are absolute paths).
typecheck() {
  local kind=$1 resolution=$2 config=$3 list="$work/files-$1-$2.txt"
  if ! npx tsc -p "$config" --listFiles >"$list"; then
    grep -v '^/' "$list" >&2 || true # tsc's own lines; none when it did not get as far as checking
    echo "$kind project, tsc under $resolution: errors (above)" >&2
    exit 1
  fi
  echo "$kind project, tsc under $resolution: no errors"
}

for project in . ../commonjs-project; do
  (
    cd "$project"
    kind=$(node -p 'require("./package.json").type === "module" ? "ESM" : "CommonJS"')
    if [ "$types" = types ]; then
      typecheck "$kind" nodenext tsconfig.json
      if [ "$kind" = ESM ]; then
        node -e '
          const config = require("./tsconfig.json")
          Object.assign(config.compilerOptions, { module: "ESNext", moduleResolution: "Bundler", skipLibCheck: true })
          require("fs").writeFileSync("tsconfig.bundler.json", JSON.stringify(config))'
        typecheck "$kind" bundler tsconfig.bundler.json
        if ! diff "$work/files-ESM-nodenext.txt" "$work/files-ESM-bundler.txt"; then
          echo "bundler resolution read other files than nodenext (above): check their declarations too" >&2
          exit 1
        fi
        echo "$kind project, bundler read the same $(wc -l <"$work/files-ESM-bundler.txt") files as nodenext"
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
