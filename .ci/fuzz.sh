#!/usr/bin/env bash
# libFuzzer targets (Tests/Fuzz/*.swift), Linux only: compiles the modules
# they need straight from Sources/ with `-sanitize=fuzzer,address` (they are
# no SwiftPM targets, so `swift build` and `swift test` never see them),
# links one binary per target, and runs each for FUZZ_SECONDS on a scratch
# copy of its committed seed corpus (Tests/Fuzz/corpus/TARGET). Fails on the
# first finding and prints the path of the input that caused it.
#
#   bash .ci/fuzz.sh                      # every target, 60 s each
#   FUZZ_SECONDS=3600 bash .ci/fuzz.sh    # the longer run (Tests/README.md: Fuzzing)
#   bash .ci/fuzz.sh engine config        # only these targets
#   FUZZ_BUILD_ONLY=1 bash .ci/fuzz.sh    # build, run nothing
#
# Environment: FUZZ_SECONDS (60), FUZZ_BUILD_DIR (.build-fuzz), FUZZ_RSS_MB
# (2048), FUZZ_TIMEOUT (10 s per input), FUZZ_JOBS_ARGS (extra libFuzzer
# flags). A finding is saved as FUZZ_BUILD_DIR/findings/TARGET/crash-*
# (leak-*, timeout-*, oom-*): replay it with `BINARY FILE`.
set -euo pipefail
SCRIPT=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
BUILD=${FUZZ_BUILD_DIR:-.build-fuzz}
RSS_MB=${FUZZ_RSS_MB:-2048}
TIMEOUT=${FUZZ_TIMEOUT:-10}
SWIFTC=${SWIFTC:-swiftc}
# -O keeps every bounds and overflow check (they trap, and libFuzzer
# reports the trap); the sources have no assert() that -O would drop.
FLAGS=(-O -sanitize=fuzzer,address -parse-as-library -g)
# lld: gold warns about every ASan helper symbol.
LINK_FLAGS=(-use-ld=lld)

