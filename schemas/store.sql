-- schemas/store.sql — synprobe store, version 1 (the base every store starts from).
-- Later versions are forward migrations in schemas/migrations/NNN-*.sql, applied in order
-- by store/st_open.c; PRAGMA user_version records the version a store has reached.
-- Word indices are 0-based everywhere (docs/spec/structures.md §0); head = -1 marks the root.
-- Structure matrices are compact BLOBs whose layouts schemas/README.md documents.

CREATE TABLE corpus (
    corpus_id   INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;

-- One row per ingested file; (corpus, sha256) makes re-ingesting the same bytes a no-op.
CREATE TABLE source (
    source_id   INTEGER PRIMARY KEY,
    corpus_id   INTEGER NOT NULL REFERENCES corpus (corpus_id),
    path        TEXT NOT NULL,
    stem        TEXT NOT NULL,                 -- file name without folder and extension
    sha256      TEXT NOT NULL,
    format      TEXT NOT NULL CHECK (format IN ('conllu', 'ptb', 'dep')),
    mode        TEXT NOT NULL CHECK (mode IN ('default', 'strict', 'repair')),
    n_sentences INTEGER NOT NULL DEFAULT 0,    -- accepted
    n_rejected  INTEGER NOT NULL DEFAULT 0,    -- quarantined
    n_words     INTEGER NOT NULL DEFAULT 0,
    ingested    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    UNIQUE (corpus_id, sha256)
) STRICT;

-- A sentence may carry a dependency tree, a constituency tree, or both (attached from two
-- files with the same stem, at the same position).
CREATE TABLE sentence (
    sentence_id     INTEGER PRIMARY KEY,       -- increasing: corpus order
    corpus_id       INTEGER NOT NULL REFERENCES corpus (corpus_id),
    sent_id         TEXT NOT NULL,
    doc             TEXT NOT NULL,             -- stem of the file it came from
    position        INTEGER NOT NULL,          -- 1-based position in that file
    split           TEXT,
    text            TEXT NOT NULL,
    comments        TEXT,                      -- CoNLL-U comment lines, verbatim
    n_words         INTEGER NOT NULL,
    dep_source_id   INTEGER REFERENCES source (source_id),
    dep_line        INTEGER,
    const_source_id INTEGER REFERENCES source (source_id),
    const_line      INTEGER,
    warn            INTEGER NOT NULL DEFAULT 0, -- SP_W_* bits of repairs (ingest/sentence.h)
    warnings        TEXT,
    UNIQUE (corpus_id, sent_id),
    UNIQUE (corpus_id, doc, position)
) STRICT;

CREATE TABLE token (
    sentence_id INTEGER NOT NULL REFERENCES sentence (sentence_id) ON DELETE CASCADE,
    i           INTEGER NOT NULL,              -- 0-based word index
    form        TEXT NOT NULL,
    lemma       TEXT NOT NULL,
    upos        TEXT NOT NULL,
    xpos        TEXT NOT NULL,
    feats       TEXT NOT NULL,
    head        INTEGER,                       -- 0-based head word, -1 root, NULL: no dependency tree
    deprel      TEXT NOT NULL,
    deps        TEXT NOT NULL,
    misc        TEXT NOT NULL,
    PRIMARY KEY (sentence_id, i)
) STRICT, WITHOUT ROWID;

-- CoNLL-U multiword-token and empty-node lines, verbatim; `pos` = word lines before it.
CREATE TABLE extra_line (
    sentence_id INTEGER NOT NULL REFERENCES sentence (sentence_id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    pos         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('mwt', 'empty')),
    first       INTEGER,
    last        INTEGER,
    line        TEXT NOT NULL,
    PRIMARY KEY (sentence_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE dep_structure (
    sentence_id INTEGER PRIMARY KEY REFERENCES sentence (sentence_id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,
    root        INTEGER NOT NULL,
    max_depth   INTEGER NOT NULL,
    projective  INTEGER NOT NULL,
    depth       BLOB NOT NULL,                 -- also the absolute structural position (P2)
    distance    BLOB NOT NULL,
    ancestors   BLOB NOT NULL,                 -- SG-Net SDOI mask
    rel_pos     BLOB NOT NULL,                 -- P2 relative structural positions, unclipped
    abs_pos     BLOB GENERATED ALWAYS AS (depth) VIRTUAL
) STRICT;

CREATE TABLE const_structure (
    sentence_id     INTEGER PRIMARY KEY REFERENCES sentence (sentence_id) ON DELETE CASCADE,
    tree            TEXT NOT NULL,             -- normalised tree, one line, wrapper as "( … )" or "(ROOT …)"
    tree_depth      INTEGER NOT NULL,          -- SentEval TreeDepth
    top_const       TEXT NOT NULL,             -- SentEval TopConst sequence
    top_const_class TEXT NOT NULL,             -- the sequence if one of the 19 classes, else OTHER
    phrase_levels   INTEGER NOT NULL,          -- T
    phrases         BLOB NOT NULL,             -- PSAN phrase ids per level
    n_phrases       TEXT NOT NULL,             -- phrase counts per level, e.g. "3,4,5"
    spans           BLOB NOT NULL              -- phrasal brackets in pre-order
) STRICT;

-- Rejected sentences, kept with their raw text so nothing valid is lost and nothing invalid silently dropped.
CREATE TABLE quarantine (
    quarantine_id INTEGER PRIMARY KEY,
    source_id     INTEGER NOT NULL REFERENCES source (source_id) ON DELETE CASCADE,
    line          INTEGER NOT NULL,
    position      INTEGER NOT NULL,
    sent_id       TEXT,
    reason        TEXT NOT NULL,
    raw           TEXT NOT NULL
) STRICT;

CREATE INDEX sentence_by_corpus ON sentence (corpus_id, sentence_id);
CREATE INDEX quarantine_by_source ON quarantine (source_id);
