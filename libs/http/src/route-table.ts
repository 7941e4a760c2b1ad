import type http from 'node:http';
import express, { type Express } from 'express';

/** What this module reads of express 4's router (lib/router: `Layer`, `Route`, the router function). */
interface Layer {
  name: string;
  handle: ((...args: never[]) => unknown) & { stack?: Layer[] };
  route?: Route;
  keys: unknown[];
  regexp: RegExp & { fast_slash?: boolean };
  match(path: string): boolean;
  handle_request(req: http.IncomingMessage, res: http.ServerResponse, next: Next): void;
}

interface Route {
  path: unknown;
  methods: Record<string, boolean>;
  _handles_method(method: string): boolean;
}

interface Router {
  (req: http.IncomingMessage, res: http.ServerResponse, next: Next): void;
  stack: Layer[];
  params: Record<string, unknown>;
  mergeParams?: boolean;
}

type Next = (err?: unknown) => void;

/** The request fields express's router keeps. */
interface Routed {
  next?: Next;
  baseUrl?: string;
  originalUrl?: string;
  params?: Record<string, string>;
}

/** Where one method and path goes: the layers express would run on the way, their places in the app's stack, and the route last. */
interface Plan {
  layers: Layer[];
  places: number[];
}

/** The methods express answers in its own way (OPTIONS lists the routes' methods, HEAD falls back on GET): left to it. */
const OWN_WAYS = new Set(['head', 'options', '_all']);

/** What `next` was called with, carried into the rest of the stack (see `RouteTable.handOver`); no field on the request changes its shape. */
const pending = new WeakMap<http.IncomingMessage, unknown>();

/** Plans by method, then by path. */
type Plans = Map<string, Map<string, Plan>>;

/**
 * express's dispatch for the requests whose way through the app can be known
 * before they come. express looks for each request's route by trying every
 * layer of the app in turn: a nested router (the health routes) is entered,
 * tried and left on the next turn of the event loop, and every layer on the
 * way costs closures and a regular expression; for a service, about a tenth
 * of a small request's work. Here, at the first request, each route of a
 * fixed path (no parameters) is followed through the app's stack as express
 * would follow a request for it: the middleware mounted at `/` it would run,
 * the routes and routers it would pass over because they cannot answer that
 * path and method. A request for such a path is then sent through those
 * layers and the route directly. Anything else goes to express, and so does
 * whatever comes after the route: when a layer or the route calls `next`
 * (with an error or without), express goes on from the layer after it, with
 * its final handler last.
 *
 * A route is left to express when anything before it could change the way:
 * a middleware mounted on a path of its own, a router holding more than
 * routes, an earlier route of the same path and method or a path with
 * parameters that matches it, `app.param` callbacks. HEAD and OPTIONS, paths
 * written another way (case, a trailing slash, `%`-escapes) and URLs not
 * starting with `/` are served by express. The table is made at the first
 * request and made again if layers are added to the app later.
 */
export class RouteTable {
  private plans: Plans = new Map();
  /** How many layers the app's stack had when the table and the hand-overs were made (-1: not yet made). */
  private madeFor = -1;
  private readonly tails = new Map<number, (req: http.IncomingMessage, res: http.ServerResponse) => void>();

  constructor(private readonly app: Express) {}

