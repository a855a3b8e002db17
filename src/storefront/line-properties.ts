/**
 * The line item property the storefront widget puts on a preorder line of an offer that sells
 * without a platform selling plan (`use_platform_selling_plan: false`, which a split into orders
 * forces): the offer's id. Ingest takes such a line as the offer's preorder line, only for an
 * active offer off the platform selling plan that holds the line's variant, since a shopper can
 * write any property (decision 0209). Underscored: themes hide it from the shopper.
 */
export const PREORDER_OFFER_PROPERTY = "_preorder_offer";
