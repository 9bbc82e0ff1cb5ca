# t6251-step-kind-two-files.sh — a new step kind is its own file and one line of daemon/step_list.h
# tier: fast
# Issue 37 item 2 ("adding a dummy step kind in a test build touches two files"). A copy of the
# checkout (its tracked files, and BUILD's objects so only what changed recompiles) gains
# daemon/step_dummy.c — a kind "dummy" read from a job's "dummies" section, whose run says its
# message — and one DMN_STEP line; nothing else is edited. The copy builds, git there lists
# exactly those two paths, and a job with a "dummies" entry runs it in its place among the
# steps, its result line printed; `run --check` lists its command, a mistyped key is refused
# naming the section's path.
. tests/cli/lib.sh
command -v git >/dev/null 2>&1 || skip_rest "git not installed"
git rev-parse --git-dir >/dev/null 2>&1 || skip_rest "not a git checkout (the copy is made of its tracked files)"
B=${SP_BUILD:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir "$T/src"
git ls-files -z | xargs -0 tar cf - | (cd "$T/src" && tar xf -)
(cd "$T/src" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -q --no-verify -m base)
case $B in /*) ;; *) B=$PWD/$B ;; esac
# the same kind of build as BUILD's (a sanitizer tree's objects link only with its flags)
case $B in */san) SANF="SAN=1" ;; *) SANF="SAN=0" ;; esac
# the tree's path inside the checkout (a build elsewhere is copied as build/): its dependency
# files name their objects by that path, so make sees which objects the two files touch
case $B in "$PWD"/*) REL=${B#"$PWD"/} ;; *) REL=build ;; esac
if [ -d "$B" ]; then   # the objects, dates kept: make rebuilds what the two files change
    mkdir -p "$T/src/$REL" && (cd "$B" && tar cf - --exclude=./san --exclude=./tests --exclude=./fuzz .) | (cd "$T/src/$REL" && tar xf -)
    rm -rf "$T/src/$REL/daemon" "$T/src/$REL/cli"   # the layers that see the table: compiled afresh
fi

cat >"$T/src/daemon/step_dummy.c" <<'C'
/* daemon/step_dummy.c — a step kind made by t251: says its message */
#include <stddef.h>
#include <stdio.h>

#include "daemon/job_int.h"

struct dummy_opts { const char *db, *message; };
static const struct sp_opt dummy_options[] = {
    { "db", SP_OPT_PATH, offsetof(struct dummy_opts, db), .metavar = "DB", .help = "the store" },
    { "message", SP_OPT_STR, offsetof(struct dummy_opts, message), "hello", .metavar = "TEXT", .help = "what it says" },
    { 0 }
};

static int dummy_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_DUMMY, where), c, where, NULL);
    json_decref(c);
    return rc;
}

static int dummy_run(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    (void)ro;
    snprintf(so->summary, sizeof so->summary, "said %s", ((const struct dummy_opts *)s->opts)->message);
    return SP_OK;
}

const struct dmn_step_def dmn_step_dummy = {
    .words = "dummy", .section = "dummies", .table = dummy_options, .size = sizeof(struct dummy_opts),
    .entry = dummy_entry, .run = dummy_run, .flags = DMN_STEP_LEDGER,
};
C
sed -i 's/^DMN_STEP(REPORT, report)$/&\nDMN_STEP(DUMMY, dummy)/' "$T/src/daemon/step_list.h"

changed=$(cd "$T/src" && git status --porcelain | awk '{print $2}' | sort | tr '\n' ' ')
expect_eq "the kind touches two files" "$changed" "daemon/step_dummy.c daemon/step_list.h "
rc=0; (cd "$T/src" && make -s CUDA=0 $SANF BUILD="$REL" "$REL/synprobe") >"$T/make.log" 2>&1 || rc=$?
expect_eq "the copy builds with the new kind" "$rc" 0
[ "$rc" = 0 ] || sed -n '1,20s/^/#   /p' "$T/make.log"

cat >"$T/job.json" <<'J'
{"store": "s.db", "out": "o",
 "corpora": [{"name": "demo", "paths": ["DEMO"]}],
 "dummies": [{"message": "hello from a new kind"}, {}]}
J
sed -i "s|DEMO|$PWD/demo/demo.mrg|" "$T/job.json"
"$T/src/$REL/synprobe" run --check "$T/job.json" >"$T/check.out" 2>&1 || true
expect_grep "run --check lists the step's command" 'synprobe dummy --db .*s\.db --message .?hello from a new kind' "$T/check.out"
rc=0; "$T/src/$REL/synprobe" run "$T/job.json" >"$T/run.out" 2>&1 || rc=$?
expect_eq "the job runs" "$rc" 0
expect_grep "the step's result line" '^\[2/3\] dummy: said hello from a new kind' "$T/run.out"
expect_grep "its default from its own table" '^\[3/3\] dummy: said hello \(' "$T/run.out"
"$T/src/$REL/synprobe" run "$T/job.json" >"$T/rerun.out" 2>&1 || true
expect_grep "the job ledger records it: a re-run skips it" '^\[2/3\] dummy: done before, skipped' "$T/rerun.out"
sed -i 's/"message"/"mesage"/' "$T/job.json"
rc=0; "$T/src/$REL/synprobe" run --check "$T/job.json" >"$T/bad.out" 2>&1 || rc=$?
expect_eq "a mistyped key is refused" "$rc" 1
expect_grep "named by its JSON path" 'dummies\[0\]' "$T/bad.out"
done_testing
