import { Readable } from 'node:stream';
import type { CasService } from './cas.service';

export interface Download {
  headers: Record<string, string>;
  body: Readable;
}

/**
 * Content as an HTTP answer: the exact bytes, typed JSON when they parse as
 * JSON (definitions and results, what clients read most), and cacheable
 * forever by the reader alone, since an id names its bytes forever.
 */
export class CasDownloads {
  constructor(private readonly cas: CasService) {}

  async open(cid: string, userId: string): Promise<Download> {
    const bytes = await this.cas.read(cid, userId);
    return {
      headers: {
        'Content-Type': isJson(bytes) ? 'application/json; charset=utf-8' : 'application/octet-stream',
        'Content-Length': String(bytes.length),
        'Cache-Control': 'private, max-age=31536000, immutable',
        ETag: `"${cid}"`,
      },
      body: Readable.from([bytes]),
    };
  }
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}
