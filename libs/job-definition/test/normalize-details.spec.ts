import { normalize, type JobDefinition } from '../src';
import { job, run } from './helpers';

const norm = (d: unknown) => normalize(d as JobDefinition);
const runArgs = (args: Record<string, unknown>) => norm(job([run('a', args)])).ops[0].args as unknown as Record<string, unknown>;

describe('normalize, member by member', () => {
  it('leaves out logistics and deployment_id when absent or not text', () => {
    const plain = norm(job([run('a')], { deployment_id: 7 }));
    expect(plain).not.toHaveProperty('logistics');
    expect(plain).not.toHaveProperty('deployment_id');
    expect(norm(job([run('a')], { deployment_id: 'dep_1', logistics: { send: 1 } }))).toMatchObject({ deployment_id: 'dep_1', logistics: { send: 1 } });
  });

  it('resolves only variables the definition has, never inherited names', () => {
    const d = job([run('a', { env: { A: '%%global.variables.constructor%%', B: '%%global.variables.M%%' } })], { global: { variables: { M: 'gemma' } } });
    expect((norm(d).ops[0].args as { env: Record<string, string> }).env).toEqual({ A: '%%global.variables.constructor%%', B: 'gemma' });
  });

  it('drops the remove-if-empty marker and empty strings, and reads digit strings as ports', () => {
    expect(runArgs({ cmd: ['__remove-if-empty__', '', 'x'] }).cmd).toEqual(['x']);
    expect(runArgs({ cmd: ['__remove-if-empty__', ''] }).cmd).toBeNull();
    expect(runArgs({ cmd: ['', 'x'] }).cmd).toEqual(['', 'x']);
    const ports = (runArgs({ expose: ['8080', 'x80', '80x', 81] }).expose as Array<{ port: unknown }>).map((e) => e.port);
    expect(ports).toEqual([8080, 'x80', '80x', 81]);
  });

  it('keeps a websocket check to its own members, and an http body only when given', () => {
    const checks = [
      { type: 'websocket', expected_response: 'pong', continuous: true },
      { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: false },
      { type: 'http', path: '/', method: 'POST', expected_status: 200, continuous: false, headers: { 'X-A': 'b' }, body: { q: 1 } },
    ];
    const out = (runArgs({ expose: [{ port: 80, health_checks: checks }] }).expose as Array<{ health_checks: unknown[] }>)[0].health_checks;
    expect(out).toStrictEqual([
      { type: 'websocket', expected_response: 'pong', continuous: true },
      { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: false, headers: {} },
      { type: 'http', path: '/', method: 'POST', expected_status: 200, continuous: false, headers: { 'X-A': 'b' }, body: { q: 1 } },
    ]);
  });
});
