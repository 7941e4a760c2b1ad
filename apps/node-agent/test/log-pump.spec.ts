/**
 * Docker's log stream: 8-byte frame headers, and frames cut wherever the
 * engine cut them (a long line is split at 16 KiB, whatever character is
 * there). Multi-byte characters split across frames must come out whole.
 */
import { FrameParser } from '../src/executor/log-pump';
import type { LogStream } from '../src/executor/log-buffer';

const frame = (stream: 1 | 2, bytes: Buffer): Buffer => {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(bytes.length, 4);
  return Buffer.concat([header, bytes]);
};

function parse(chunks: Buffer[]): Array<[LogStream, string]> {
  const lines: Array<[LogStream, string]> = [];
  const parser = new FrameParser((stream, line) => lines.push([stream, line]));
  chunks.forEach((c) => parser.push(c));
  parser.flush();
  return lines;
}

describe('FrameParser', () => {
  const text = 'héllo € 😀 ünïcode\n';
  const bytes = Buffer.from(text, 'utf8');

  it('keeps a character whole whose bytes are split across two frames, at every split point', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const stream = Buffer.concat([frame(1, bytes.subarray(0, cut)), frame(1, bytes.subarray(cut))]);
      expect(parse([stream])).toEqual([['stdout', text.trimEnd()]]);
    }
  });

  it('keeps characters whole when frames and chunks are both cut mid-character, streams interleaved', () => {
    const out = Buffer.from('😀😀\n', 'utf8');
    const err = Buffer.from('€€\n', 'utf8');
    const stream = Buffer.concat([frame(1, out.subarray(0, 2)), frame(2, err.subarray(0, 4)), frame(1, out.subarray(2)), frame(2, err.subarray(4))]);
    // Fed one byte at a time: headers and payloads arrive in pieces too.
    const chunks = [...stream].map((b) => Buffer.from([b]));
    expect(parse(chunks)).toEqual([
      ['stdout', '😀😀'],
      ['stderr', '€€'],
    ]);
  });

  it('hands over a last line without a newline at the end, and strips \\r', () => {
    expect(parse([frame(1, Buffer.from('a\r\nb', 'utf8')), frame(2, Buffer.from('ç', 'utf8'))])).toEqual([
      ['stdout', 'a'],
      ['stdout', 'b'],
      ['stderr', 'ç'],
    ]);
  });

  it('takes 64 KiB of one-byte frames in one chunk without overflowing the stack', () => {
    const frames = Buffer.concat(Array.from({ length: 7000 }, (_, i) => frame(1, Buffer.from(i % 2 ? '\n' : 'x'))));
    expect(parse([frames])).toHaveLength(3500);
  });
});
