/** The areas that send messages to customers: each declares its stages, templates and ledger. */
export const MESSAGE_AREAS = ["back_in_stock", "preorders"] as const;
export type MessageArea = (typeof MESSAGE_AREAS)[number];
