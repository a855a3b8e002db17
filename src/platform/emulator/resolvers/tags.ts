import type { Context } from "../context.ts";
import type { Customer, Order, Product } from "../model.ts";
import { MAX_TAG_LENGTH, addTags, removeTags, sameTags, splitTags } from "../tags.ts";
import { findNode } from "./nodes.ts";
import type { Resolvers } from "./types.ts";
import { UserErrors } from "./user-errors.ts";

type Taggable = Product | Customer | Order;

function taggable(ctx: Context, id: string, errors: UserErrors): Taggable | undefined {
  const node = findNode(ctx.store, id);
  if (node?.kind === "Product" || node?.kind === "Customer" || node?.kind === "Order") return node;
  errors.add(["id"], `Resource ${id} not found`, "NOT_FOUND");
  return undefined;
}

/**
 * Adds or removes tags with set semantics, never overwriting the list. A real change moves
 * updatedAt; a product change also sends products/update, as the platform does.
 */
function changeTags(ctx: Context, args: { id: string; tags: string[] }, change: typeof addTags) {
  const errors = new UserErrors();
  const node = taggable(ctx, args.id, errors);
  const tags = splitTags(args.tags);
  tags.forEach((tag) => {
    if (tag.length > MAX_TAG_LENGTH) errors.add(["tags"], `Tag '${tag.slice(0, 20)}…' is too long (maximum is ${MAX_TAG_LENGTH} characters)`, "TOO_LONG");
  });
  if (!node || errors.any) return { node: null, userErrors: errors.list };
  const next = change(node.tags, tags);
  if (!sameTags(next, node.tags)) {
    node.tags = next;
    if (node.kind === "Product") {
      ctx.store.touchProduct(node);
      ctx.events.productUpdated(node);
    } else {
      node.updatedAt = ctx.store.now();
    }
  }
  return { node, userErrors: [] };
}

export const tagMutations: Resolvers = {
  Mutation: {
    tagsAdd: (_: unknown, args: { id: string; tags: string[] }, ctx: Context) => changeTags(ctx, args, addTags),
    tagsRemove: (_: unknown, args: { id: string; tags: string[] }, ctx: Context) => changeTags(ctx, args, removeTags),
  },
};
