#!/bin/sh
# Installs the dependencies, builds ncclog and analyzes a bundled sample:
# a two-node job where one node bootstraps over docker0.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build >/dev/null
# exit status 1 means "error findings", which this sample has
build/ncclog analyze samples/lightning-2node-docker0/*.log || [ $? -eq 1 ]
