-- Version 4: structure BLOBs may use the one-byte kinds 7 (distance u8), 8 (rel_pos i8) and
-- 9 (depth u8) that schemas/README.md documents; the writer picks them whenever every value of
-- a sentence fits, which halves the dependency structures of ordinary sentences.
--
-- No table changes: the kind byte in each BLOB's header says which form it is, and this
-- binary reads both, so rows written at versions 1-3 stay as they are. The version number
-- exists so that a synprobe built before these kinds refuses a store that may contain them
-- instead of misreading a one-byte matrix as a two-byte one.
SELECT 1;
