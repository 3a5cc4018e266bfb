#!/bin/sh
# Benchmarks, side by side with the peers that are installed (uftrace, LTTng-UST).
# Install them with: apt-get install uftrace lttng-tools liblttng-ust1
cd "$(dirname "$0")/.." && exec python3 bench/bench.py "$@"
