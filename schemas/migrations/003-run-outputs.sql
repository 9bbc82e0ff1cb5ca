-- Version 3: what `synprobe encode` needs beyond version 2 (store/st_runs.h, store/st_runs.c).
--
-- vector.text_hash is the *input* hash: SHA-256 of everything the encoder reads for a sentence
-- (forms plus the structures its kind needs), so equal text with different parses never shares
-- a row. vector.attention (version 2) stays unused: an attention map belongs to one layer, so
-- maps live in their own table keyed by layer and several layers can be cached side by side.

ALTER TABLE vector ADD COLUMN n_tokens INTEGER;          -- tokens the encoder saw (rows of tokens)
ALTER TABLE vector ADD COLUMN tok_dim INTEGER;           -- width of a token vector when tokens is set

CREATE TABLE attention (
    encoder_id  INTEGER NOT NULL REFERENCES encoder (encoder_id),
    text_hash   TEXT NOT NULL,
    layer       INTEGER NOT NULL,                        -- enc_output.attn_layer, resolved (never -1)
    n           INTEGER NOT NULL,
    data        BLOB NOT NULL,                           -- float32 little-endian [n][n], row = query
    PRIMARY KEY (encoder_id, text_hash, layer)
) STRICT, WITHOUT ROWID;

ALTER TABLE run ADD COLUMN token_vectors INTEGER NOT NULL DEFAULT 0;  -- items carry token vectors
ALTER TABLE run ADD COLUMN attn_layer INTEGER;                         -- items carry this layer's maps (NULL: none)
