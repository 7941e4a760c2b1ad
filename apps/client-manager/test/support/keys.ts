import type { Harness } from '../harness';

/** A key of `owner` made through POST /api-keys/. */
export async function createKey(cm: Harness, ownerKey: string, body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await cm.call('POST', '/api-keys/', { key: ownerKey, body: { name: 'test key', ...body } });
  if (res.status !== 200) throw new Error(`POST /api-keys/ answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { id: res.body.id, key: res.body.key };
}

export const validate = async (cm: Harness, apiKey: string): Promise<any> => (await cm.call('POST', '/auth/validate-api-key', { body: { apiKey } })).body;
