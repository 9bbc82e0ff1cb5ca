-- Version 2: probing tasks, encoder runs and their outputs, probing results.

CREATE TABLE task (
    task_id     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    corpus_id   INTEGER REFERENCES corpus (corpus_id),   -- NULL when imported from a file
    kind        TEXT NOT NULL,                           -- SentLen, WC, TreeDepth, … or 'imported'
    seed        INTEGER,
    params      TEXT NOT NULL DEFAULT '{}',              -- JSON: every knob of the derivation
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;

CREATE TABLE task_item (
    task_id     INTEGER NOT NULL REFERENCES task (task_id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,                        -- file order
    split       TEXT NOT NULL CHECK (split IN ('tr', 'va', 'te')),
    label       TEXT NOT NULL,
    text        TEXT NOT NULL,                           -- tokens separated by single spaces
    sentence_id INTEGER REFERENCES sentence (sentence_id),
    extra       TEXT,                                    -- fields between label and sentence, verbatim
    PRIMARY KEY (task_id, ordinal)
) STRICT, WITHOUT ROWID;

CREATE TABLE encoder (
    encoder_id  INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,                    -- sha256 of config + weights
    kind        TEXT NOT NULL,
    config      TEXT NOT NULL,
    dim         INTEGER NOT NULL
) STRICT;

CREATE TABLE run (
    run_id      INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    encoder_id  INTEGER NOT NULL REFERENCES encoder (encoder_id),
    corpus_id   INTEGER REFERENCES corpus (corpus_id),
    task_id     INTEGER REFERENCES task (task_id),
    manifest    TEXT NOT NULL DEFAULT '{}',
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;

-- Vectors are keyed by encoder and sentence text hash, so runs share what exists.
CREATE TABLE vector (
    encoder_id  INTEGER NOT NULL REFERENCES encoder (encoder_id),
    text_hash   TEXT NOT NULL,
    dim         INTEGER NOT NULL,
    data        BLOB NOT NULL,                           -- float32 little-endian [dim]
    tokens      BLOB,                                    -- float32 [n][d] when --token-vectors
    attention   BLOB,                                    -- float32 [n][n] when --attention
    PRIMARY KEY (encoder_id, text_hash)
) STRICT, WITHOUT ROWID;

CREATE TABLE run_item (
    run_id      INTEGER NOT NULL REFERENCES run (run_id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    sentence_id INTEGER REFERENCES sentence (sentence_id),
    task_ordinal INTEGER,
    text_hash   TEXT NOT NULL,
    PRIMARY KEY (run_id, ordinal)
) STRICT, WITHOUT ROWID;

CREATE TABLE probe_result (
    result_id   INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES run (run_id),
    task_id     INTEGER REFERENCES task (task_id),
    task_name   TEXT NOT NULL,
    classifier  TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    dev_acc     REAL,
    test_acc    REAL,
    result      TEXT NOT NULL,                           -- full JSON: metrics, baselines, manifest
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;

CREATE TABLE tree_eval (
    eval_id     INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES run (run_id),
    corpus_id   INTEGER REFERENCES corpus (corpus_id),
    method      TEXT NOT NULL,                           -- attention layer/score or baseline name
    result      TEXT NOT NULL,
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;
