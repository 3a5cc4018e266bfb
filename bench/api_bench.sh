#!/bin/sh
# The API's cost without calltrace (bench/api_cost.c): the stubs of
# libcalltrace-api.so against an empty function of the program's own.
set -e
cd "$(dirname "$0")/.."
B=${BUILD:-build}
mkdir -p "$B/bench"
gcc -O2 -Iinclude bench/api_cost.c -o "$B/bench/api_cost" -L"$B" -lcalltrace-api -Wl,-rpath,"$(pwd)/$B"
"$B/bench/api_cost" "${1:-100000000}"
