-- Version 5: indexes for the per-file lookups of ingest. A file's document name (source.stem)
-- is its base name, or that name qualified by folders when another folder's file of the same
-- kind holds it (de/dev); ingest looks up, per file, the sources with a given stem and those
-- whose last path component is a given base name. Without these indexes both scanned the
-- whole source table, so ingesting thousands of files was quadratic (4,378 PTB files: 6.6 s
-- instead of 1.9 s). The expression is the part of stem after its last '/'.
CREATE INDEX source_by_stem ON source (corpus_id, stem);
CREATE INDEX source_by_base ON source (corpus_id, replace(stem, rtrim(stem, replace(stem, '/', '')), ''));
