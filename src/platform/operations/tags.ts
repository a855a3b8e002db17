import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { expectNoUserErrors } from "../errors.ts";
import { chunk, unique } from "./chunk.ts";
import { parseAnswer } from "./parse.ts";
import { userErrorsSchema } from "./user-errors.ts";

export const TAGS_ADD = `mutation TagsAdd($id: ID!, $tags: [String!]!) {
  tagsAdd(id: $id, tags: $tags) { userErrors { field message } }
}`;

export const TAGS_REMOVE = `mutation TagsRemove($id: ID!, $tags: [String!]!) {
  tagsRemove(id: $id, tags: $tags) { userErrors { field message } }
}`;

const answerSchemas = {
  tagsAdd: z.object({ tagsAdd: z.object({ userErrors: userErrorsSchema }) }).transform((d) => d.tagsAdd),
  tagsRemove: z.object({ tagsRemove: z.object({ userErrors: userErrorsSchema }) }).transform((d) => d.tagsRemove),
};

/**
 * Adds tags to any taggable node (customer, order, product). tagsAdd merges into the node's
 * list on the platform, so tags set by the merchant or other apps are never overwritten.
 */
export async function addTags(client: PlatformRequester, id: string, tags: readonly string[], options?: RequestOptions): Promise<void> {
  await changeTags(client, "tagsAdd", TAGS_ADD, id, tags, options);
}

/** Removes only the given tags; the rest of the node's list stays. */
export async function removeTags(client: PlatformRequester, id: string, tags: readonly string[], options?: RequestOptions): Promise<void> {
  await changeTags(client, "tagsRemove", TAGS_REMOVE, id, tags, options);
}

async function changeTags(
  client: PlatformRequester,
  field: "tagsAdd" | "tagsRemove",
  mutation: string,
  id: string,
  tags: readonly string[],
  options: RequestOptions | undefined,
): Promise<void> {
  const wanted = unique(tags.map((tag) => tag.trim()).filter((tag) => tag.length > 0));
  for (const part of chunk(wanted)) {
    const data = await client.request<unknown>(mutation, { id, tags: part }, options);
    expectNoUserErrors(parseAnswer(answerSchemas[field], data, field), field);
  }
}
