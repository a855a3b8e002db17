import type { AnyAction } from "../core/action.ts";
import { llmsTxt, skillMd } from "./llms.ts";
import { V2_BASE_PATH } from "../core/manifest.ts";
import { openApiDocument } from "./openapi.ts";

/** The public documents as served: each rendered on its first request, then kept. */
interface PublicDocuments {
  llms(): string;
  skill(): string;
  /** With `servers` naming `origin` + the v2 base path (absolute, as Prism and code generators need it). */
  openapi(origin: string): string;
}

// They depend only on the actions, so every server over the same registry shares one rendering:
// the open routes cost a lookup each, however often they are asked, and a process that never
// serves them never renders them (about 300 ms of a start).
const rendered = new WeakMap<readonly AnyAction[], PublicDocuments>();

/**
 * The OpenAPI text for one origin: the document is rendered once without `servers`, and each
 * answer puts its absolute server URL in front (the origin differs by request, the rest does not).
 */
function withServers(body: () => string): (origin: string) => string {
  return (origin) => {
    const rest = body();
    const servers = JSON.stringify([{ url: `${origin.replace(/\/+$/, "")}${V2_BASE_PATH}` }]);
    return `{"servers":${servers},${rest.slice(1)}`;
  };
}

function once(build: () => string): () => string {
  let text: string | undefined;
  return () => (text ??= build());
}

export function publicDocuments(actions: readonly AnyAction[]): PublicDocuments {
  let documents = rendered.get(actions);
  if (!documents) {
    documents = {
      llms: once(() => llmsTxt(actions)),
      skill: once(() => skillMd(actions)),
      openapi: withServers(
        once(() => {
          const { servers: _relative, ...rest } = openApiDocument(actions);
          return JSON.stringify(rest);
        }),
      ),
    };
    rendered.set(actions, documents);
  }
  return documents;
}
