# t7090-install.sh — `make install` / `make uninstall`: every documented file, working installed binary
# tier: fast, serial: its `make install PREFIX=...` recompiles and relinks $SP_BUILD/synprobe, which the other scripts run
# Issue 12 item 4: `make install PREFIX=... DESTDIR=...` puts every file where
# docs/install.md says, the installed binary runs and finds its CUDA plugin and SQL extension
# there (not in build/), the man page renders and lists exactly the flags each command's --help
# lists, the systemd units pass `systemd-analyze verify`, and `make uninstall` removes it all.
#
# `make install` is run on $SP_BUILD with the flags it was built with (SAN=1 for a sanitizer
# tree, CUDA=1 where it has the plugin); a new PREFIX recompiles the plugin loader (the install
# folder is compiled in) and relinks the binary there.
. tests/cli/lib.sh
B=$(dirname "$SP")
if [ ! -x "$SP" ] || [ ! -f "$B/synprobe_sql.so" ]; then skip_rest "$SP or $B/synprobe_sql.so not built"; fi
SAN_FLAG=0; if nm "$SP" 2>/dev/null | grep -q __asan_init; then SAN_FLAG=1; fi
CUDA_FLAG=0; if [ -f "$B/synprobe_cuda.so" ]; then CUDA_FLAG=1; fi
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory BUILD="$B" SAN=$SAN_FLAG CUDA=$CUDA_FLAG "$@"; }
# the plugin folder the build has compiled in, put back at the end (the installs below change it)
OLD_PKGLIBDIR=$(cat "$B/gen/pkglibdir.list" 2>/dev/null || echo /usr/local/lib/synprobe)

D=$TMP/dest; P=/opt/synprobe; R=$D$P
had_p=0; [ ! -e $P ] || had_p=1
rc=0; mk install PREFIX=$P DESTDIR=$D >$TMP/install.log 2>&1 || rc=$?
expect_eq "make install PREFIX=$P DESTDIR=...: exit 0" "$rc" 0
[ "$rc" = 0 ] || { sed "s/^/# /" $TMP/install.log; skip_rest "make install failed"; }
if [ $had_p = 0 ]; then check "nothing written to $P itself (DESTDIR respected)" test ! -e $P
else skip "$P exists on this machine: cannot tell whether install wrote there"; fi

# ---- every file, and nothing else, each equal to its source
{
    echo bin/synprobe; echo lib/synprobe/synprobe_sql.so
    [ "$CUDA_FLAG" = 0 ] || echo lib/synprobe/synprobe_cuda.so
    for f in schemas/*.json schemas/*.md schemas/*.sql schemas/migrations/*.sql; do echo share/synprobe/$f; done
    for f in encoder/configs/*.json; do echo share/synprobe/examples/encoders/${f##*/}; done
    echo share/synprobe/examples/demo/demo.conllu; echo share/synprobe/examples/demo/demo.mrg
    echo share/synprobe/examples/job.json; echo share/synprobe/examples/nightly.json
    echo share/man/man1/synprobe.1
    echo lib/systemd/system/synprobe.service; echo lib/systemd/system/synprobe-run@.service
    echo lib/systemd/system/synprobe-run@.timer; echo lib/sysusers.d/synprobe.conf
} | sort >$TMP/want
(cd $R && find . -type f | sed 's|^\./||' | sort) >$TMP/got
if cmp -s $TMP/want $TMP/got; then ok "the installed files are exactly the documented list"
else not_ok "the installed files are exactly the documented list"; diff $TMP/want $TMP/got | sed 's/^/# /' || true; fi
expect_eq "nothing outside PREFIX under DESTDIR" "$(cd $D && find . -type f ! -path ".$P/*" | wc -l)" 0
same=0; n=0
for pair in bin/synprobe:$SP lib/synprobe/synprobe_sql.so:$B/synprobe_sql.so share/man/man1/synprobe.1:$B/man/synprobe.1 \
            share/synprobe/examples/job.json:contrib/examples/job.json; do
    n=$((n+1)); cmp -s $R/${pair%%:*} ${pair#*:} && same=$((same+1))
done
for f in schemas/*.json schemas/*.md schemas/*.sql schemas/migrations/*.sql; do n=$((n+1)); cmp -s $R/share/synprobe/$f $f && same=$((same+1)); done
for f in encoder/configs/*.json; do n=$((n+1)); cmp -s $R/share/synprobe/examples/encoders/${f##*/} $f && same=$((same+1)); done
expect_eq "installed copies equal their sources ($n files)" "$same" "$n"
check "bin/synprobe is executable" test -x $R/bin/synprobe
expect_eq "the units and nightly.json name the PREFIX's binary and folders, no @VAR@ left" \
    "$(grep -c "ExecStart=$P/bin/synprobe " $R/lib/systemd/system/synprobe.service $R/lib/systemd/system/synprobe-run@.service | tr '\n' ' ')$(grep -l '@[A-Z]*@' $R/lib/systemd/system/* $R/share/synprobe/examples/nightly.json | wc -l)" \
    "$R/lib/systemd/system/synprobe.service:1 $R/lib/systemd/system/synprobe-run@.service:1 0"

