/** The content-addressed store: bytes by their CIDv1 (raw, sha2-256), the id IPFS gives the same bytes. */
export interface UploadContentRequest {
  /** The content: text as it is (utf8) or base64 of the bytes. */
  content: string;
  /** How `content` is written. Default `utf8`: the UTF-8 bytes of the text are stored. */
  encoding?: 'utf8' | 'base64';
}

export interface UploadContentResponse {
  /** CIDv1, codec raw, sha2-256, base32 (`bafkrei…`). */
  cid: string;
  /** Bytes stored. */
  size: number;
}
