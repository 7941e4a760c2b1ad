/** What services need to know about the HTTP request, without express. */
export interface RequestContext {
  /** The address rate limits count against. */
  client: string;
  /** The request carried the internal service credential. */
  internal: boolean;
  /** The caller reached us over HTTPS (cookies get Secure). */
  https: boolean;
}
