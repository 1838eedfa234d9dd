/**
 * How a forwarded `qhooks run` (POST /run) and the server keep track of each other while the run is judged. The
 * server answers only once the run is judged, but says "102 Processing" as soon as it takes the run (just before its
 * hooks may start) and again every FORWARD_HEARTBEAT_MS until the answer; the client gives the server up after
 * FORWARD_SILENCE_MS without a byte, and judges the run itself. Judging may take as long as its hooks' timeouts: only
 * silence is bounded, never the run.
 */
export const FORWARD_HEARTBEAT_MS = 1000;
/** Five heartbeats: a server stalled that long (or gone) is given up; a merely slow one is not. */
export const FORWARD_SILENCE_MS = 5000;
