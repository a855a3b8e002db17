import type { AnyAction } from "../core/action.ts";
import { llmsTxt, skillMd } from "./llms.ts";
import { openApiDocument } from "./openapi.ts";

/** The public documents as served: each rendered on its first request, then kept. */
interface PublicDocuments {
  llms(): string;
  skill(): string;
  openapi(): string;
}

// They depend only on the actions, so every server over the same registry shares one rendering:
// the open routes cost a lookup each, however often they are asked, and a process that never
// serves them never renders them (about 300 ms of a start).
const rendered = new WeakMap<readonly AnyAction[], PublicDocuments>();

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
      openapi: once(() => JSON.stringify(openApiDocument(actions))),
    };
    rendered.set(actions, documents);
  }
  return documents;
}
