import { randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * A private op's host names are `<job>-<label>-<port>` (ADR 0036): the label
 * is 12 random base32 characters (60 bits), chosen here when the job is
 * posted and kept in its sealed definition, so knowing the job does not
 * reveal them. 12 is what fits: a DNS label is at most 63 characters.
 */
export function newPrivateLabel(): string {
  const bytes = randomBytes(12);
  // A letter first: a label of digits alone would read as a port.
  return Array.from(bytes, (b, i) => (i === 0 ? BASE32[b % 26] : BASE32[b % 32])).join('');
}

interface DefinedOp {
  type?: string;
  args?: { private?: boolean; private_label?: string; expose?: unknown[] };
}

/** Whether an op that is not private exposes a port: the job's own URL (`<job>`) serves only those. */
export function exposesPublicly(definition: object): boolean {
  const ops = (definition as { ops?: DefinedOp[] }).ops ?? [];
  return ops.some((op) => !op.args?.private && (op.args?.expose ?? []).some((e) => (e as { type?: string }).type !== 'none'));
}

/** The normalized definition with a label on every private op (labels already there are kept: a retry posts the same job). */
export function withPrivateLabels<T extends object>(definition: T): T {
  const ops = (definition as { ops?: DefinedOp[] }).ops;
  if (!ops?.some((op) => op.args?.private)) return definition;
  const labelled = ops.map((op) =>
    op.type === 'container/run' && op.args?.private && !op.args.private_label ? { ...op, args: { ...op.args, private_label: newPrivateLabel() } } : op,
  );
  return { ...definition, ops: labelled };
}
