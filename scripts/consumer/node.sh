#!/usr/bin/env bash
# The vitest recipe (examples/vitest) from the tarball, in an ESM project and in a CommonJS one
# (`npm init -y`'s default): type-checked under nodenext and bundler, run by vitest; then every
# code entry from CommonJS (examples/commonjs/check.cjs) and the bin through npx. Like every job,
# it audits the install (lib.sh).
source "$(dirname "$0")/lib.sh"
echo "Node $(node --version), msw $msw_range"

project_from_example vitest
install_with_tarball "msw@$msw_range"
echo "Installed msw $(installed_version msw), petstore-sandbox $(installed_version petstore-sandbox)"
cp "$repo/test/consumer/sandbox.consumer-test.ts" consumer.test.ts
echo "export const listenOptions = { onUnhandledRequest: 'error' } as const" > listen-options.ts
adapt_to_msw pets.test.ts per-test.test.ts loading-state.test.ts listen-options.ts

# The same files as CommonJS: a project without "type": "module".
mkdir ../commonjs-project
cp -R . ../commonjs-project/
(cd ../commonjs-project && npm pkg delete type)

for project in . ../commonjs-project; do
  (
    cd "$project"
    kind=$(node -p 'require("./package.json").type === "module" ? "ESM" : "CommonJS"')
    npx tsc -p tsconfig.json
    echo "$kind project, tsc --module nodenext: no errors"
    node -e '
      const config = require("./tsconfig.json")
      Object.assign(config.compilerOptions, { module: "ESNext", moduleResolution: "Bundler" })
      require("fs").writeFileSync("tsconfig.bundler.json", JSON.stringify(config))'
    npx tsc -p tsconfig.bundler.json
    echo "$kind project, tsc --moduleResolution bundler: no errors"
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
