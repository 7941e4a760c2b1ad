import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApiClient } from '@ocg/api-client';
import { sleep } from '@ocg/testing';

const exec = promisify(execFile);

/** Stops a job and waits (up to 30 s) until its node has removed its containers. */
export async function stopJob(gateway: string, userKey: string, job: string): Promise<void> {
  const user = createApiClient({ baseUrl: gateway, apiKey: userKey });
  await user.POST('/jobs/{job}/stop', { params: { path: { job } } });
  for (let i = 0; i < 60; i++) {
    const { stdout } = await exec('docker', ['ps', '-aq', '--filter', `label=ocg.job=${job}`]).catch(() => ({ stdout: '' }));
    if (!stdout.trim()) return;
    await sleep(500);
  }
  throw new Error(`the node did not remove job ${job}'s containers within 30 s`);
}