# The modules, in dependency order, each with the modules it imports.
MODULES=(DNSWire CompiledConfig Crypto DNSSEC Engine HTTPDNS Config)
declare -A IMPORTS=(
  [DNSWire]="" [CompiledConfig]="DNSWire" [Crypto]=""
  [DNSSEC]="DNSWire CompiledConfig Crypto" [Engine]="DNSWire CompiledConfig Crypto DNSSEC"
  [HTTPDNS]="DNSWire CompiledConfig" [Config]="DNSWire CompiledConfig"
)
# Each target with the modules it links.
declare -A TARGET_MODULES=(
  [dnswire]="DNSWire"
  [engine]="DNSWire CompiledConfig Crypto DNSSEC Engine Config"
  [config]="DNSWire CompiledConfig Crypto DNSSEC Engine Config"
  [httpdns]="DNSWire CompiledConfig HTTPDNS"
  [cachefile]="DNSWire CompiledConfig Crypto DNSSEC Engine"
  [dnssec]="DNSWire CompiledConfig Crypto DNSSEC"
)
# The sources a target is compiled from: Tests/Fuzz/TARGET.swift, what every
# target shares (Tests/Fuzz/Shared), and what it shares with an XCTest target.
SHARED_SOURCES=(Tests/Fuzz/Shared/*.swift)
declare -A TARGET_SOURCES=(
  [engine]="Tests/EngineTests/EngineFuzzShared.swift"
)
ALL_TARGETS=(dnswire httpdns cachefile config engine dnssec)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

mkdir -p "$BUILD/modules" "$BUILD/bin"

# A module is rebuilt when one of its sources, or a module it imports, is
# newer than its object (or the script itself is: the flags may differ).
build_module() {
  local module=$1 object=$BUILD/modules/$1.o
  local sources
  # Sub-folders included, as SwiftPM reads a module.
  mapfile -t sources < <(find Sources/"$module" -name '*.swift' | sort)
  local stale=0 file imported
  [ -f "$object" ] || stale=1
  for file in "${sources[@]}" "$SCRIPT"; do [ "$file" -nt "$object" ] && stale=1; done
  for imported in ${IMPORTS[$module]}; do
    [ "$BUILD/modules/$imported.o" -nt "$object" ] && stale=1
  done
  [ $stale = 1 ] || return 0
  echo "   compiling $module"
  "$SWIFTC" "${FLAGS[@]}" -wmo -module-name "$module" -I "$BUILD/modules" \
    -emit-module -emit-module-path "$BUILD/modules/$module.swiftmodule" \
    -emit-object -o "$object" "${sources[@]}"
  # swiftc keeps an unchanged output's old time; the checks above need a new one.
  touch "$object"
}

needed=" "
for target in "${TARGETS[@]}"; do
  [ -n "${TARGET_MODULES[$target]:-}" ] || { echo "unknown fuzz target: $target" >&2; exit 2; }
  needed+="${TARGET_MODULES[$target]} "
done

echo "== fuzz: building (swiftc -sanitize=fuzzer,address) into $BUILD"
for module in "${MODULES[@]}"; do
  case "$needed" in *" $module "*) build_module "$module" ;; esac
done
for target in "${TARGETS[@]}"; do
  objects=()
  for module in ${TARGET_MODULES[$target]}; do objects+=("$BUILD/modules/$module.o"); done
  binary=$BUILD/bin/fuzz-$target
  # shellcheck disable=SC2206 # the list is paths without spaces
  sources=(Tests/Fuzz/"$target".swift "${SHARED_SOURCES[@]}" ${TARGET_SOURCES[$target]:-})
  stale=0
  for file in "${sources[@]}" "${objects[@]}" "$SCRIPT"; do
    [ -f "$binary" ] && [ ! "$file" -nt "$binary" ] || stale=1
  done
  [ $stale = 1 ] || continue
  echo "   linking fuzz-$target"
  "$SWIFTC" "${FLAGS[@]}" "${LINK_FLAGS[@]}" -module-name "Fuzz_$target" -I "$BUILD/modules" \
    "${sources[@]}" "${objects[@]}" -o "$binary"
  touch "$binary"
done

[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0

# Runs one target; prints its executions; returns non-zero on a finding.
run_target() {
  local target=$1 binary=$BUILD/bin/fuzz-$1
  local work=$BUILD/work/$target findings=$BUILD/findings/$target log=$BUILD/logs/$target.log
  rm -rf "$work" && mkdir -p "$work" "$findings" "$BUILD/logs"
  # A scratch copy: the committed seeds are never written to.
  cp Tests/Fuzz/corpus/"$target"/* "$work"/
  echo "== fuzz $target: ${FUZZ_SECONDS}s"
  local status=0
  # No Swift backtracer: it symbolicates for a long time on each crash, and
  # libFuzzer prints the Swift fatal error message and saves the input.
  SWIFT_BACKTRACE=enable=no "$binary" "$work" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb="$RSS_MB" \
    -timeout="$TIMEOUT" -print_final_stats=1 -artifact_prefix="$findings/" \
    ${FUZZ_JOBS_ARGS:-} >"$log" 2>&1 || status=$?
  local executions
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  local coverage
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  echo "   executions: ${executions:-?}  coverage (edges): ${coverage:-?}  corpus: $(ls "$work" | wc -l) inputs"
  if [ $status -ne 0 ]; then
    echo "!! fuzz $target: finding (libFuzzer exit $status); last lines of $log:" >&2
    tail -40 "$log" >&2
    local artifact
    for artifact in "$findings"/*; do
      [ -e "$artifact" ] && echo "!! input: $artifact  (replay: $binary $artifact)" >&2
    done
    return 1
  fi
}

failed=()
for target in "${TARGETS[@]}"; do
  run_target "$target" || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "!! fuzz findings in: ${failed[*]}" >&2
  exit 1
fi
echo "== fuzz: no findings"
