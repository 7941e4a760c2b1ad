/** How `ocg job logs` prints a line, with colours and without. */
import { colourWanted, logLineFormat } from '../src/log-format';

const line = (stream: 'stdout' | 'stderr' | 'nodeerr', text: string) => ({ seq: 1, time: '2025-03-01T14:05:09.123456789Z', stream, text });

it('prints the local time with milliseconds, the op padded to the longest, and marks streams other than stdout', () => {
  const format = logLineFormat(['web', 'worker'], { colour: false });
  expect(format.line('web', line('stdout', 'ready'))).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.123 web {4}\| ready$/);
  expect(format.line('worker', line('stderr', 'oops'))).toMatch(/ worker \| \[stderr\] oops$/);
  expect(format.line('web', line('nodeerr', 'pulled'))).toMatch(/ web {4}\| \[nodeerr\] pulled$/);
  expect(format.note('op web: reconnected')).toBe('ocg: op web: reconnected');
});

it('gives each op its colour and dims the time on a terminal', () => {
  const format = logLineFormat(['web', 'worker'], { colour: true });
  // ESC shown as `^`, to read the codes.
  const web = format.line('web', line('stdout', 'a')).replaceAll('\x1b', '^');
  const worker = format.line('worker', line('stderr', 'b')).replaceAll('\x1b', '^');
  expect(web).toMatch(/^\^\[2m.+\^\[0m \^\[36mweb {3}\^\[0m \| a$/);
  expect(worker).toMatch(/\^\[32mworker\^\[0m \| \^\[31m\[stderr\]\^\[0m b$/);
});

it('wants colours on a terminal only, and not with NO_COLOR or TERM=dumb', () => {
  expect(colourWanted(true, {})).toBe(true);
  expect(colourWanted(false, {})).toBe(false);
  expect(colourWanted(true, { NO_COLOR: '1' })).toBe(false);
  expect(colourWanted(true, { TERM: 'dumb' })).toBe(false);
});
