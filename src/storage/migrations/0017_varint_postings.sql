-- Term postings are stored as varints (storage/graph/terms.ts): per file in ascending id order, the gap from the
-- previous file id and the term's count, a third of the int32 pairs they were. The stored counts are dropped: the next
-- index run counts every source file again (rankings count the files themselves until then).
DELETE FROM term_postings;
DELETE FROM symbol_terms;
DELETE FROM file_terms;
