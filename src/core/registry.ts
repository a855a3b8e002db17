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
