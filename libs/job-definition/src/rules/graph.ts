import { quote } from '../text';
import { dependencyRefs, exposesPorts, lookupOp, stageName, type OpView, type RuleContext } from './context';

/** Op ids are unique; as host names they must also differ in more than case. */
export function checkIds(ctx: RuleContext): void {
  const seen = new Map<string, OpView>();
  for (const view of ctx.ops) {
    if (view.id === undefined) continue;
    const key = view.id.toLowerCase();
    const earlier = seen.get(key);
    if (!earlier) {
      seen.set(key, view);
      continue;
    }
    const message =
      earlier.id === view.id
        ? `duplicate op id ${quote(view.id)}: already used by ${earlier.path}`
        : `op id ${quote(view.id)} differs from ${quote(earlier.id as string)} (${earlier.path}) only in case; host names ignore case`;
    ctx.errors.push({ path: `${view.path}/id`, message });
  }
}

/**
 * depends_on names existing ops of the same or an earlier stage, never the op
 * itself, without cycles. Later stages cannot have started when this op
 * starts, so such a dependency could never be met.
 */
export function checkDependencies(ctx: RuleContext): void {
  const sameStageEdges = new Map<OpView, Array<{ to: OpView; path: string }>>();
  for (const view of ctx.ops) {
    warnDeprecatedDepends(ctx, view);
    const refs = dependencyRefs(view);
    warnStopWithoutEffect(ctx, view, refs.length);
    for (const ref of refs) {
      const target = lookupOp(ctx, ref.id, ref.path);
      if (!target) continue;
      if (target === view) {
        ctx.errors.push({ path: ref.path, message: 'an op cannot depend on itself' });
      } else if (target.stage > view.stage) {
        ctx.errors.push({
          path: ref.path,
          message: `op ${quote(ref.id)} runs in a later stage (${stageName(ctx, target.stage)}); depend only on ops of the same or an earlier stage`,
        });
      } else if (target.stage === view.stage) {
        const edges = sameStageEdges.get(view) ?? [];
        edges.push({ to: target, path: ref.path });
        sameStageEdges.set(view, edges);
      } else {
        warnStopsAtOnce(ctx, view, target, ref.path);
      }
    }
  }
  reportCycles(ctx, sameStageEdges);
}

function warnDeprecatedDepends(ctx: RuleContext, view: OpView): void {
  if (view.args?.['depends'] === undefined) return;
  ctx.warnings.push({
    path: `${view.path}/args/depends`,
    message: '"args.depends" is a deprecated alias of "execution.depends_on"; move these ids there',
  });
}

function warnStopWithoutEffect(ctx: RuleContext, view: OpView, dependencies: number): void {
  if (view.execution?.['stop_if_dependent_stops'] !== true || dependencies > 0) return;
  ctx.warnings.push({
    path: `${view.path}/execution/stop_if_dependent_stops`,
    message: 'has no effect: this op depends on no op',
  });
}

/** An op of an earlier stage without ports has ended before this op starts. */
function warnStopsAtOnce(ctx: RuleContext, view: OpView, target: OpView, path: string): void {
  if (view.execution?.['stop_if_dependent_stops'] !== true || exposesPorts(target)) return;
  ctx.warnings.push({
    path,
    message: `op ${quote(target.id as string)} has ended before this op starts (earlier stage, no exposed ports), so stop_if_dependent_stops stops this op at once`,
  });
}

/** One error per strongly connected component (Tarjan, iterative: no recursion limit). */
function reportCycles(ctx: RuleContext, edges: Map<OpView, Array<{ to: OpView; path: string }>>): void {
  for (const component of stronglyConnected(edges)) {
    if (component.length < 2) continue;
    const start = component.reduce((a, b) => (a.index < b.index ? a : b));
    const cycle = cycleThrough(start, new Set(component), edges);
    const names = cycle.map((step) => step.view.id).join(' -> ');
    ctx.errors.push({ path: cycle[0].path, message: `dependency cycle: ${names} -> ${start.id}` });
  }
}

function stronglyConnected(edges: Map<OpView, Array<{ to: OpView }>>): OpView[][] {
  const marks = new Map<OpView, { index: number; low: number }>();
  const onStack = new Set<OpView>();
  const stack: OpView[] = [];
  const components: OpView[][] = [];
  const visit = (node: OpView) => {
    marks.set(node, { index: marks.size, low: marks.size });
    stack.push(node);
    onStack.add(node);
    return { node, mark: marks.get(node) as { index: number; low: number }, next: 0 };
  };
  for (const root of edges.keys()) {
    // Stryker disable next-line ConditionalExpression: visiting a finished op again only yields a component of one, which is no cycle
    if (marks.has(root)) continue;
    const work = [visit(root)];
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const out = edges.get(frame.node) ?? [];
      if (frame.next < out.length) {
        const to = out[frame.next++].to;
        const seen = marks.get(to);
        if (!seen) work.push(visit(to));
        else if (onStack.has(to)) frame.mark.low = Math.min(frame.mark.low, seen.index);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) parent.mark.low = Math.min(parent.mark.low, frame.mark.low);
      if (frame.mark.low === frame.mark.index) components.push(popComponent(stack, onStack, frame.node));
    }
  }
  return components;
}

function popComponent(stack: OpView[], onStack: Set<OpView>, root: OpView): OpView[] {
  const component: OpView[] = [];
  for (let member = stack.pop(); member; member = member === root ? undefined : stack.pop()) {
    onStack.delete(member);
    component.push(member);
  }
  return component;
}

/** A shortest cycle from `start` back to itself inside one component (BFS). */
function cycleThrough(start: OpView, members: Set<OpView>, edges: Map<OpView, Array<{ to: OpView; path: string }>>): Array<{ view: OpView; path: string }> {
  const via = new Map<OpView, { from: OpView; path: string }>();
  const queue: OpView[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    // every op of a component of two or more has an edge inside it
    for (const edge of edges.get(node) as Array<{ to: OpView; path: string }>) {
      if (!members.has(edge.to) || via.has(edge.to)) continue;
      via.set(edge.to, { from: node, path: edge.path });
      if (edge.to === start) return unwind(start, via);
      queue.push(edge.to);
    }
  }
  // Stryker disable next-line all: unreachable; a component of two or more ops always holds a path back to start
  return [{ view: start, path: start.path }];
}

function unwind(start: OpView, via: Map<OpView, { from: OpView; path: string }>): Array<{ view: OpView; path: string }> {
  const steps: Array<{ view: OpView; path: string }> = [];
  let node = start;
  do {
    const step = via.get(node) as { from: OpView; path: string };
    steps.unshift({ view: step.from, path: step.path });
    node = step.from;
  } while (node !== start);
  return steps;
}
