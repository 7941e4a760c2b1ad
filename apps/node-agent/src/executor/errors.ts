/** A refusal meant for the caller; the node API maps the kind to a status. */
export class ExecutorError extends Error {
  constructor(
    readonly kind: 'not-found' | 'invalid' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'ExecutorError';
  }
}

export const notFound = (message: string) => new ExecutorError('not-found', message);
export const invalid = (message: string) => new ExecutorError('invalid', message);
export const conflict = (message: string) => new ExecutorError('conflict', message);
