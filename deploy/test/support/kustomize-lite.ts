// Renders the kustomizations in deploy/kubernetes without kubectl, for machines
// that lack it: only what those kustomizations use (resources, namespace,
// labels, configMapGenerator with literals, images, inline JSON 6902 patches).
// kubernetes.spec.ts checks that it renders the same objects as `kubectl kustomize`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { K8sObject } from './manifests';

interface Kustomization {
  resources?: string[];
  namespace?: string;
  labels?: { pairs: Record<string, string> }[];
  configMapGenerator?: { name: string; behavior?: 'create' | 'merge'; literals?: string[] }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { target: { kind?: string; name?: string }; patch: string }[];
}
const supported = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'configMapGenerator', 'images', 'patches']);

/** Generated ConfigMaps, by the name the kustomizations use (their rendered name gets a content hash). */
type Generated = Map<string, K8sObject>;

function build(dir: string, generated: Generated): K8sObject[] {
  const k = parse(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  const unknown = Object.keys(k).filter((key) => !supported.has(key));
  if (unknown.length) throw new Error(`${dir}: kustomize-lite does not know ${unknown.join(', ')}; install kubectl 1.21 or later`);
  const objects: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = path.join(dir, r);
    if (fs.statSync(p).isDirectory()) objects.push(...build(p, generated));
    else objects.push(...parseAllDocuments(fs.readFileSync(p, 'utf8')).map((d) => d.toJSON() as K8sObject));
  }
  for (const g of k.configMapGenerator ?? []) {
    const data = Object.fromEntries((g.literals ?? []).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const existing = generated.get(g.name);
    if (g.behavior === 'merge') {
      if (!existing) throw new Error(`${dir}: configMapGenerator ${g.name} merges into nothing`);
      existing.data = { ...existing.data, ...data };
    } else {
      const map: K8sObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g.name }, data };
      generated.set(g.name, map);
      objects.push(map);
    }
  }
  for (const { pairs } of k.labels ?? []) for (const o of objects) o.metadata.labels = { ...o.metadata.labels, ...pairs };
  for (const p of k.patches ?? []) {
    const targets = objects.filter((o) => (!p.target.kind || o.kind === p.target.kind) && (!p.target.name || o.metadata.name === p.target.name));
    for (const o of targets) for (const op of parse(p.patch) as JsonPatchOp[]) applyOp(o, op);
  }
  for (const image of k.images ?? []) for (const c of objects.flatMap(containersOf)) c.image = retag(c.image, image);
  if (k.namespace) for (const o of objects) if (o.kind !== 'Namespace') o.metadata.namespace = k.namespace;
  return objects;
}

interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

function applyOp(target: object, { op, path: pointer, value }: JsonPatchOp): void {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop()!;
  const parent = keys.reduce((node: any, key) => node?.[key], target);
  if (parent === undefined || (op !== 'add' && !(last in parent))) throw new Error(`patch ${op} ${pointer}: no such path`);
  if (op === 'remove') delete parent[last];
  else if (Array.isArray(parent) && op === 'add') parent.splice(last === '-' ? parent.length : Number(last), 0, value);
  else parent[last] = value;
}

const containersOf = (o: K8sObject): { image: string }[] => [...(o.spec?.template?.spec?.containers ?? []), ...(o.spec?.template?.spec?.initContainers ?? [])];

function retag(image: string, rule: { name: string; newName?: string; newTag?: string }): string {
  const at = image.lastIndexOf(':');
  const [name, tag] = at > image.lastIndexOf('/') ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
  if (name !== rule.name) return image;
  const newTag = rule.newTag ?? tag;
  return `${rule.newName ?? name}${newTag ? `:${newTag}` : ''}`;
}

/** Renders a kustomization directory: generated ConfigMaps get a content hash in their name, and references follow. */
export function renderLite(dir: string): K8sObject[] {
  const generated: Generated = new Map();
  const objects = build(dir, generated);
  const renamed = new Map<string, string>();
  for (const [name, map] of generated) {
    const sorted = Object.fromEntries(Object.entries(map.data ?? {}).sort(([a], [b]) => a.localeCompare(b)));
    map.data = sorted;
    map.metadata.name = `${name}-${createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 10)}`;
    renamed.set(name, map.metadata.name);
  }
  const rename = (ref: { name?: string } | undefined): void => {
    if (ref?.name && renamed.has(ref.name)) ref.name = renamed.get(ref.name);
  };
  for (const o of objects) {
    const pod = o.spec?.template?.spec;
    for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
      for (const from of c.envFrom ?? []) rename(from.configMapRef);
      for (const e of c.env ?? []) rename(e.valueFrom?.configMapKeyRef);
    }
    for (const v of pod?.volumes ?? []) rename(v.configMap);
  }
  return objects;
}
