/**
 * How the CLI writes: results to stdout (JSON with --json, aligned
 * `label  value` lines otherwise), errors to stderr via CliError, amounts in
 * credits with 6 decimals, times in the local zone.
 */
import { UNITS_PER_CREDIT } from '@ocg/contracts';

/** An error meant for a person: main prints its message to stderr and exits 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** --json: the API's object as it came, so scripts can rely on its documented shape. */
export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

/** `label  value` lines with the values aligned; undefined values are left out. */
export function fields(rows: [string, string | undefined][]): string {
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}

/** Left-aligned columns separated by two spaces. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `1.500000 credits`: integer arithmetic, so no float ever rounds an amount. */
export function credits(units: number): string {
  const sign = units < 0 ? '-' : '';
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / UNITS_PER_CREDIT)}.${String(abs % UNITS_PER_CREDIT).padStart(6, '0')} credits`;
}

/** `2025-03-01 14:05:09` in the local time zone; `-` for none. */
export function localTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `7200 s (2 h)`: seconds as the API counts them, and what a person reads. */
export function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [h && `${h} h`, m && `${m} min`, s && `${s} s`].filter(Boolean);
  return seconds >= 60 ? `${seconds} s (${parts.join(' ')})` : `${seconds} s`;
}

/** A whole number option (`--limit 10`), refused with the flag's name otherwise. */
export function wholeNumber(flag: string, text: string, min = 0): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new CliError(`${flag} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${text}"`);
  return Number(text);
}

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
