#!/bin/sh
# Installs what building and testing ncclog needs, from Debian packages.
# Packages already present are skipped; nothing is done when all are there.
set -eu
pkgs="meson ninja-build gcc pkg-config libpcre2-dev libcjson-dev libncurses-dev python3 tmux
	zlib1g-dev libzstd-dev zstd gzip cmark-gfm man-db groff-base zsh
	clang libclang-rt-14-dev valgrind time iproute2
	chromium fonts-dejavu-core"
# Vectorscan, where Debian builds it: the gate scans large inputs with it
case "$(dpkg --print-architecture 2>/dev/null)" in
amd64 | arm64 | ppc64el) pkgs="$pkgs libvectorscan-dev" ;;
esac
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing:$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
