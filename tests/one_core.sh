#!/usr/bin/env bash
# Runs COMMAND on one core: the first this process may use (taskset), so that what a suite
# expects cannot depend on having more.
#   one_core.sh COMMAND [ARGS...]
set -eu
core=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
exec taskset -c "$core" "$@"
