/** A signed-in user acting on jobs: who pays, and whose wallet signs node API requests. */
export interface Caller {
  userId: string;
  /** The user's wallet address (generatedAddress): the job's poster. */
  poster: string;
}
