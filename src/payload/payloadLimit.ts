/** Largest payload accepted, in bytes of JSON (a file of its own: the forward client reads it without zod). */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
