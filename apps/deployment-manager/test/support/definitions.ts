import { BUSYBOX_IMAGE } from '@ocg/testing';

export interface OpExtra {
  args?: object;
  execution?: object;
  results?: object;
}

/** A container/run op on the local busybox test image. */
export function runOp(id: string, script: string, extra: OpExtra = {}): object {
  return { type: 'container/run', id, args: { image: BUSYBOX_IMAGE, cmd: ['sh', '-c', script], ...extra.args }, execution: extra.execution, results: extra.results };
}

export function definition(ops: object[]): { [member: string]: unknown } {
  return { version: '0.1', type: 'container', ops: JSON.parse(JSON.stringify(ops)) as object[] };
}

/** busybox httpd serving `text` on `port` in the foreground. */
export function serve(port: number, text = 'ok'): string {
  return `mkdir -p /www && echo ${text} > /www/index.html && httpd -f -p ${port} -h /www`;
}

/** A job that serves HTTP on port 8080 until stopped. */
export const webJob = () => definition([runOp('web', serve(8080, 'hello'), { args: { expose: 8080 } })]);

/** A job that prints a line, captures it as a result and ends. */
export const quickJob = (text = 'answer=42') => definition([runOp('task', `echo ${text}`, { results: { answer: { regex: 'answer=(\\d+)', logType: ['stdout'] } } })]);

/** A job that does nothing but wait. */
export const sleeper = () => definition([runOp('sleep', 'sleep 3600')]);