# ---- the installed binary: --version, the example job, the SQL extension from its folder
S=$R/bin/synprobe
check "installed synprobe --version" sh -c "$S --version | grep -q '^synprobe [0-9]'"
cp -r $R/share/synprobe/examples $TMP/exp
rc=0; (cd / && $S run --quiet $TMP/exp/job.json) >$TMP/run.out 2>&1 || rc=$?
expect_eq "the installed example job runs with the installed binary: exit 0" "$rc" 0
check "... and writes its reports" test -s $TMP/exp/out/results.json -a -s $TMP/exp/out/results.csv
check "... a second run has nothing to do" sh -c "$S run $TMP/exp/job.json 2>&1 | grep -q 'nothing to do'"
# words of the demo CoNLL-U (ID a plain integer), counted here; sp_n over the depth BLOBs from the installed extension
words=$(awk -F'\t' '$1 ~ /^[0-9]+$/' demo/demo.conllu | wc -l)
expect_eq "sqlite3 loads the installed extension: sum of sp_n(depth) = words of the corpus" \
    "$(sqlite3 -batch $TMP/exp/out/store.db ".load $R/lib/synprobe/synprobe_sql" 'select sum(sp_n(depth)) from dep_structure' 2>&1)" "$words"

# ---- the CUDA plugin, found in PREFIX/lib/synprobe from the installed binary (LD_DEBUG names what is loaded)
if [ "$CUDA_FLAG" = 1 ]; then
    enc() { env -u SYNPROBE_CUDA_PLUGIN LD_DEBUG=files "$1" encode --db $TMP/exp/out/store.db --corpus demo \
                --encoder $TMP/exp/encoders/san.json --run cuda-$2 --device cuda >$TMP/enc.out 2>&1; }
    rc=0; enc $S a || rc=$?
    check "encode --device cuda loads $P/lib/synprobe/synprobe_cuda.so from the DESTDIR tree" \
        grep -q "file=$R/bin/../lib/synprobe/synprobe_cuda.so .*dynamically loaded" $TMP/enc.out
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
        expect_eq "... and encodes on the GPU: exit 0" "$rc" 0
    else
        expect_eq "... no GPU here: exit 1, with the CUDA runtime's reason, not a missing plugin" \
            "$rc $(grep -c 'no CUDA plugin\|cannot load the CUDA plugin' $TMP/enc.out)" "1 0"
    fi
    mkdir $TMP/moved && cp $S $TMP/moved/
    rc=0; enc $TMP/moved/synprobe b || rc=$?
    check "a copy of the binary elsewhere says where it looked (the folders, $P/lib/synprobe compiled in)" \
        grep -q "no CUDA plugin synprobe_cuda.so next to the executable ($TMP/moved).*or in $P/lib/synprobe" $TMP/enc.out
else
    skip "this build has no CUDA plugin ($B/synprobe_cuda.so): plugin search not checked"
fi

# ---- the man page: renders, and lists exactly each command's flags as its --help does
M=$R/share/man/man1/synprobe.1
if command -v groff >/dev/null 2>&1; then
    expect_eq "groff -man -ww: no warnings" "$(groff -man -ww -z $M 2>&1 | wc -l)" 0
    MANWIDTH=120 groff -man -Tascii -P-cbou $M >$TMP/man.txt 2>/dev/null
else
    skip "groff absent: the page is checked as roff only"
fi
check "the page is roff: .TH, NAME, SYNOPSIS, OPTIONS" sh -c "head -1 $M | grep -q '^\.TH SYNPROBE 1' && grep -q '^\.SH NAME' $M && grep -q '^\.SH SYNOPSIS' $M && grep -q '^\.SH OPTIONS' $M"
# the commands and subcommands from the binary's own --help, then each one's flags
$S --help | sed -n '/^commands:/,$p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }' >$TMP/cmds
: >$TMP/all
while read -r c; do
    subs=$($S $c --help | sed -n 's/^subcommands: \([a-z, ]*\) (.*/\1/p' | tr -d ',')
    if [ -n "$subs" ]; then for s in $subs; do echo "$c $s"; done; else echo "$c"; fi
done <$TMP/cmds >$TMP/all
nc=0; bad=
while read -r cmd; do
    nc=$((nc+1))
    $S $cmd --help | sed -n '/^options:/,$p' | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' | sort >$TMP/help.flags
    # in the roff: the .SS section of this command, its .TP tags
    awk -v want="synprobe $cmd" '/^\.S[SH] / { s = $0; sub(/^\.S[SH] "?/, "", s); sub(/"$/, "", s); on = (s == want); next }
        on && prev == ".TP" { print } { prev = $0 }' $M | sed 's/\\f[BIR]//g; s/\\-/-/g' | awk '{ print $1 }' | sort >$TMP/man.flags
    if [ ! -s $TMP/help.flags ] || ! cmp -s $TMP/help.flags $TMP/man.flags; then bad="$bad '$cmd'"; diff $TMP/help.flags $TMP/man.flags | sed 's/^/# /' || true; fi
    if [ -s $TMP/man.txt ] && ! grep -q "^   synprobe $cmd\$" $TMP/man.txt; then bad="$bad '$cmd' (not rendered)"; fi
