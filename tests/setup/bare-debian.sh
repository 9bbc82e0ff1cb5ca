#!/bin/sh
# tests/setup/bare-debian.sh [CHROOT] — the README's two commands on a bare Debian 12 (`make
# test-setup`; root, network to Debian's mirror; not in make test: it takes the better part of an
# hour and installs packages). Makes a `debootstrap --variant=minbase bookworm` root (or reuses
# CHROOT if it holds one), copies the checkout's files into it as a release tarball would hold
# them (no .git: `git ls-files` picks them where there is a repository, else the tree without its
# builds and models) and checks, in that chroot:
#   1. as a user without root, `sh contrib/setup/setup.sh demo` stops (exit 1) and names the one
#      apt-get command to run;
#   2. as root, the same command installs the missing packages, builds and runs the demo (exit 0,
#      the demo's results table printed);
#   3. run again, it installs nothing;
#   4. the second command, `sh contrib/setup/setup.sh test` (the tests' packages, the models,
#      make test), ends "N passed, 0 failed" with exit 0. SETUP_TEST=0 stops after 3.
# TAP output, and a last line "N passed, N failed".
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
ch=${1:-${TMPDIR:-/tmp}/synprobe-bare-debian}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
n=0; fail=0
ok()     { n=$((n+1)); echo "ok $n - $1"; }
not_ok() { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $1"; }
finish() { echo "1..$n"; echo "$((n-fail)) passed, $fail failed"; [ "$fail" -eq 0 ]; }
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP tests/setup/bare-debian.sh: needs root (chroot, debootstrap)"; exit 0; }
command -v debootstrap >/dev/null 2>&1 || apt-get install -y debootstrap >/dev/null
if [ ! -x "$ch/usr/bin/apt-get" ]; then
    echo "# debootstrap --variant=minbase bookworm $ch"
    debootstrap --variant=minbase bookworm "$ch" "$mirror" >"$ch.log" 2>&1 || { not_ok "debootstrap (see $ch.log)"; finish; exit 1; }
fi
# a bare root: no compiler, no make
if chroot "$ch" sh -c 'command -v cc || command -v make' >/dev/null 2>&1; then
    echo "# $ch has cc or make already: remove it to test a bare root"; fi
cp /etc/resolv.conf "$ch/etc/resolv.conf"
# a network that intercepts TLS signs with a CA of its own, which a fresh root lacks: the host's
# local CAs are copied in (ca-certificates, on the tests' list, adds them when it installs)
if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$ch/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$ch/usr/local/share/ca-certificates/"
    [ ! -x "$ch/usr/sbin/update-ca-certificates" ] || chroot "$ch" update-ca-certificates >/dev/null 2>&1 || true
fi
# what a booted machine has: /proc, and /dev with its pseudo-terminals (t6158 runs under script)
mountpoint -q "$ch/proc" || mount -t proc proc "$ch/proc"
mountpoint -q "$ch/dev" || mount --rbind /dev "$ch/dev"
trap 'umount "$ch/proc" 2>/dev/null || true; umount -R "$ch/dev" 2>/dev/null || true' EXIT
rm -rf "$ch/root/synprobe" "$ch/home/u/synprobe"
mkdir -p "$ch/root/synprobe"
if [ -d "$root/.git" ] && command -v git >/dev/null 2>&1; then
    (cd "$root" && git ls-files -z | tar --null -cf - -T -) | tar -xf - -C "$ch/root/synprobe"
else
    (cd "$root" && tar --exclude=./.git --exclude=./build --exclude=./models -cf - .) | tar -xf - -C "$ch/root/synprobe"
fi
chroot "$ch" sh -c 'id u >/dev/null 2>&1 || useradd -m u; cp -r /root/synprobe /home/u/ && chown -R u /home/u/synprobe'

rc=0; chroot "$ch" su u -c 'cd ~/synprobe && sh contrib/setup/setup.sh demo' >"$ch.user.out" 2>&1 || rc=$?
if [ "$rc" = 1 ] && grep -q "run this as root" "$ch.user.out" && grep -q "apt-get install -y" "$ch.user.out"; then
    ok "without root: stops with exit 1 and names the command to run"
elif [ "$rc" = 0 ]; then ok "without root: nothing was missing (the root already had the packages)"
else not_ok "without root: exit $rc, $(tail -3 "$ch.user.out" | tr '\n' ' ')"; fi

rc=0; chroot "$ch" sh -c 'cd /root/synprobe && sh contrib/setup/setup.sh demo' >"$ch.demo.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -q "^Trees from attention" "$ch.demo.out"; then ok "as root: installs, builds and runs the demo"
else not_ok "as root: exit $rc (see $ch.demo.out)"; fi

rc=0; chroot "$ch" sh -c 'cd /root/synprobe && rm -rf synprobe-demo && sh contrib/setup/setup.sh demo' >"$ch.again.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && ! grep -q "setup: installing" "$ch.again.out"; then ok "run again: installs nothing, exit 0"
else not_ok "run again: exit $rc (see $ch.again.out)"; fi

if [ "${SETUP_TEST:-1}" = 1 ]; then
    rc=0; chroot "$ch" sh -c 'cd /root/synprobe && sh contrib/setup/setup.sh test' >"$ch.test.out" 2>&1 || rc=$?
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ch.test.out" | tail -1)   # make prints its own lines after it
    if [ "$rc" = 0 ] && echo "$last" | grep -q ' 0 failed'; then ok "setup.sh test: $last"
    else not_ok "setup.sh test: exit $rc, '$last' (see $ch.test.out)"; fi
fi
finish
