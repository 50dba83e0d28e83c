// One uploaded chunk of a browser session recording (rrweb events), as /v1/rum/replay receives it.

export interface ReplayChunk {
  sessionId: string;
  /** The uploader's sequence number; chunks of a session are returned in seq order. */
  seq: number;
  /** Time of the chunk's first event, unix ns (or receipt time when the events carry none). */
  startNs: bigint;
  /** Time of the chunk's last event, unix ns. */
  endNs: bigint;
  /** The rrweb events as JSON array text, kept byte for byte as the browser sent them. */
  eventsJson: string;
  eventCount: number;
  /** The page URL and user id the uploader named, or ''. */
  page: string;
  user: string;
}