done <$TMP/all
expect_eq "the man page has a section for each of the $nc commands with exactly its --help flags" "${bad:-none}" none
check "the list of commands has them all (at least 12, tasks' 4 subcommands)" sh -c "[ $nc -ge 15 ] && grep -qx 'tasks list' $TMP/all"
if [ -s $TMP/man.txt ]; then
    check "rendered: 'synprobe encode' section lists --device" sh -c "sed -n '/^   synprobe encode\$/,/^   synprobe/p' $TMP/man.txt | grep -q '^       --device auto|cpu|cuda'"
fi

# ---- the flags the units pass are the binary's (the daemon command may not be in this build yet)
check "synprobe-run@.service: 'run --quiet JOB' is what run --help takes" sh -c "$S run --help | grep -q '^  --quiet'"
if $S daemon --help >$TMP/daemon.help 2>/dev/null; then
    expect_eq "synprobe.service: daemon --help lists --db and --workers" \
        "$(grep -c '^  --db \|^  --workers ' $TMP/daemon.help)" 2
else
    skip "no 'synprobe daemon' command in this build: synprobe.service's flags not checked"
fi

# ---- systemd units: verified where they point at a real binary (an install with no DESTDIR)
if command -v systemd-analyze >/dev/null 2>&1; then
    V=$TMP/prefix
    rc=0; mk install PREFIX=$V >$TMP/install2.log 2>&1 || rc=$?
    expect_eq "make install PREFIX=\$TMP/prefix (no DESTDIR): exit 0" "$rc" 0
    U=$V/lib/systemd/system
    # MANPATH: verify also checks that Documentation=man:synprobe(1) is found
    out=$(MANPATH=$V/share/man systemd-analyze verify $U/synprobe.service $U/synprobe-run@.service \
              $U/synprobe-run@nightly.timer $U/synprobe-run@nightly.service 2>&1) && rc=0 || rc=$?
    expect_eq "systemd-analyze verify: the daemon, the job service and its timer (exit, output)" "$rc ${out:-clean}" "0 clean"
    # the check can fail: a unit naming a binary that is not there is refused
    sed "s|$V/bin/synprobe|$V/bin/nonesuch|" $U/synprobe.service >$TMP/synprobe.service
    check "... and refuses a unit whose binary is missing" sh -c "! MANPATH=$V/share/man systemd-analyze verify $TMP/synprobe.service >/dev/null 2>&1"
    check "the nightly example job checks against the installed files" sh -c "$V/bin/synprobe run --check $V/share/synprobe/examples/nightly.json | grep -q 'encode .*--encoder $V/share/synprobe/examples/encoders/san.json'"
    # the user and group the units run as, made by systemd-sysusers from the installed file in a scratch root
    mkdir -p $TMP/sysroot/etc
    if systemd-sysusers --root=$TMP/sysroot $V/lib/sysusers.d/synprobe.conf >/dev/null 2>&1; then
        expect_eq "systemd-sysusers makes the units' user and group from lib/sysusers.d/synprobe.conf" \
            "$(grep -c '^synprobe:' $TMP/sysroot/etc/passwd) $(grep -c '^synprobe:' $TMP/sysroot/etc/group) $(grep -h '^User=\|^Group=' $U/*.service | sort -u | tr '\n' ' ')" \
            "1 1 Group=synprobe User=synprobe "
    else
        skip "systemd-sysusers --root cannot run here (not root?): lib/sysusers.d/synprobe.conf not checked"
    fi
    rc=0; mk uninstall PREFIX=$V >/dev/null 2>&1 || rc=$?
    expect_eq "uninstall of the second install: no file left" "$rc $(find $V -type f | wc -l)" "0 0"
else
    skip "systemd-analyze absent: units not verified"
fi

# ---- uninstall: no file of ours left under DESTDIR
rc=0; mk uninstall PREFIX=$P DESTDIR=$D >$TMP/uninstall.log 2>&1 || rc=$?
expect_eq "make uninstall: exit 0" "$rc" 0
expect_eq "no file left under DESTDIR" "$(find $D -type f | wc -l)" 0
expect_eq "no synprobe folder left (lib/synprobe, share/synprobe)" "$(find $D -mindepth 1 -name "*synprobe*" ! -path "$D$P" | wc -l)" 0
rc=0; mk uninstall PREFIX=$P DESTDIR=$D >/dev/null 2>&1 || rc=$?
expect_eq "a second uninstall is harmless: exit 0" "$rc" 0
rc=0; mk all PKGLIBDIR="$OLD_PKGLIBDIR" >/dev/null 2>&1 || rc=$?
expect_eq "the build's own plugin folder is compiled back in ($OLD_PKGLIBDIR)" "$rc $(cat "$B/gen/pkglibdir.list")" "0 $OLD_PKGLIBDIR"
done_testing
