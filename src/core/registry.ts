import type { AnyAction, HttpMethod } from "./action.ts";

interface CompiledRoute {
  action: AnyAction;
  method: HttpMethod;
  template: string;
  /** A literal segment, or a parameter name in braces. */
  segments: { literal?: string; param?: string }[];
  literals: number;
}

export interface RouteMatch {
  action: AnyAction;
  params: Record<string, string>;
  /** The path that matched. */
  template: string;
}

function splitPath(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function compile(action: AnyAction, template: string): CompiledRoute {
  if (!template.startsWith("/")) throw new Error(`Action ${action.name}: path must start with /: ${template}`);
  const segments = splitPath(template).map((segment) => {
    const param = /^\{([a-z_][a-z0-9_]*)\}$/.exec(segment)?.[1];
    return param ? { param } : { literal: segment };
  });
  return {
    action,
    method: action.method,
    template,
    segments,
    literals: segments.filter((s) => s.literal !== undefined).length,
  };
}

/** The shape of a path with parameter names erased, so `/a/{x}` and `/a/{y}` collide. */
function shapeKey(route: CompiledRoute): string {
  return `${route.method} /${route.segments.map((s) => (s.param ? "{}" : s.literal)).join("/")}`;
}

function positionalOrder(a: CompiledRoute, b: CompiledRoute): number {
  const shape = (route: CompiledRoute) => route.segments.map((s) => (s.param === undefined ? "0" : "1")).join("");
  const [x, y] = [shape(a), shape(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Words of lower-case letters, digits, `_`, `-` and `'`, separated by single spaces: "turn on preorders for an offer". */
const ALIAS_PHRASE = /^[a-z0-9][a-z0-9_'-]*( [a-z0-9][a-z0-9_'-]*)+$/;

export class Registry {
  readonly actions: readonly AnyAction[];
  private readonly byName = new Map<string, AnyAction>();
  private readonly routes: CompiledRoute[] = [];

  /** Fails fast on a duplicate name, a path that another route already answers, or an alias phrase another action uses. */
  constructor(actions: readonly AnyAction[]) {
    this.actions = actions;
    const shapes = new Map<string, string>();
    const phrases = new Map<string, string>();
    for (const action of actions) {
      if (!/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/.test(action.name)) throw new Error(`Invalid action name: ${action.name}`);
      if (this.byName.has(action.name)) throw new Error(`Duplicate action name: ${action.name}`);
      this.byName.set(action.name, action);
      const route = compile(action, action.path);
      const key = shapeKey(route);
      const owner = shapes.get(key);
      if (owner) throw new Error(`Duplicate route ${key}: ${owner} and ${action.name}`);
      shapes.set(key, action.name);
      this.routes.push(route);
      for (const phrase of action.aliases ?? []) {
        if (!ALIAS_PHRASE.test(phrase)) throw new Error(`Action ${action.name}: alias must be a lower-case phrase of words: ${JSON.stringify(phrase)}`);
        const taken = phrases.get(phrase);
        if (taken) throw new Error(`Duplicate alias "${phrase}": ${taken} and ${action.name}`);
        phrases.set(phrase, action.name);
      }
    }
    // Most literal segments first, so `/offers/export` wins over `/offers/{id}`; on a tie the
    // leftmost literal wins (`/a/b/{y}` over `/a/{x}/c`), whatever the order of registration.
    this.routes.sort((a, b) => b.literals - a.literals || positionalOrder(a, b));
  }

  get(name: string): AnyAction | undefined {
    return this.byName.get(name);
  }

  /** The methods some action answers at `path` (in the order GET, POST, PATCH, PUT, DELETE). */
  methodsAt(path: string): HttpMethod[] {
    return (["GET", "POST", "PATCH", "PUT", "DELETE"] as const).filter((method) => this.match(method, path) !== undefined);
  }

  /**
   * The longest leading part of `path` (whole segments, as written) under which some action's
   * path lies: what `GET <scope>/help` lists. "" when not even the first segment is known.
   */
  knownScope(path: string): string {
    const parts = splitPath(path).map(decodeSegment);
    let best = 0;
    for (const route of this.routes) {
      let n = 0;
      while (n < parts.length && n < route.segments.length) {
        const segment = route.segments[n];
        if (segment?.param === undefined && segment?.literal !== parts[n]) break;
        n += 1;
      }
      best = Math.max(best, n);
    }
    return best === 0 ? "" : `/${splitPath(path).slice(0, best).join("/")}`;
  }

  /**
   * What to ask instead of a method no action answers at `path`: PATCH when the path has one (a
   * PUT or POST of settings is a PATCH here), else the methods it has, else the help of the
   * deepest scope the path shares with some action.
   */
  insteadOf(method: string, path: string): string {
    const methods = this.methodsAt(path);
    if (methods.includes("PATCH") && (method === "PUT" || method === "POST")) {
      return `use PATCH ${path} (a deep partial: only the fields sent change)`;
    }
    if (methods.length > 0) return `${path} takes ${methods.join(", ")} (see GET ${path.replace(/\/+$/, "")}/help)`;
    const scope = this.knownScope(path);
    return scope === "" ? "see GET /help?format=compact for every action" : `see GET ${scope}/help for the actions under ${scope}`;
  }

  match(method: string, path: string): RouteMatch | undefined {
    const parts = splitPath(path).map(decodeSegment);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = route.segments[i];
        const part = parts[i];
        if (segment === undefined || part === undefined) ok = false;
        else if (segment.param !== undefined) params[segment.param] = part;
        else ok = segment.literal === part;
      }
      if (ok) return { action: route.action, params, template: route.template };
    }
    return undefined;
  }
}
