/** The node API's poster check on its own (no HTTP, no engine): what it passes, and what it does while too many signatures wait. */
import type { Request, Response } from 'express';
import { SIGNATURE_CHECKS_WAITING_MAX, createAuthHeader, createSigner, generateWallet, nodeApiMessage, signMessage, verifySignatureBytesAsync } from '@ocg/auth';
import { HttpError, NotFoundError } from '@ocg/http';
import bs58 from 'bs58';
import { posterAuth } from '../src/api/auth';
import type { Executor } from '../src/executor/executor';

const node = generateWallet().address;
const poster = generateWallet();
const job = generateWallet().address;
const executor = { poster: (j: string) => (j === job ? poster.address : undefined) } as unknown as Executor;
const check = posterAuth(executor, node, 300);

/** Runs the check and answers what it called `next` with (undefined: passed). */
function run(authorization: string): Promise<unknown> {
  return new Promise((resolve) => check({ params: { job }, headers: { authorization } } as unknown as Request, {} as Response, resolve));
}

const header = (signer = poster) => createAuthHeader(createSigner(signer.secretKey), nodeApiMessage(node, job)).header;

describe('posterAuth', () => {
  it("passes the job poster's header and answers 404 for anyone else's", async () => {
    await expect(run(header())).resolves.toBeUndefined();
    await expect(run(header(generateWallet()))).resolves.toBeInstanceOf(NotFoundError);
  });

  it('answers 503 with Retry-After, judging nothing, while too many signatures wait to be checked', async () => {
    const other = generateWallet();
    const signature = Buffer.from(bs58.decode(signMessage(other.secretKey, 'filler')));
    const filler = Array.from({ length: SIGNATURE_CHECKS_WAITING_MAX + 1000 }, () => verifySignatureBytesAsync(other.address, 'filler', signature).catch(() => 'busy'));
    const err = (await run(header())) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(503);
    expect(err.headers).toEqual({ 'Retry-After': '1' });
    expect(err.message).toBe('Too many signed requests are waiting to be checked; try again shortly');
    await Promise.all(filler);
    await expect(run(header())).resolves.toBeUndefined();
  });
});
