#!/bin/sh
# Run a libFuzzer target for a fixed time on a corpus kept in the build tree.
# Usage: run-fuzz.sh FUZZER SECONDS SEED_DIR
# DVP_FUZZ_SECONDS overrides SECONDS (a longer run on demand); crashes are
# written to the build root as fuzz-crash-* with the input that caused them.
set -eu
bin=$1
secs=${DVP_FUZZ_SECONDS:-$2}
seeds=$3
if [ ! -x "$bin" ]; then
	echo "SKIP: fuzzer $bin not built (clang with libclang-rt-14-dev needed)"
	exit 77
fi
corpus="${bin}.corpus"
mkdir -p "$corpus"
cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
exec "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="${DVP_BUILD_ROOT:-.}/fuzz-" "$corpus"
