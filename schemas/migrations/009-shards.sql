-- Version 9: shard stores and their merge (store/st_shards.h). `synprobe run --shard K/N JOB.json`
-- writes a store holding only the sentences of shard K (stages/ingest.h, stg_shard_of) and
-- their vectors; it marks itself with a 'self' row. `synprobe merge OUT SHARD...` records each
-- shard it took in with a 'merged' row, and each shard's per-file counters in shard_source,
-- so that source.n_sentences/n_rejected/n_words are sums over shards that stay right when a
-- shard is merged twice.
CREATE TABLE shard (
    role        TEXT NOT NULL CHECK (role IN ('self', 'merged')),
    k           INTEGER NOT NULL,
    n           INTEGER NOT NULL CHECK (n >= 1 AND k >= 0 AND k < n),
    store       TEXT NOT NULL,                           -- merged: the shard store's path as given
    at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (role, k)
) STRICT;

CREATE TABLE shard_source (
    k           INTEGER NOT NULL,
    source_id   INTEGER NOT NULL REFERENCES source (source_id),
    n_sentences INTEGER NOT NULL,
    n_rejected  INTEGER NOT NULL,
    n_words     INTEGER NOT NULL,
    PRIMARY KEY (k, source_id)
) STRICT;
