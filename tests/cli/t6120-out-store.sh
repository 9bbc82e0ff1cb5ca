# t6120-out-store.sh — no output replaces the store (issue 22, item 1): every --out-like flag named as the store, its -wal, a symlink to it or the store through a symlinked folder
# tier: fast
# Outputs are checked by identity (device and inode, or the resolved name for a file that does not
# exist yet) against the store and its companions before anything runs: exit 2, the message names
# both paths, the store and its folder unchanged. Before the fix `report --out STORE` exited 0 and
# the store was JSON; export, tasks export, trees, encode --save-weights, tasks build --out and
# daemon --log wrote over it the same way (a symlink to it was silently replaced by the output).
. tests/cli/lib.sh
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
"$SP" encode --db "$DB" --corpus demo --encoder encoder/configs/san.json --run r --quiet >/dev/null 2>&1
"$SP" tasks build --split resplit --db "$DB" --corpus demo --tasks SentLen >/dev/null 2>&1
ln -s "$DB" "$TMP/link.db"          # a symlink to the store
ln -s "$TMP/d" "$TMP/dl"            # a symlinked folder holding it
test -f "$DB-wal" || : >"$DB-wal"   # the -wal is protected whether or not SQLite left one

# the store, its -wal, every file in its folder and the links: content and names
state() {
    (cd "$TMP" && find d link.db dl -print | sort && find d -type f -exec sha256sum {} + | sort && readlink link.db dl)
}

# refused DESC OUT SHOWN CMD...: CMD (whose output is OUT) exits 2, names OUT and SHOWN, changes nothing
refused() {
    what=$1 out=$2 shown=$3
    shift 3
    before=$(state)
    rc=0; "$@" >"$TMP/stdout" 2>"$TMP/err" || rc=$?
    expect_eq "$what: exit 2" "$rc" 2
    check "$what: the message names $out and $shown" sh -c "grep -qF -- '$out:' '$TMP/err' && grep -qF -- ' $shown;' '$TMP/err'"
    expect_eq "$what: the store and its folder are unchanged" "$(state)" "$before"
}

# each writer with OUT as the store, its -wal, a symlink to it, the store through a symlinked folder
for v in store wal link dirlink; do
    case $v in
    store) out=$DB shown=$DB ;;
    wal) out=$DB-wal shown=$DB-wal ;;
    link) out=$TMP/link.db shown=$DB ;;
    dirlink) out=$TMP/dl/demo.db shown=$DB ;;
    esac
    refused "report --out = $v" "$out" "$shown" "$SP" report --db "$DB" --format json --out "$out"
    refused "export vectors --out = $v" "$out" "$shown" "$SP" export --db "$DB" --what vectors --run r --format npy --out "$out"
    refused "export sentences --out = $v" "$out" "$shown" "$SP" export --db "$DB" --corpus demo --what sentences --format jsonl --out "$out"
    refused "tasks export --out = $v" "$out" "$shown" "$SP" tasks export --db "$DB" --name SentLen --out "$out"
    refused "trees --out = $v" "$out" "$shown" "$SP" trees --db "$DB" --corpus demo --baseline right --no-save --out "$out"
    refused "trees --gold-out = $v" "$out" "$shown" "$SP" trees --db "$DB" --corpus demo --baseline right --no-save --gold-out "$out"
    refused "encode --save-weights = $v" "$out" "$shown" "$SP" encode --db "$DB" --corpus demo --encoder encoder/configs/san.json --run w --save-weights "$out" --quiet
    refused "tasks build --out = $v" "$out" "$shown" "$SP" tasks build --split resplit --db "$DB" --corpus demo --tasks SentLen --out "$out"
done

# a store that does not exist yet is protected by name, its -wal too
refused "tasks build --db NEW --out NEW-wal" "$TMP/new.db-wal" "$TMP/new.db-wal" \
    "$SP" tasks build --split resplit --db "$TMP/new.db" --corpus demo --tasks SentLen --out "$TMP/new.db-wal"
check "... the new store was not made" test ! -e "$TMP/new.db"

# the queue's store: the daemon's --log may not be it
refused "daemon --log = the queue's store" "$TMP/link.db" "$DB" "$SP" daemon --db "$DB" --log "$TMP/link.db"

# a name that is not the store is written as before
rc=0; "$SP" report --db "$DB" --format json --out "$TMP/dl/results.json" 2>/dev/null || rc=$?
expect_eq "report --out beside the store, through the symlinked folder: exit 0" "$rc" 0
check "... and the file is JSON" sh -c "head -c1 '$TMP/d/results.json' | grep -q '{'"
done_testing