  /** The request listener: the table's way where it has one, express's otherwise. */
  readonly listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const plan = this.planOf(req);
    if (plan === undefined) this.app(req as express.Request, res as express.Response);
    else this.run(plan, req, res);
  };

  /** The method and path pairs it dispatches itself, as `GET /path`. */
  planned(): string[] {
    return [...this.table()].flatMap(([method, paths]) => [...paths.keys()].map((path) => `${method} ${path}`));
  }

  private planOf(req: http.IncomingMessage): Plan | undefined {
    const url = req.url ?? '';
    const q = url.indexOf('?'); // the key is a registered path: a URL not starting with '/' finds none
    return this.table()
      .get(req.method ?? '')
      ?.get(q < 0 ? url : url.slice(0, q));
  }

  private table(): Plans {
    const layers = stackOf(this.app)?.length ?? 0;
    if (layers !== this.madeFor) {
      this.plans = plan(this.app);
      this.tails.clear();
      this.madeFor = layers;
    }
    return this.plans;
  }

  /** What express's router does for a request it finds these layers for, in the same order. */
  private run(plan: Plan, req: http.IncomingMessage, res: http.ServerResponse): void {
    const routed = req as http.IncomingMessage & Routed;
    const { layers, places } = plan;
    const last = layers.length - 1;
    let i = 0;
    const next: Next = (err) => {
      if ((err && err !== 'route') || i > last) {
        this.handOver(places[i - 1] + 1, err, req, res);
        return;
      }
      const layer = layers[i++];
      routed.params = {}; // the route sets `req.route` itself (express's `Route.dispatch`)
      layer.handle_request(req, res, next);
    };
    routed.next = next;
    routed.baseUrl = '';
    routed.originalUrl ||= req.url;
    next();
  }

  /**
   * The rest of the request, from the stack's layer at `from`, to express:
   * a router holding that layer and those after it, led by one that passes
   * on what `next` was called with, inside an object that is the app but for
   * its router (`app.handle` makes the same final handler).
   */
  private handOver(from: number, err: unknown, req: http.IncomingMessage, res: http.ServerResponse): void {
    let tail = this.tails.get(from);
    if (tail === undefined) {
      const router = express.Router();
      router.use((r, _res, next) => next(pending.get(r)));
      (router as unknown as Router).stack.push(...(stackOf(this.app) ?? []).slice(from));
      const app = Object.create(this.app, { _router: { value: router } }) as { handle(req: http.IncomingMessage, res: http.ServerResponse): void };
      tail = (rq, rs) => app.handle(rq, rs);
      this.tails.set(from, tail);
    }
    pending.set(req, err); // kept as long as the request is
    tail(req, res);
  }
}

function routerOf(app: Express): Router | undefined {
  return (app as unknown as { _router?: Router })._router;
}

function stackOf(app: Express): Layer[] | undefined {
  return routerOf(app)?.stack;
}

/** The plans of the app's routes of fixed paths (see `RouteTable`). */
function plan(app: Express): Plans {
  const plans: Plans = new Map();
  const router = routerOf(app);
  if (router === undefined || Object.keys(router.params).length > 0 || router.mergeParams) return plans;
  const { stack } = router;
  for (const [place, layer] of stack.entries()) {
    const route = layer.route;
    if (route === undefined || layer.keys.length > 0 || typeof route.path !== 'string' || route.path.includes('%')) continue;
    for (const method of Object.keys(route.methods)) {
      if (OWN_WAYS.has(method) || !route.methods[method]) continue;
      const METHOD = method.toUpperCase();
      let paths = plans.get(METHOD);
      if (paths === undefined) plans.set(METHOD, (paths = new Map()));
      const way = wayTo(stack, place, route.path, method);
      if (way) paths.set(route.path, way);
    }
  }
  return plans;
}

/** The layers before `place` a request for `path` and `method` runs, or undefined when that cannot be known. */
function wayTo(stack: Layer[], place: number, path: string, method: string): Plan | undefined {
  const way: Plan = { layers: [], places: [] };
  for (let i = 0; i < place; i++) {
    const layer = stack[i];
    if (layer.route) {
      // It comes first (or may): the first route of a path and method is planned, a later one never.
      if (matches(layer, path) && layer.route._handles_method(method)) return undefined;
    } else if (!matches(layer, path)) {
      continue;
    } else if (isRouter(layer)) {
      if (!layer.regexp.fast_slash || !onlyOtherRoutes(layer.handle.stack ?? [], path, method)) return undefined;
    } else if (layer.regexp.fast_slash) {
      way.layers.push(layer); // error handlers too: express's handle_request passes them over
      way.places.push(i);
    } else return undefined; // mounted on a path: express trims the URL for it
  }
  way.layers.push(stack[place]);
  way.places.push(place);
  return way;
}

function matches(layer: Layer, path: string): boolean {
  try {
    return layer.match(path);
  } catch {
    return true; // a parameter express could not decode: it would stop there
  }
}

function isRouter(layer: Layer): boolean {
  return Array.isArray(layer.handle.stack);
}

/** A router mounted at `/` whose layers are all routes, none of which takes this path and method. */
function onlyOtherRoutes(stack: Layer[], path: string, method: string): boolean {
  return stack.every((layer) => layer.route !== undefined && !(matches(layer, path) && layer.route._handles_method(method)));
}
