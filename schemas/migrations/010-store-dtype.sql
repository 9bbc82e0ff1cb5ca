-- Version 10: compact storage (`encode --store-dtype f32|f16|bf16`, common/dtype.h). An encoder
-- row's cached outputs (vector.data, vector.tokens, attention.data) are all of one element
-- type, recorded here; the rows of every store written before are float32, the default. The
-- type is part of the encoder's fingerprint (stages/encode_ident.c) when it is not f32, so an
-- f16 run never reuses, nor overwrites, the f32 rows of the same model, and f32 fingerprints
-- stay what they were. Readers widen to float (store/st_runs.c).
ALTER TABLE encoder ADD COLUMN store_dtype TEXT NOT NULL DEFAULT 'f32' CHECK (store_dtype IN ('f32', 'f16', 'bf16'));
