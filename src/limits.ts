// Input limits shared by the tools' schemas and the transports: generous for real work, finite for hostile input.

/** A file path (Linux PATH_MAX). */
export const MAX_PATH_CHARS = 4096;
/** A session, card or job id. */
export const MAX_ID_CHARS = 200;
/** Ids in one call (cards that helped, cards that did not). */
export const MAX_IDS = 1000;
/**
 * All inline message content of one compress_context call (≈250k tokens, more than a context window holds; longer
 * belongs in a transcript file). Every character is tokenized, and text a tokenizer splits into many small pieces
 * costs far more per character than prose, so the bound stays near what a conversation can really be.
 */
export const MAX_INLINE_CHARS = 1_000_000;
/** One JSON-RPC message on stdio or one HTTP request body: above every schema-valid call that fits the limits. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Text of one tool result: what a client can take back in one message, and far more than a context window. */
export const MAX_RESULT_CHARS = 1_000_000;
/** Bytes of HTTP request bodies held in memory at once, across all requests; a body that would pass it gets 503. */
export const MAX_BODY_MEMORY_BYTES = 64 * 1024 * 1024;
/** An HTTP request body not complete this long after its headers gets 408 and its connection closed. */
export const BODY_TIMEOUT_MS = 30_000;
