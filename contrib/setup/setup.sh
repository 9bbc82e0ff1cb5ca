#!/bin/sh
# contrib/setup/setup.sh demo|test|test-all — the README's two set-up commands, from a checkout on a
# fresh Debian 12 (a bare one too: apt and a shell, no compiler or make).
#   demo      installs the build's packages that are missing, builds, runs `synprobe demo`
#   test      also the tests' packages and the real models (`make models`), then `make test`
#   test-all  the same, then `make test-all` (what .ci/run runs)
# In a git checkout it also sets core.hooksPath to contrib/git-hooks (the commit-msg rule) unless set.
# Packages come from contrib/setup/packages.txt (one list). Missing ones are installed with
# apt-get as root, or through sudo when it works without a password; otherwise the script stops
# and prints the one command to run. Nothing is installed that is already there.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
what=${1:-}
case $what in
    demo) tiers=build ;;
    test|test-all) tiers="build test" ;;
    *) echo "usage: sh contrib/setup/setup.sh demo|test|test-all" >&2; exit 2 ;;
esac

# the packages of the tiers asked for
wanted=$(for t in $tiers; do awk -v t="$t" '$1 == t { print $2 }' "$here/packages.txt"; done)
missing=
for p in $wanted; do
    s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$s" = installed ] || missing="$missing $p"
done

if [ -n "$missing" ]; then
    cmd="apt-get install -y --no-install-recommends$missing"
    if [ "$(id -u)" -eq 0 ]; then as=
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as="sudo -n"
    else
        echo "setup: missing Debian packages:$missing" >&2
        echo "setup: run this as root, then the same command again:" >&2
        echo "    apt-get update && $cmd" >&2
        exit 1
    fi
    echo "== setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    $as apt-get update
    $as env DEBIAN_FRONTEND=noninteractive $cmd
fi

cd "$root"
# the commit-msg rule (contrib/git-hooks/commit-msg) for whoever commits from this checkout; a
# hooks path the user set is kept
if command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 &&
    [ -z "$(git config core.hooksPath || true)" ]; then
    git config core.hooksPath contrib/git-hooks
fi
jobs=$(nproc 2>/dev/null || echo 2)
case $what in
    demo)
        make -j"$jobs"
        ./build/synprobe demo ;;
    test|test-all)
        # without a network the tests that need the real models skip, visibly
        make models || echo "== setup: make models failed: the tests that need the real models skip"
        make -j"$jobs" all
        make "$what" ;;
esac
