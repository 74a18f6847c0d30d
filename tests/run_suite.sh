#!/usr/bin/env bash
# Runs one suite for ctest and makes what it skipped visible: its own exit status when it
# failed; else 77 (the suites' SKIP_RETURN_CODE: ctest reports it as skipped, not passed) when
# any test in it skipped, each skip's line written to SKIPS/NAME.txt, which scripts/test lists
# and checks against what may skip here.
#   run_suite.sh NAME SKIPS COMMAND [ARGS...]
set -u
name=$1 skips=$2
shift 2
mkdir -p "$skips"
rm -f "$skips/$name.txt"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit "$rc"
# Qt Test: "SKIP   : Suite::test(row) why"; Python's unittest -v: "test (module.Class) ... skipped 'why'"
if grep -E "^SKIP   : |\.\.\. skipped '" "$out" > "$skips/$name.txt"; then
  echo "$name: $(wc -l < "$skips/$name.txt") skipped (listed in $skips/$name.txt)"
  exit 77
fi
rm -f "$skips/$name.txt"
exit 0
