# Shared by the consumer jobs (sourced): every job installs the packed tarball into a project of
# its own under a temporary directory, never the repository's node_modules.
# Environment: CONSUMER_TARBALL (the packed package, an absolute path: run.sh packs it or is given
# it), CONSUMER_MSW (msw's range),
# CONSUMER_NODE_DIR (another Node's bin directory, first on PATH).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
msw_range=${CONSUMER_MSW:-^2.12.0}
if [ -n "${CONSUMER_NODE_DIR:-}" ]; then export PATH="$CONSUMER_NODE_DIR:$PATH"; fi
if [ -z "${CONSUMER_TARBALL:-}" ]; then
  echo "CONSUMER_TARBALL is not set: run scripts/consumer/run.sh, which packs the package first" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Copies examples/<name> to a fresh project directory and cds there.
project_from_example() {
  mkdir -p "$work/$1"
  cp -R "$repo/examples/$1/." "$work/$1/"
  rm -rf "$work/$1/node_modules" "$work/$1/dist"
  cd "$work/$1"
}

# npm install, with the tarball in place of the registry's petstore-sandbox, then the install
# audit (scripts/consumer/install-audit.mjs) on npm's output.
install_with_tarball() {
  npm install --no-audit --no-fund "$CONSUMER_TARBALL" "$@" 2>&1 | tee "$work/install.log" | grep -v '^npm warn Unknown user config' || true
  test -d node_modules/petstore-sandbox || { echo "npm install failed" >&2; exit 1; }
  # No install script in the package's own tree, whatever else the project installs.
  node "$repo/scripts/consumer/install-audit.mjs" "$work/install.log"
}

# msw 3 renamed server.listen()'s onUnhandledRequest to onUnhandledFrame; the recipes say msw 2's.
adapt_to_msw() {
  local major
  major=$(node -p 'require("msw/package.json").version.split(".")[0]')
  if [ "$major" -ge 3 ]; then sed -i 's/onUnhandledRequest/onUnhandledFrame/g' "$@"; fi
}

# Prints an installed package's version, and notes msw's for run.sh's table.
installed_version() {
  local version
  version=$(node -p "require('$1/package.json').version")
  if [ "$1" = msw ] && [ -n "${CONSUMER_REPORT:-}" ]; then echo "$version" >"$CONSUMER_REPORT"; fi
  echo "$version"
}
